package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testhist"
)

// dupWriteHistory draws a small register or compare-and-set register
// history rich in writes of two values, open across one another, of
// which some crash (taking effect or not): a crashed write and an open
// one of the same value are then often both there for the search, which
// uses the crashed one only where no open one is (openWriteOf). Reads
// (and compare-and-sets) return what a linearization at random points
// in their spans gives; in half of the histories one result is then
// changed, a violation or not.
func dupWriteHistory(rng *rand.Rand, obj h.Object) *h.History {
	vals := []h.Value{"1", "2", "3"}
	nv := 2 + rng.IntN(2)
	th := newTimedHistory(obj)
	st := h.Value("1")
	n := 4 + rng.IntN(7)
	for i := 1; i <= n; i++ {
		var l h.Label
		switch r := rng.IntN(10); {
		case r < 5:
			l = h.Label{Method: h.Write, Arg: vals[rng.IntN(nv)]}
		case r < 7 && obj == h.CASRegister:
			l = h.Label{Method: h.CAS, Old: vals[rng.IntN(nv)], Arg: vals[rng.IntN(nv)]}
		default:
			l = h.Label{Method: h.Read}
		}
		crash := l.Method != h.Read && rng.IntN(3) == 0
		if !crash || rng.IntN(2) == 0 {
			takeEffect(&st, &l)
		}
		t, span := float64(2*i), 1+7*rng.Float64()
		th.add(rng, l, t, span, crash)
	}
	return th.done(rng, func() h.Value { return vals[rng.IntN(nv)] })
}

// A crashed write is not used from a configuration where an open write
// of the same state is left (openWriteOf): against Porcupine (on every
// prefix) and ENUMERATE -c on small register and compare-and-set
// register histories where open and crashed writes of two or three
// values overlap, the same verdict, every ok exact, every violation at
// the step both find. The test counts the crashed writes left so: a
// rule that dropped a configuration no other covers would show here as
// a violation reported on a linearizable history, or too early.
func TestFrontierOpenWriteFirst(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 23))
	n := scale(3000)
	var tl frontierTally
	enum := 0
	skips := 0
	for i := 0; i < n; i++ {
		obj := registerObjects[i%2] // register, compare-and-set register
		hist := dupWriteHistory(rng, obj)
		if len(hist.Ops) <= 7 {
			enum++
		}
		tl.agree(t, fmt.Sprintf("history %d (%v)", i, obj), hist, 7)
		m, err := New(hist.Object, hist.Param, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.replayThen(hist, nil); err != nil {
			t.Fatal(err)
		}
		if m.front != nil {
			skips += m.front.openFirst
		}
	}
	tl.bothWays(t)
	t.Logf("%d histories (%d also against enumerate -c): %d violations, %d linearizable; %d crashed writes left for an open one", n, enum, tl.viol, tl.ok, skips)
	if skips == 0 {
		t.Fatal("no crashed write was left for an open one: the test did not exercise openWriteOf")
	}
}

// A crashed write of the state a configuration is at hides the open
// writes not taken (poolIdle). The register holds 1; cas(1→3) is open
// with write(2), and a crashed write(1) came before both; a read of 3
// is called after write(2) returned. The one linearization: write(2),
// then the crashed write(1) (state 1 again, write(2) overwritten
// unseen), then cas(1→3), which the read finds. A search that skipped
// the crashed write at state 1 as changing nothing never hides write(2),
// which at its return must then take effect after the compare-and-set,
// and reported a violation at the read's return.
func TestFrontierSameStateCrashedWriteHides(t *testing.T) {
	t.Parallel()
	op := func(id string, l h.Label, c, r int) h.Op {
		if r < 0 {
			l.Pending, l.Ret = true, h.Void
		}
		return h.Op{ID: id, Label: l, Call: c, Return: r}
	}
	hist := &h.History{Object: h.CASRegister, Ops: []h.Op{
		op("w0", h.Label{Method: h.Write, Arg: "1"}, 0, 1),
		op("cas", h.Label{Method: h.CAS, Old: "1", Arg: "3", Ret: h.OK}, 2, 6),
		op("crashed", h.Label{Method: h.Write, Arg: "1"}, 3, -1),
		op("w2", h.Label{Method: h.Write, Arg: "2"}, 4, 8),
		op("r1", h.Label{Method: h.Read, Ret: "3"}, 5, 7),
		op("r2", h.Label{Method: h.Read, Ret: "3"}, 9, 10),
	}}
	if !testhist.PorcupineLinearizable(hist) {
		t.Fatal("Porcupine finds no linearization")
	}
	if want := check(hist, Options{Algorithm: Enumerate, Completion: true}); want.Verdict != OK {
		t.Fatalf("enumerate -c: %v", want.Verdict)
	}
	if got := check(hist, Options{}); got.Verdict != OK || !got.Exact {
		t.Fatalf("default %v at %v (exact %v), want an exact ok", got.Verdict, testhist.Step(got.ViolationStep), got.Exact)
	}
}
