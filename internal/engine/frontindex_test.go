package engine

import (
	"cmp"
	"math/rand"
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/testutil"
)

// cover's index (cindex) must find, for every key, every configuration
// recorded under it, across the rebuilds as it grows and across resets:
// one it misses is a configuration cover keeps that another covers (more
// work), and the walk must skip the bucket's other keys (a configuration
// under another key compared as if it were under this one).
func TestFrontierCoverIndexFindsEveryKey(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	var x cindex
	for round := range testutil.Scale(200) {
		n := 1 + rng.Intn(600)
		keys := 1 + rng.Intn(40)
		var allG []kgent
		x = cindex{heads: x.heads} // a reset keeps the room, as cover's does
		indexed := false
		for i := range n {
			k := ckey{st: uint32(rng.Intn(keys)), taken: uint64(rng.Intn(3)), seenK: uint64(rng.Intn(2)) << 40}
			allG = append(allG, kgent{k: k, g: gent{i: i}, next: -1})
			switch {
			case !indexed && len(allG) >= coverScan:
				x.build(allG)
				indexed = true
			case indexed:
				x.add(allG)
			}
		}
		if !indexed {
			x.build(allG)
		}
		want := map[ckey][]int{}
		for i := range allG {
			want[allG[i].k] = append(want[allG[i].k], i)
		}
		for k, is := range want {
			var got []int
			for e := x.first(&k); e >= 0; e = allG[e].next {
				if allG[e].k == k {
					got = append(got, int(e))
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, is) {
				t.Fatalf("round %d (%d entries): key %v: found %v, recorded %v", round, n, k, got, is)
			}
		}
	}
}

// sortByState orders prune's entries as a sort by state, then index,
// does.
func TestFrontierSortByState(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(2))
	f := &frontier{}
	for range testutil.Scale(300) {
		n := rng.Intn(300)
		cs := make([]fconf, n)
		groups := make([]gent, n)
		for i := range cs {
			cs[i].st = uint32(rng.Intn(1 + rng.Intn(50)))
			groups[i] = gent{i: i, taken: rng.Uint64()}
		}
		want := slices.Clone(groups)
		slices.SortFunc(want, func(a, b gent) int {
			return cmp.Or(cmp.Compare(cs[a.i].st, cs[b.i].st), cmp.Compare(a.i, b.i))
		})
		if got := f.sortByState(cs, groups); !slices.Equal(got, want) {
			t.Fatalf("%d entries: sortByState differs from the sort by state and index", n)
		}
	}
}
