package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
)

// The search's transitions without hashing (applySlot, applyPool) are the
// kernel's (apply, regStep): for every state and every open or crashed
// write, compare-and-set and append of a few values, on the three
// registers, the same state and the same legality.
func TestFrontierApplyFastPaths(t *testing.T) {
	t.Parallel()
	vals := []h.Value{"1", "2", "3"}
	var labels []h.Label
	for _, v := range vals {
		labels = append(labels, h.Label{Method: h.Write, Arg: v}, h.Label{Method: h.Append, Arg: v})
		for _, u := range vals {
			labels = append(labels, h.Label{Method: h.CAS, Old: u, Arg: v})
		}
	}
	compared := 0
	for _, obj := range registerObjects {
		f := newFrontier(obj, regState{}, false)
		states := []uint32{0} // no value
		for _, v := range append(vals, "12", "4") {
			states = append(states, f.intern(regState{v, true}))
		}
		for i, l := range labels {
			called := l
			called.Pending = true
			f.call(i+1, called, false, h.Void)
			f.abandon(i + 1)
			li, ok := f.poolIdx[poolKey{l.Method, l.Arg, l.Old}]
			if !ok {
				t.Fatalf("%v: %v is not in the pool", obj, l)
			}
			sl := &fslot{inUse: true, l: called}
			if l.Method == h.Write {
				sl.arg = f.intern(regState{l.Arg, true})
			}
			for _, st := range states {
				want, wantOK := f.apply(st, &called)
				got, gotOK := f.applySlot(st, sl)
				if gotOK != wantOK || wantOK && got != want {
					t.Errorf("%v: open %v at %v: applySlot %v %v, apply %v %v", obj, l, f.states[st], got, gotOK, want, wantOK)
				}
				got, gotOK = f.applyPool(st, &f.pool[li])
				if gotOK != wantOK || wantOK && got != want {
					t.Errorf("%v: crashed %v at %v: applyPool %v %v, apply %v %v", obj, l, f.states[st], got, gotOK, want, wantOK)
				}
				compared++
			}
		}
	}
	t.Logf("%d transitions compared", compared)
}

// A clone shares its factors with the original (fconf.clone): what use
// and merge make of either must not show in the other.
func TestFrontierCloneAltsApart(t *testing.T) {
	t.Parallel()
	c := fconf{used: []uint32{0}, alts: [][][]uint32{{{1, 2}, {1, 3}, {2, 3}}}}
	f := &frontier{pool: []poolLabel{{n: 2}, {n: 2}, {n: 1}, {n: 2}}}
	before := fmt.Sprint(c.used, c.alts)
	d := c.clone()
	// Label 2 is crashed once: only the term without it may use it.
	u := f.use(&d, 2, nil)
	if len(u) != 1 || fmt.Sprint(u[0].used, u[0].alts) != "[0 1 2 3] []" {
		t.Errorf("use of 2: %v, want one with [0 1 2 3] and no factors", u)
	}
	// Label 1 twice: every term may use it, the factors are shared.
	u = f.use(&d, 1, nil)
	if len(u) != 1 || fmt.Sprint(u[0].used, u[0].alts) != "[0 1] [[[1 2] [1 3] [2 3]]]" {
		t.Errorf("use of 1: %v", u)
	}
	u[0].used[0] = 9
	e := d.clone()
	cs := []fconf{d, e, {used: []uint32{0, 3, 3}}}
	cs = (&frontier{pool: f.pool}).mergeFew(cs)
	if len(cs) != 1 || fmt.Sprint(cs[0].used, cs[0].alts) != "[0] [[[1 2] [1 3] [2 3] [3 3]]]" {
		t.Errorf("merged: %v", cs)
	}
	if after := fmt.Sprint(c.used, c.alts); after != before {
		t.Errorf("c went from %s to %s", before, after)
	}
	if after := fmt.Sprint(d.used, d.alts); after != before {
		t.Errorf("its clone went from %s to %s", before, after)
	}
}

// longCrashedHistory is a generated register or compare-and-set register
// history of 40 to 80 operations over two or three values, 2–4 clients,
// some with a fault, in which about one in eight writes and
// compare-and-sets crashes (its return dropped): many crashed operations
// of the same few labels, counted in the frontier's pool, used,
// normalized, merged into sets and split again over a long history.
func longCrashedHistory(rng *rand.Rand, obj h.Object) *h.History {
	for {
		cfg := gen.Config{Object: obj, Ops: 40 + rng.IntN(41), Concurrency: 2 + rng.IntN(3), Seed: rng.Int64(),
			Mutate: rng.IntN(2), Values: 2 + rng.IntN(2)}
		hist, err := gen.History(cfg)
		if err != nil {
			continue
		}
		for i := range hist.Ops {
			o := &hist.Ops[i]
			if !o.Pending() && o.Label.Method != h.Read && rng.IntN(8) == 0 {
				o.Return = -1
				o.Label.Pending, o.Label.Ret = true, h.Void
			}
		}
		compact(hist)
		return hist
	}
}

// The frontier on long histories with many crashed operations of few
// labels against Porcupine: the same verdict, every ok exact, every
// violation at the first prefix Porcupine rejects. Its pool bookkeeping
// (counts, normalize, the sets of merged configurations, the search's
// transitions of crashed operations) made unsound would report a
// violation on a linearizable history, or one return early.
func TestFrontierLongCrashedAgainstPorcupine(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 11))
	n := scale(120)
	var tl frontierTally
	crashed := 0
	for i := 0; i < n; i++ {
		obj := registerObjects[i%2] // register, compare-and-set register
		hist := longCrashedHistory(rng, obj)
		for _, o := range hist.Ops {
			if o.Pending() {
				crashed++
			}
		}
		tl.agree(t, fmt.Sprintf("history %d (%v)", i, obj), hist, 0)
	}
	tl.bothWays(t)
	t.Logf("%d histories: %d violations, %d linearizable; %d crashed operations", n, tl.viol, tl.ok, crashed)
}
