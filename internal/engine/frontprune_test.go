package engine

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/testutil"
)

// pruneParts keeps exactly the configurations that the comparison of
// every pair keeps (pruneGroup's argument). The configurations come from
// the frontier itself, at every return of generated compare-and-set and
// register logs with crashed operations, with copies changed so that one
// covers another across the parts: a taken write hidden instead, a known
// read's or a compare-and-set's observation forgotten, a crashed
// operation used or not. Each state's group goes through pruneParts and
// prunePairs, and their marks must agree.
func TestFrontierPruneParts(t *testing.T) {
	t.Parallel()
	var groups, split, dropped, cross int
	for seed := range int64(testutil.Scale(6)) {
		for _, cas := range []float64{0, 0.4} {
			hist := jepsenHistory(t, gen.JepsenConfig{Ops: 300, Clients: 6, Values: 4, Reads: 0.3, CAS: cas, Info: 0.05, Seed: seed})
			m, err := NewContext(context.Background(), hist.Object, hist.Param, Options{})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			_, err = m.replayThen(hist, func() {
				f := m.front
				if f == nil || f.top || len(f.confs) == 0 {
					return
				}
				cs := pruneVariants(f, rng)
				g, s, d, x := comparePrunes(t, f, cs)
				groups, split, dropped, cross = groups+g, split+s, dropped+d, cross+x
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d groups, %d of them in two parts or more, %d configurations dropped, %d of them by one of another part", groups, split, dropped, cross)
	if split == 0 || dropped == 0 || cross == 0 {
		t.Fatalf("the test did not exercise the parts: %d groups split, %d dropped, %d across parts", split, dropped, cross)
	}
}

// pruneVariants is f's configurations and copies of them, each changed
// one way that may make it cover, or be covered by, its original.
func pruneVariants(f *frontier, rng *rand.Rand) []fconf {
	var cs []fconf
	writes := f.writeMask()
	for i := range f.confs {
		c := &f.confs[i]
		cs = append(cs, c.clone())
		if w := c.taken & writes; w != 0 {
			// A taken write hidden instead: covers c.
			v := c.clone()
			p := pickBit(w, rng)
			v.taken &^= p
			v.hide |= p
			cs = append(cs, v)
		}
		if c.seenK != 0 {
			v := c.clone()
			v.seenK &^= pickBit(c.seenK, rng)
			cs = append(cs, v)
		}
		if c.other != 0 {
			v := c.clone()
			v.other &^= pickBit(c.other, rng)
			cs = append(cs, v)
		}
		if len(c.used) > 0 {
			v := c.clone()
			v.used = slices.Delete(v.used, 0, 1)
			cs = append(cs, v)
		}
		if nt := c.taken &^ writes; nt != 0 {
			// A compare-and-set not taken: another part.
			v := c.clone()
			v.taken &^= pickBit(nt, rng)
			cs = append(cs, v)
		}
	}
	if nw := openMask(f) &^ writes; nw != 0 && rng.IntN(4) == 0 && len(cs) > 0 {
		// A slot hidden that is not an open write, which no return
		// makes: pruneParts must then compare the group whole.
		v := cs[rng.IntN(len(cs))].clone()
		p := pickBit(nw, rng)
		v.hide |= p
		v.taken &^= p
		cs = append(cs, v)
	}
	rng.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	return cs
}

// openMask is the open operations, by slot.
func openMask(f *frontier) uint64 {
	var m uint64
	for p := range f.slots[:f.hi] {
		if f.slots[p].inUse {
			m |= 1 << p
		}
	}
	return m
}

// pickBit is one of m's bits, at random.
func pickBit(m uint64, rng *rand.Rand) uint64 {
	k := rng.IntN(bits.OnesCount64(m))
	for range k {
		m &= m - 1
	}
	return m & -m
}

// comparePrunes runs pruneParts and prunePairs on each state's group of
// cs and fails t where they differ. It returns how many groups it
// compared, how many of them pruneParts split in two parts or more, how
// many configurations were dropped, and how many of those only a
// configuration of another part covers.
func comparePrunes(t *testing.T, f *frontier, cs []fconf) (groups, split, dropped, cross int) {
	t.Helper()
	writes, fails := f.writeMask(), f.failMask()
	byState := map[uint32][]gent{}
	for i := range cs {
		byState[cs[i].st] = append(byState[cs[i].st], gentOf(&cs[i], i))
	}
	for _, g := range byState {
		if len(g) < 2 {
			continue
		}
		groups++
		want := make([]bool, len(cs))
		got := make([]bool, len(cs))
		for i := range cs {
			want[i], got[i] = true, true
		}
		f.prunePairs(cs, slices.Clone(g), want, writes, fails)
		gp := slices.Clone(g)
		f.pruneParts(cs, gp, got, writes, fails)
		if len(f.parts) > 1 {
			split++
		}
		for _, e := range g {
			if got[e.i] != want[e.i] {
				t.Fatalf("configuration %d (taken %b hide %b seenK %b other %b): pruneParts keeps it %v, every pair %v", e.i, e.taken, e.hide, e.seenK, e.other, got[e.i], want[e.i])
			}
			if want[e.i] {
				continue
			}
			dropped++
			// Covered only across parts? Compare within its own part.
			same := make([]bool, len(cs))
			for i := range same {
				same[i] = true
			}
			var part []gent
			for _, a := range g {
				if a.seenK == e.seenK && a.other == e.other && a.taken&^writes&^fails == e.taken&^writes&^fails {
					part = append(part, a)
				}
			}
			f.prunePairs(cs, part, same, writes, fails)
			if same[e.i] {
				cross++
			}
		}
	}
	return groups, split, dropped, cross
}
