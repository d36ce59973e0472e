package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The term operations on hand-made cases: reduce (antichain, factor,
// fold), use's filter, covers' matching, merge's product.
func TestFrontierTermsByHand(t *testing.T) {
	t.Parallel()
	for _, x := range []struct {
		used []uint32
		ts   [][]uint32
		want string
	}{
		{nil, [][]uint32{{1, 2}, {1}, {3}}, "[] [[1] [3]]"},          // {1 2} contains {1}
		{[]uint32{0}, [][]uint32{{1, 2}, {1, 3}}, "[0 1] [[2] [3]]"}, // 1 in both: factored
		{nil, [][]uint32{{1, 2}, {1, 2}}, "[1 2] []"},                // one term: folded
		{nil, [][]uint32{{4}, {}, {1}}, "[] []"},                     // the empty term contains none
		{nil, [][]uint32{{2, 2}, {2, 3}}, "[2] [[2] [3]]"},           // multisets
	} {
		ts := slices.Clone(x.ts)
		u, r := reduceTerms(x.used, ts)
		if got := fmt.Sprint(u, r); got != x.want {
			t.Errorf("reduce %v %v: %s, want %s", x.used, x.ts, got, x.want)
		}
	}
	// Labels 0 and 1 crashed once each; c used one of them to the same
	// effect. Using 0 leaves only the configuration that used 1 before;
	// then 1 is used up in every one.
	f := &frontier{pool: []poolLabel{{n: 1}, {n: 1}}}
	c := fconf{alts: [][][]uint32{{{0}, {1}}}}
	u := f.use(&c, 0, nil)
	if len(u) != 1 || fmt.Sprint(u[0].used, u[0].alts) != "[0 1] []" {
		t.Fatalf("use of 0: %v, want one with [0 1]", u)
	}
	if got := f.use(&u[0], 1, nil); len(got) != 0 {
		t.Errorf("use of 1 after 0: %v, want none (each crashed once)", got)
	}
	// Two factors hold label 2, crashed twice: only the pairs of terms
	// with at most one 2 may use it.
	f = &frontier{pool: []poolLabel{{n: 1}, {n: 1}, {n: 2}, {n: 1}}}
	c = fconf{alts: [][][]uint32{{{0}, {2}}, {{1}, {2}}}}
	got := map[string]bool{}
	for _, e := range f.use(&c, 2, nil) {
		for _, x := range f.expand(&e) {
			got[fmt.Sprint(x.used)] = true
		}
	}
	if fmt.Sprint(got) != "map[[0 1 2]:true [0 2 2]:true [1 2 2]:true]" {
		t.Errorf("use of 2 with two factors holding it: %v", got)
	}
	// covers: a = (0|1) covers b = (0|1)(3), not b = (0|3) (b's 3
	// alone holds neither 0 nor 1), and a = (0|1)(2|3) covers b = 0 1 2
	// by its used labels, not b = 0 2 (one label for two factors).
	for _, x := range []struct {
		a, b fconf
		want bool
	}{
		{fconf{alts: [][][]uint32{{{0}, {1}}}}, fconf{used: []uint32{3}, alts: [][][]uint32{{{0}, {1}}}}, true},
		{fconf{alts: [][][]uint32{{{0}, {1}}}}, fconf{alts: [][][]uint32{{{0}, {3}}}}, false},
		{fconf{alts: [][][]uint32{{{0}, {1}}, {{2}, {3}}}}, fconf{used: []uint32{0, 1, 2}}, true},
		{fconf{alts: [][][]uint32{{{0}, {1}}, {{2}, {3}}}}, fconf{used: []uint32{0, 2}}, true},
		{fconf{alts: [][][]uint32{{{0}, {1}}, {{0}, {3}}}}, fconf{used: []uint32{0}}, false},
		{fconf{used: []uint32{0}}, fconf{alts: [][][]uint32{{{0}, {1}}}}, false},
	} {
		f := &frontier{}
		if got := f.usedCovers(x.a.used, x.a.alts, &x.b); got != x.want {
			t.Errorf("(%v %v) covers (%v %v): %v, want %v", x.a.used, x.a.alts, x.b.used, x.b.alts, got, x.want)
		}
	}
	// merge keeps a product: (a|b) c and (a|b) d make (a|b)(c|d).
	cs := []fconf{
		{used: []uint32{2}, alts: [][][]uint32{{{0}, {1}}}},
		{used: []uint32{3}, alts: [][][]uint32{{{0}, {1}}}},
	}
	cs = (&frontier{pool: make([]poolLabel, 4)}).mergeFew(cs)
	if len(cs) != 1 || fmt.Sprint(cs[0].used, cs[0].alts) != "[] [[[0] [1]] [[2] [3]]]" {
		t.Errorf("merged: %v", cs)
	}
}

// randFconf draws a configuration over labels 0–4 with up to three
// factors, each reduced as the frontier keeps them.
func randFconf(rng *rand.Rand) fconf {
	var c fconf
	for range rng.IntN(3) {
		c.used = append(c.used, uint32(rng.IntN(5)))
	}
	slices.Sort(c.used)
	for range rng.IntN(4) {
		var ts [][]uint32
		for range 2 + rng.IntN(2) {
			var t []uint32
			for range 1 + rng.IntN(2) {
				t = append(t, uint32(rng.IntN(5)))
			}
			slices.Sort(t)
			ts = append(ts, t)
		}
		u, x := reduceTerms(c.used, ts)
		c.used = u
		if len(x) > 0 {
			c.alts = append(c.alts, x)
		}
	}
	return c
}

// reducedErr says how c's factors are not as reduceTerms makes them (of
// two or more terms, in termOrder, none containing another, no label in
// all), "" when they are: covers' and mayCover's tests on used alone
// need it.
func reducedErr(c *fconf) string {
	for _, x := range c.alts {
		if len(x) < 2 {
			return fmt.Sprintf("factor %v of fewer than two terms", x)
		}
		if !slices.IsSortedFunc(x, termOrder) {
			return fmt.Sprintf("factor %v out of order", x)
		}
		common := slices.Clone(x[0])
		for k, t := range x {
			common = intersect(common, t)
			for k2, t2 := range x {
				if k != k2 && subset(t, t2) {
					return fmt.Sprintf("factor %v: %v contains %v", x, t2, t)
				}
			}
		}
		if len(common) > 0 {
			return fmt.Sprintf("factor %v: %v in all", x, common)
		}
	}
	return ""
}

// multisets is the multisets of crashed operations used that c stands
// for.
func multisets(f *frontier, c *fconf) [][]uint32 {
	var out [][]uint32
	for _, e := range f.expand(c) {
		out = append(out, e.used)
	}
	return out
}

// The term operations against what the configurations stand for
// (expand), on random small ones: use adds the label to exactly those
// with one left (up to multisets that contain another: covered), avail
// is the least left over them, a cover found is one (every multiset b
// stands for contains one a stands for), and merge stands for the
// union of the two (up to covered ones); what use and merge make is
// reduced.
func TestFrontierTermsAgainstExpand(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 43))
	n := scale(20000)
	covered := 0
	// within: every multiset of xs contains one of ys.
	within := func(xs, ys [][]uint32) bool {
		for _, x := range xs {
			if !anySubset(ys, x) {
				return false
			}
		}
		return true
	}
	for i := 0; i < n; i++ {
		f := &frontier{}
		for range 5 {
			f.pool = append(f.pool, poolLabel{n: 1 + rng.IntN(3)})
		}
		c := randFconf(rng)
		li := rng.IntN(5)
		all := multisets(f, &c)
		least := 1 << 30
		for _, s := range all {
			least = min(least, f.pool[li].n-count(s, uint32(li)))
		}
		if got := f.avail(&c, li); got != least {
			t.Fatalf("%d: avail(%v %v, %d) %d, want %d", i, c.used, c.alts, li, got, least)
		}
		var want [][]uint32
		for _, s := range all {
			if count(s, uint32(li)) < f.pool[li].n {
				want = append(want, union(s, []uint32{uint32(li)}))
			}
		}
		var got [][]uint32
		for _, e := range f.use(&c, li, nil) {
			if why := reducedErr(&e); why != "" {
				t.Fatalf("%d: use(%v %v, %d): %s", i, c.used, c.alts, li, why)
			}
			got = append(got, multisets(f, &e)...)
		}
		for _, g := range got {
			if !slices.ContainsFunc(want, func(w []uint32) bool { return slices.Equal(w, g) }) {
				t.Fatalf("%d: use(%v %v, %d) stands for %v, which is not one with %d left (pool %v)", i, c.used, c.alts, li, g, li, f.pool)
			}
		}
		if !within(want, got) {
			t.Fatalf("%d: use(%v %v, %d) stands for %v, short of %v", i, c.used, c.alts, li, got, want)
		}
		d := randFconf(rng)
		if f.usedCovers(c.used, c.alts, &d) {
			covered++
			if !within(multisets(f, &d), all) {
				t.Fatalf("%d: (%v %v) said to cover (%v %v)", i, c.used, c.alts, d.used, d.alts)
			}
		}
		if m, merged := mergePair(&c, &d); merged {
			if why := reducedErr(&m); why != "" {
				t.Fatalf("%d: merge of (%v %v) and (%v %v): %s", i, c.used, c.alts, d.used, d.alts, why)
			}
			both := append(slices.Clone(all), multisets(f, &d)...)
			ms := multisets(f, &m)
			if !within(both, ms) || !within(ms, both) {
				t.Fatalf("%d: merge of (%v %v) and (%v %v): (%v %v)", i, c.used, c.alts, d.used, d.alts, m.used, m.alts)
			}
			for _, s := range ms {
				if !slices.ContainsFunc(both, func(w []uint32) bool { return slices.Equal(w, s) }) {
					t.Fatalf("%d: merge of (%v %v) and (%v %v) stands for %v, neither's", i, c.used, c.alts, d.used, d.alts, s)
				}
			}
		}
	}
	if covered < n/100 {
		t.Errorf("only %d covers found in %d pairs", covered, n)
	}
}

// expand is every configuration c stands for, its factors resolved: what
// the tests check the factors' operations against.
func (f *frontier) expand(c *fconf) []fconf {
	out := []fconf{c.clone()}
	out[0].alts = nil
	for _, x := range c.alts {
		var next []fconf
		for _, o := range out {
			for _, t := range x {
				o2 := o.clone()
				o2.used = union(o.used, t)
				next = append(next, o2)
			}
		}
		out = next
	}
	return out
}
