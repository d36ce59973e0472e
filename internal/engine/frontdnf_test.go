package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	h "github.com/satmon/satmon/internal/history"
)

// dnfHistory draws a small register or compare-and-set register history,
// linearizable by construction before one result is perhaps changed, in
// which many writes and compare-and-sets crash: 1–6 clients, 2–4 values,
// compare-and-sets mostly from the current state, so that crashed ones
// chain (a crashed write of a, a crashed a→b, a crashed b→a, …) and the
// same state is reached by many different multisets of crashed
// operations: what merge makes one configuration of (fconf.alts). Each operation takes effect at a
// point between its call and its return; a crashed one (its client comes
// back as a new one, as Jepsen's do) at such a point or never. Reads and
// compare-and-sets return what their point gives: their results are
// known to the monitor's look-ahead. In half of them one read's or
// compare-and-set's result is then changed: a violation, or not.
func dnfHistory(rng *rand.Rand, obj h.Object) *h.History {
	nv := 2 + rng.IntN(3)
	val := func() h.Value { return h.Value(strconv.Itoa(1 + rng.IntN(nv))) }
	clients := 1 + rng.IntN(6)
	crashShare := 2 + rng.IntN(2) // one in crashShare writes and compare-and-sets crashes
	n := 4 + rng.IntN(17)
	hist := &h.History{Object: obj}
	st := h.Value("1")
	hist.Ops = append(hist.Ops, h.Op{ID: "0", Label: h.Label{Method: h.Write, Arg: st}, Call: 0, Return: 1})
	seq := 2
	type open struct {
		op        int
		effected  bool // took effect (its point passed)
		crash     bool // will crash
		neverTake bool // a crashed one that never takes effect
	}
	var running []open // at most clients
	called := 1
	for called <= n || len(running) > 0 {
		switch r := rng.IntN(4); {
		case r == 0 && called <= n && len(running) < clients:
			var l h.Label
			switch k := rng.IntN(10); {
			case k < 3 || obj == h.Register && k < 7:
				l = h.Label{Method: h.Write, Arg: val()}
			case k < 7:
				l = h.Label{Method: h.CAS, Old: val(), Arg: val()}
				if rng.IntN(3) > 0 {
					l.Old = st
				}
			default:
				l = h.Label{Method: h.Read}
			}
			crash := l.Method != h.Read && rng.IntN(crashShare) == 0
			hist.Ops = append(hist.Ops, h.Op{ID: strconv.Itoa(called), Label: l, Call: seq, Return: -1})
			seq++
			running = append(running, open{op: len(hist.Ops) - 1, crash: crash, neverTake: crash && rng.IntN(3) == 0})
			called++
		case r == 1 && len(running) > 0:
			// A point: one open operation takes effect.
			k := rng.IntN(len(running))
			o := &running[k]
			if o.effected || o.neverTake {
				continue
			}
			o.effected = true
			takeEffect(&st, &hist.Ops[o.op].Label)
		case len(running) > 0:
			// A return, or a crash: the client is free again.
			k := rng.IntN(len(running))
			o := running[k]
			if !o.effected && !o.neverTake {
				continue
			}
			op := &hist.Ops[o.op]
			if o.crash {
				op.Label.Pending, op.Label.Ret = true, h.Void
			} else {
				op.Return = seq
				seq++
			}
			running = append(running[:k], running[k+1:]...)
		}
	}
	changeOneResult(rng, hist, val)
	compact(hist)
	return hist
}

// termsSeen replays hist through the monitor (as replay does) and counts,
// after every action, the configurations that carry factors (fconf.alts),
// and the terms of those, so that a test can check that its histories reach the
// disjunctions it tests.
func termsSeen(t *testing.T, hist *h.History) (confs, terms int) {
	t.Helper()
	m, err := newTuned(context.Background(), hist.Object, hist.Param, Options{}, tuning{})
	if err != nil || m.front == nil {
		t.Fatalf("no frontier: %v", err)
	}
	_, err = m.replayThen(hist, func() {
		for i := range m.front.confs {
			if k := len(m.front.confs[i].alts); k > 0 {
				confs++
				for _, x := range m.front.confs[i].alts {
					terms += len(x)
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return confs, terms
}

// The frontier with its configurations' crashed operations as
// products of disjunctions (fconf.alts: merge, use, covers) against ENUMERATE -c and
// Porcupine on thousands of small register and compare-and-set register
// histories with many crashed writes and chains of crashed
// compare-and-sets: the same verdict, every ok exact, every violation at
// the step both find it. A term kept where its label was used up (use)
// would invent a linearization (an ok where there is none, or a
// violation late); a configuration dropped as covered by one whose terms
// cover only some of its own (usedCovers) would lose one (a violation
// where there is none).
func TestFrontierTermsDifferential(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 41))
	n := scale(3000)
	var tl frontierTally
	crashed, withTerms, terms := 0, 0, 0
	for i := 0; i < n; i++ {
		obj := registerObjects[i%2] // register, compare-and-set register
		hist := dnfHistory(rng, obj)
		for _, o := range hist.Ops {
			if o.Pending() {
				crashed++
			}
		}
		tl.agree(t, fmt.Sprintf("history %d (%v)", i, obj), hist, 8)
		c, k := termsSeen(t, hist)
		withTerms += c
		terms += k
	}
	tl.bothWays(t)
	if withTerms < n/20 {
		t.Errorf("only %d configurations with terms over %d histories: the test does not reach merge's disjunctions", withTerms, n)
	}
	t.Logf("%d histories: %d violations, %d linearizable; %d crashed operations; %d configurations with terms (%d terms) after the actions",
		n, tl.viol, tl.ok, crashed, withTerms, terms)
}
