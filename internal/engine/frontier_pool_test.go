package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
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

// A clone shares its alts with the original (fconf.clone): an append to
// either must not show in the other, whatever room the list has.
func TestFrontierCloneAltsApart(t *testing.T) {
	t.Parallel()
	c := fconf{alts: make([][]uint32, 1, 8)}
	c.alts[0] = []uint32{1, 2}
	a := c.clone()
	a.alts = append(a.alts, []uint32{3, 4})
	b := c.clone()
	b.alts = append(b.alts, []uint32{5, 6})
	c.alts = append(c.alts, []uint32{7, 8})
	for _, x := range []struct {
		name string
		got  [][]uint32
		want []uint32
	}{{"first clone", a.alts, []uint32{3, 4}}, {"second clone", b.alts, []uint32{5, 6}}, {"original", c.alts, []uint32{7, 8}}} {
		if len(x.got) != 2 || !slices.Equal(x.got[0], []uint32{1, 2}) || !slices.Equal(x.got[1], x.want) {
			t.Errorf("%s: alts %v, want [[1 2] %v]", x.name, x.got, x.want)
		}
	}
	// splitOn and merge build on clones: a configuration split on a
	// label of one set, then its parts extended, leaves c as it was.
	c = fconf{used: []uint32{0}, alts: [][]uint32{{1, 2}, {2, 3}}}
	c.alts = slices.Grow(c.alts, 4)
	f := &frontier{pool: []poolLabel{{n: 2}, {n: 2}, {n: 1}, {n: 2}}}
	before := fmt.Sprint(c.used, c.alts)
	parts := f.splitOn(&c, 2)
	seen := map[string]bool{}
	for k := range parts {
		for _, e := range f.expand(&parts[k]) {
			s := fmt.Sprint(e.used)
			if seen[s] {
				t.Errorf("split: %s twice", s)
			}
			seen[s] = true
		}
	}
	if len(seen) != 4 {
		t.Errorf("split into %d choices, want the 4 that c stands for: %v", len(seen), seen)
	}
	for k := range parts {
		e := parts[k].clone()
		e.alts = append(e.alts, []uint32{9, 10})
		parts[k].alts = append(parts[k].alts, []uint32{12, 13})
		if len(e.alts) == len(parts[k].alts) && slices.Equal(e.alts[len(e.alts)-1], parts[k].alts[len(e.alts)-1]) {
			t.Errorf("split part %d and its clone share what was appended: %v", k, e.alts)
		}
	}
	if after := fmt.Sprint(c.used, c.alts); after != before {
		t.Errorf("split and extended, c went from %s to %s", before, after)
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
