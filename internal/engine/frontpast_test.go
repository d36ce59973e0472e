package engine

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testhist"
)

// pastHistory draws a small register history linearizable by
// construction, rich in what frontpast.go acts on: reads open across
// several writes, of values that crashed writes also write (2–3 values),
// the crashed writes called before, between and after the writes the
// reads span, taking effect or not. obj is the register or the
// compare-and-set register (then a few compare-and-sets from the values
// those crashed writes leave). In half of them one result is then
// changed: a violation, or not, that only the placement of a crashed
// write before a write, or after it, decides.
func pastHistory(rng *rand.Rand, obj h.Object) *h.History {
	vals := []h.Value{"1", "2", "3"}
	th := newTimedHistory(obj)
	st := h.Value("1")
	n, nv := 4+rng.IntN(7), 2+rng.IntN(2)
	for i := 1; i <= n; i++ {
		var l h.Label
		switch r := rng.IntN(20); {
		case r < 9:
			l = h.Label{Method: h.Write, Arg: vals[rng.IntN(nv)]}
		case r < 11 && obj == h.CASRegister:
			l = h.Label{Method: h.CAS, Old: vals[rng.IntN(nv)], Arg: vals[rng.IntN(nv)]}
			if rng.IntN(2) == 0 {
				l.Old = st
			}
		default:
			l = h.Label{Method: h.Read}
		}
		crash := l.Method != h.Read && rng.IntN(3) == 0
		if !crash || rng.IntN(2) == 0 { // a crashed one may take effect or not
			takeEffect(&st, &l)
		}
		// Reads open long, across the writes around them.
		t, span := float64(2*i), 1+5*rng.Float64()
		if l.Method == h.Read {
			span += 4 * rng.Float64()
		}
		th.add(rng, l, t, span, crash)
	}
	return th.done(rng, func() h.Value { return vals[rng.IntN(3)] })
}

// Known reads explained in the past (frontpast.go): a crashed write of a
// read's result is no longer used for it before its return; a write
// taken after the read's call marks it instead, and the configuration
// stands for the one with a crashed write of its result put right before
// that write. Against Porcupine (on every prefix) and ENUMERATE -c on
// small register and compare-and-set register histories rich in reads
// open across writes and crashed writes of their results: the same
// verdict, every ok exact, every violation at the step both find.
// Breaking the rule (no mark, a mark that uses no crashed write, or
// marks kept when a crashed write of their result is called after them)
// makes the default report wrong verdicts or steps here.
func TestFrontierPastDifferential(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 23))
	n := scale(3000)
	var tl frontierTally
	marked, enum := 0, 0
	for i := 0; i < n; i++ {
		var hist *h.History
		switch i % 4 {
		case 0:
			hist = pastHistory(rng, h.Register)
		case 1:
			hist = pastHistory(rng, h.CASRegister)
		default:
			cfg := gen.JepsenConfig{Ops: 6 + rng.IntN(10), Clients: 3 + rng.IntN(5), Values: 2 + rng.IntN(2),
				Reads: 0.3 + 0.3*rng.Float64(), Info: 0.1 + 0.3*rng.Float64(), Seed: rng.Int64()}
			if i%4 == 3 {
				cfg.CAS = 0.2 * rng.Float64()
			}
			if hist = changedJepsen(t, rng, cfg); hist == nil {
				continue
			}
		}
		if len(hist.Ops) <= 6 {
			enum++
		}
		tl.agree(t, fmt.Sprintf("history %d", i), hist, 6)
		marked += replayedFrontier(t, hist).pastUsed
	}
	tl.bothWays(t)
	if marked == 0 {
		t.Fatal("no read explained by a mark")
	}
	t.Logf("%d histories (%d also against enumerate -c): %d violations, %d linearizable; %d configurations explained by a mark",
		n, enum, tl.viol, tl.ok, marked)
}

// replayedFrontier is the default check's frontier after hist, for the
// counters that show a test's histories reach the rule it tests
// (pastUsed, pastExt).
func replayedFrontier(t *testing.T, hist *h.History) *frontier {
	t.Helper()
	m, err := newTuned(context.Background(), hist.Object, hist.Param, Options{}, tuning{})
	if err != nil || m.front == nil {
		t.Fatalf("no frontier: %v", err)
	}
	if _, err = m.replay(hist); err != nil {
		t.Fatal(err)
	}
	return m.front
}

