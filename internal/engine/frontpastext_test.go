package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
)

// chainHistory draws a small compare-and-set register history,
// linearizable by construction, rich in crashed operations: writes and
// compare-and-sets crash half the time (taking effect or not), some as
// chains of crashed compare-and-sets from the state they find (u to v,
// then v to w), and reads stay open across several of them, their
// results also written by crashed writes. In half of them one result is
// then changed: a violation, or not.
func chainHistory(rng *rand.Rand) *h.History {
	vals := []h.Value{"1", "2", "3", "4"}
	th := newTimedHistory(h.CASRegister)
	st := h.Value("1")
	n, nv := 4+rng.IntN(12), 2+rng.IntN(3)
	chain := 0 // crashed compare-and-sets still to chain
	for i := 1; i <= n; i++ {
		var l h.Label
		crash := false
		switch r := rng.IntN(20); {
		case chain > 0 || r < 3:
			if chain == 0 {
				chain = 1 + rng.IntN(3)
			}
			chain--
			l = h.Label{Method: h.CAS, Old: st, Arg: vals[rng.IntN(nv)]}
			crash = true
		case r < 9:
			l = h.Label{Method: h.Write, Arg: vals[rng.IntN(nv)]}
			crash = rng.IntN(2) == 0
		case r < 13:
			l = h.Label{Method: h.CAS, Old: vals[rng.IntN(nv)], Arg: vals[rng.IntN(nv)]}
			if rng.IntN(2) == 0 {
				l.Old = st
			}
			crash = rng.IntN(2) == 0
		default:
			l = h.Label{Method: h.Read}
		}
		if !crash || rng.IntN(3) != 0 { // a crashed one may take effect or not
			takeEffect(&st, &l)
		}
		t, span := float64(2*i), 1+4*rng.Float64()
		if l.Method == h.Read {
			span += 6 * rng.Float64()
		}
		th.add(rng, l, t, span, crash)
	}
	return th.done(rng, func() h.Value { return vals[rng.IntN(nv)] })
}

// Marks resolved at the start only (frontpast.go, pastUse): a read
// explained in the past by a crashed write of its result is so on the
// configurations of before its return, not on the search's extensions
// of them. Against Porcupine (on every prefix) and ENUMERATE -c (up to 6
// operations) on small compare-and-set register histories with many
// crashed operations, crashed compare-and-set chains among them, and
// reads open across them: the same verdict, every ok exact, every
// violation at the step both find. The histories must reach the rule
// (extensions with the returning read marked).
func TestFrontierPastExtDifferential(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 41))
	n := scale(3000)
	var tl frontierTally
	ext, enum := 0, 0
	for i := 0; i < n; i++ {
		var hist *h.History
		switch i % 4 {
		case 0, 1:
			hist = chainHistory(rng)
		case 2:
			hist = pastHistory(rng, h.CASRegister)
		default:
			cfg := gen.JepsenConfig{Ops: 6 + rng.IntN(18), Clients: 3 + rng.IntN(5), Values: 2 + rng.IntN(3),
				Reads: 0.3 + 0.3*rng.Float64(), Info: 0.2 + 0.4*rng.Float64(), CAS: 0.2 + 0.4*rng.Float64(), Seed: rng.Int64()}
			if hist = changedJepsen(t, rng, cfg); hist == nil {
				continue
			}
		}
		if len(hist.Ops) <= 6 {
			enum++
		}
		tl.agree(t, fmt.Sprintf("history %d", i), hist, 6)
		ext += replayedFrontier(t, hist).pastExt
	}
	tl.bothWays(t)
	if ext == 0 {
		t.Fatal("no extension with the returning read marked")
	}
	t.Logf("%d histories (%d also against enumerate -c): %d violations, %d linearizable; %d extensions with the returning read marked",
		n, enum, tl.viol, tl.ok, ext)
}

// A crashed write of the state a configuration is at marks the known
// reads whose result the pool has crashed writes of (frontpast.go), so
// it is not idle (poolIdle): the register holds 1; a read of 2 is open
// across a crashed write of 1, used at 1, and a crashed compare-and-set
// from 1 to 4 that reads of 4 before and after the read of 2 need; a
// crashed write of 2 right before the write of 1 explains the read of 2.
// Linearizable (1, 2, 1, 4): skipping the write of 1, the default
// reported a violation at the last read's return. Against Porcupine
// and ENUMERATE -c; and the same with the crashed write of 1 called
// only after the read of 2 returned (then a violation).
func TestFrontierPastIdleWrite(t *testing.T) {
	t.Parallel()
	op := func(id string, l h.Label, call, ret int) h.Op { return h.Op{ID: id, Label: l, Call: call, Return: ret} }
	crashed := func(l h.Label) h.Label {
		l.Pending, l.Ret = true, h.Void
		return l
	}
	w := func(v h.Value) h.Label { return h.Label{Method: h.Write, Arg: v} }
	r := func(v h.Value) h.Label { return h.Label{Method: h.Read, Ret: v} }
	cas14 := crashed(h.Label{Method: h.CAS, Old: "1", Arg: "4"})
	for _, c := range []struct {
		name string
		ops  []h.Op
		ok   bool
	}{
		{"write of 1 before", []h.Op{
			op("0", w("1"), 0, 2),
			op("1", crashed(w("1")), 1, -1),
			op("2", crashed(w("2")), 3, -1),
			op("3", r("4"), 5, 12),
			op("4", cas14, 6, -1),
			op("5", r("2"), 11, 15),
			op("6", r("4"), 16, 18),
		}, true},
		{"write of 1 after", []h.Op{
			op("0", w("1"), 0, 2),
			op("2", crashed(w("2")), 3, -1),
			op("3", r("4"), 5, 12),
			op("4", cas14, 6, -1),
			op("5", r("2"), 11, 15),
			op("1", crashed(w("1")), 16, -1),
			op("6", r("4"), 17, 18),
		}, false},
	} {
		hist := &h.History{Object: h.CASRegister, Ops: c.ops}
		var tl frontierTally
		got := tl.agree(t, c.name, hist, len(c.ops))
		if (got.Verdict == Violation) == c.ok {
			t.Errorf("%s: %v, want ok %v", c.name, got.Verdict, c.ok)
		}
	}
}
