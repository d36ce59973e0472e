package engine

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testhist"
)

// retroHistory draws a small compare-and-set register history where
// compare-and-sets known to fail overlap writes of their old value and
// crashed writes of others (2–3 values, 3–7 clients, many crashes): what
// retro acts on. In half of them one compare-and-set's result is turned
// (ok to fail or back), so that violations lie at the edge of what retro
// must find.
func retroHistory(t *testing.T, rng *rand.Rand) *h.History {
	for {
		cfg := gen.JepsenConfig{Ops: 6 + rng.IntN(10), Clients: 3 + rng.IntN(5), Values: 2 + rng.IntN(2),
			Reads: 0.1 + 0.3*rng.Float64(), CAS: 0.4 + 0.3*rng.Float64(), Info: 0.1 + 0.2*rng.Float64(),
			Seed: rng.Int64()}
		if gen.Jepsen(cfg, io.Discard) != nil {
			continue
		}
		hist := jepsenHistory(t, cfg)
		if rng.IntN(2) == 0 {
			var cas []int
			for i, o := range hist.Ops {
				if o.Label.Method == h.CAS && !o.Pending() {
					cas = append(cas, i)
				}
			}
			if len(cas) > 0 {
				l := &hist.Ops[cas[rng.IntN(len(cas))]].Label
				if l.Ret == h.OK {
					l.Ret = h.Fail
				} else {
					l.Ret = h.OK
				}
			}
		}
		return hist
	}
}

// linCASHistory draws a compare-and-set register history linearizable by
// construction: after a write of 1, 4–9 operations over the values 1–3
// take effect one after the other, each open over an interval around its
// point (1–4 points wide), so that a compare-and-set called at its old
// value often fails after writes of other values and of its old value
// came and went; some writes and compare-and-sets crash (taking effect or
// not). In half of them one result is then changed (a compare-and-set's,
// or a read's): a violation, or not, that only such placements explain.
func linCASHistory(rng *rand.Rand) *h.History {
	vals := []h.Value{"1", "2", "3"}
	th := newTimedHistory(h.CASRegister)
	st := h.Value("1")
	n, nv := 4+rng.IntN(6), 2+rng.IntN(2)
	past := []h.Value{st}
	for i := 1; i <= n; i++ {
		var l h.Label
		switch r := rng.IntN(20); {
		case r < 7:
			l = h.Label{Method: h.Write, Arg: vals[rng.IntN(nv)]}
		case r < 15:
			l = h.Label{Method: h.CAS, Old: vals[rng.IntN(nv)], Arg: vals[rng.IntN(nv)]}
			switch rng.IntN(3) {
			case 0:
				l.Old = st
			case 1: // the state a few points back: called then, it fails
				l.Old = past[max(0, len(past)-1-rng.IntN(3))]
			}
		default:
			l = h.Label{Method: h.Read}
		}
		past = append(past, st)
		crash := l.Method != h.Read && rng.IntN(5) == 0
		if !crash || rng.IntN(2) == 0 { // a crashed one may take effect or not
			takeEffect(&st, &l)
		}
		t, span := float64(2*i), 1+5*rng.Float64()
		th.add(rng, l, t, span, crash)
	}
	return th.done(rng, func() h.Value { return vals[rng.IntN(3)] })
}

// Retroactive placement (frontretro.go): a compare-and-set known to fail
// that has seen only its old value no longer makes every write extend
// every configuration; a write of another value, open or crashed, is
// placed right before a write taken instead. Against Porcupine (on every
// prefix) and ENUMERATE -c on small compare-and-set histories rich in
// failed compare-and-sets and crashed writes: the same verdict, every ok
// exact, every violation at the step both find. Without retro, or with
// it leaving out crashed writes or open ones, the default reports
// violations on linearizable histories here.
func TestFrontierRetroDifferential(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 17))
	n := scale(3000)
	var tl frontierTally
	fails, enum := 0, 0
	for i := 0; i < n; i++ {
		var hist *h.History
		switch i % 4 {
		case 0, 1:
			hist = linCASHistory(rng)
		case 2:
			hist = retroHistory(t, rng)
		default:
			hist = failingCASHistory(rng)
		}
		for _, o := range hist.Ops {
			if o.Label.Method == h.CAS && o.Label.Ret == h.Fail {
				fails++
			}
		}
		if len(hist.Ops) <= 6 {
			enum++
		}
		tl.agree(t, fmt.Sprintf("history %d", i), hist, 6)
	}
	tl.bothWays(t)
	if fails == 0 {
		t.Fatal("no compare-and-set failed")
	}
	t.Logf("%d histories (%d also against enumerate -c): %d violations, %d linearizable; %d failed compare-and-sets", n, enum, tl.viol, tl.ok, fails)
}