// changedJepsen is cfg's generated history with one result changed in
// half of them (changeOneResult), or nil where cfg generates none.
func changedJepsen(t *testing.T, rng *rand.Rand, cfg gen.JepsenConfig) *h.History {
	if gen.Jepsen(cfg, io.Discard) != nil {
		return nil
	}
	hist := jepsenHistory(t, cfg)
	changeOneResult(rng, hist, func() h.Value { return h.Value(strconv.Itoa(rng.IntN(cfg.Values))) })
	return hist
}

// The cases the rule turns on, by hand, each against Porcupine and
// ENUMERATE -c.
//   - A read of 2 open across a write of 3, a crashed write of 2 called
//     before: 2 before 3, and a read of 3 after: ok, explained only by
//     the crashed write put right before the write of 3.
//   - The same with the crashed write called only after the write of 3
//     returned: it cannot come before it, so the read of 3 at the end
//     has no write of 3 after the 2: a violation, at its return.
//   - Two reads of 2 open across the write of 3 with a single crashed
//     write of 2: one crashed write serves both.
//   - Two reads of 2 apart, each across a write whose value is read
//     after it, with a single crashed write of 2: it serves only one.
//   - A read of 2 across a write of 3, read after it; the crashed write
//     of 2 of before used by an earlier read, another called after the
//     write of 3: neither can come before it (settlePast).
func TestFrontierPastHandMade(t *testing.T) {
	t.Parallel()
	op := func(id string, l h.Label, call, ret int) h.Op { return h.Op{ID: id, Label: l, Call: call, Return: ret} }
	w := func(v h.Value) h.Label { return h.Label{Method: h.Write, Arg: v} }
	r := func(v h.Value) h.Label { return h.Label{Method: h.Read, Ret: v} }
	crashed := h.Label{Method: h.Write, Arg: "2", Pending: true, Ret: h.Void}
	cases := []struct {
		name string
		ops  []h.Op
		ok   bool
	}{
		{"crashed before", []h.Op{
			op("0", w("1"), 0, 1),
			op("1", crashed, 2, -1),
			op("2", r("2"), 3, 7),
			op("3", w("3"), 4, 5),
			op("4", r("3"), 8, 9),
		}, true},
		{"crashed after", []h.Op{
			op("0", w("1"), 0, 1),
			op("2", r("2"), 2, 7),
			op("3", w("3"), 3, 4),
			op("1", crashed, 5, -1),
			op("4", r("3"), 8, 9),
		}, false},
		{"two reads, one crashed write", []h.Op{
			op("0", w("1"), 0, 1),
			op("1", crashed, 2, -1),
			op("2", r("2"), 3, 8),
			op("5", r("2"), 4, 9),
			op("3", w("3"), 5, 6),
			op("6", w("1"), 7, 10),
			op("4", r("1"), 11, 12),
		}, true},
		{"one crashed write, two reads apart", []h.Op{
			op("0", w("1"), 0, 1),
			op("1", crashed, 2, -1),
			op("2", r("2"), 3, 7),
			op("3", w("3"), 4, 5),
			op("4", r("3"), 8, 9),
			op("5", r("2"), 10, 14),
			op("6", w("1"), 11, 12),
			op("7", r("1"), 15, 16),
		}, false},
		{"the crashed write of before used, the other called after", []h.Op{
			op("0", w("1"), 0, 1),
			op("1", crashed, 2, -1),
			op("2", r("2"), 3, 4),
			op("3", w("1"), 5, 6),
			op("4", r("2"), 7, 13),
			op("5", w("3"), 8, 9),
			op("6", crashed, 10, -1),
			op("7", r("3"), 14, 15),
		}, false},
	}
	marked := 0
	for _, c := range cases {
		hist := &h.History{Object: h.Register, Ops: slices.Clone(c.ops)}
		compact(hist)
		if testhist.PorcupineLinearizable(hist) != c.ok {
			t.Fatalf("%s: porcupine says linearizable %v\n%v", c.name, !c.ok, hist)
		}
		var tl frontierTally
		tl.agree(t, c.name, hist, 8)
		marked += replayedFrontier(t, hist).pastUsed
	}
	if marked == 0 {
		t.Fatal("no read explained by a mark")
	}
}