// The cases retro is for. First: cas(1→2) is called at 1 and fails; the only
// state other than 1 it may find is 3, of a write open across it that
// returns after it, placed right before the write of 1 that returned
// before it, which the read of 1 at the end requires last. Without
// retro, the write of 3 is not taken before that of 1 (nothing wants 3),
// and the read is reported a violation. Second: only writes of 1 are
// open across the compare-and-set, which therefore cannot fail: retro
// placing one before another must not count 1 as another state.
func TestFrontierRetroHandMade(t *testing.T) {
	t.Parallel()
	op := func(id string, l h.Label, call, ret int) h.Op { return h.Op{ID: id, Label: l, Call: call, Return: ret} }
	hist := &h.History{Object: h.CASRegister, Ops: []h.Op{
		op("0", h.Label{Method: h.Write, Arg: "1"}, 0, 1),
		op("1", h.Label{Method: h.CAS, Old: "1", Arg: "2", Ret: h.Fail}, 2, 6),
		op("2", h.Label{Method: h.Write, Arg: "3"}, 3, 7),
		op("3", h.Label{Method: h.Write, Arg: "1"}, 4, 5),
		op("4", h.Label{Method: h.Read, Ret: "1"}, 8, 9),
	}}
	for _, crashed := range []bool{false, true} {
		if crashed { // the write of 3 crashes instead of returning
			hist.Ops[2].Return, hist.Ops[2].Label.Pending = -1, true
			compact(hist)
		}
		if !testhist.PorcupineLinearizable(hist) {
			t.Fatalf("porcupine: not linearizable\n%v", hist)
		}
		if got := check(hist, Options{}); got.Verdict != OK || !got.Exact {
			t.Errorf("crashed write %v: default %v at %v, exact %v; want an exact ok\n%v", crashed, got.Verdict,
				testhist.Step(got.ViolationStep), got.Exact, hist)
		}
	}
	same := &h.History{Object: h.CASRegister, Ops: []h.Op{
		op("0", h.Label{Method: h.Write, Arg: "1"}, 0, 1),
		op("1", h.Label{Method: h.CAS, Old: "1", Arg: "2", Ret: h.Fail}, 2, 6),
		op("2", h.Label{Method: h.Write, Arg: "1"}, 3, 7),
		op("3", h.Label{Method: h.Write, Arg: "1"}, 4, 5),
	}}
	if got := check(same, Options{}); got.Verdict != Violation || *got.ViolationStep != 7 {
		t.Errorf("default %v at %v; want a violation at 7\n%v", got.Verdict, testhist.Step(got.ViolationStep), same)
	}
}

// takeEffect applies l to the register's state st, as the sequential
// register does, and sets a read's or a compare-and-set's result: the
// generators of linearizable histories take each operation's effect so.
func takeEffect(st *h.Value, l *h.Label) {
	switch l.Method {
	case h.Write:
		*st = l.Arg
	case h.CAS:
		if *st == l.Old {
			*st, l.Ret = l.Arg, h.OK
		} else {
			l.Ret = h.Fail
		}
	case h.Read:
		l.Ret = *st
	}
}

// changeOneResult, in half of the histories, changes the result of one
// returned read (to a value val draws) or compare-and-set (success for
// failure, or the reverse), past the first operation: a generated
// linearizable history then goes both ways.
func changeOneResult(rng *rand.Rand, hist *h.History, val func() h.Value) {
	if rng.IntN(2) != 0 {
		return
	}
	var done []int
	for i, o := range hist.Ops {
		if i > 0 && !o.Pending() && o.Label.Method != h.Write {
			done = append(done, i)
		}
	}
	if len(done) == 0 {
		return
	}
	l := &hist.Ops[done[rng.IntN(len(done))]].Label
	switch {
	case l.Method == h.Read:
		l.Ret = val()
	case l.Ret == h.OK:
		l.Ret = h.Fail
	default:
		l.Ret = h.OK
	}
}
