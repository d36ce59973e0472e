package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testutil"
)

// The search's costs that keep the same configurations (frontenter.go,
// frontwcache.go, frontborrow.go) are checked against what they stand
// for, on the frontier's own configurations at every step of generated
// logs of the three registers with crashed operations: enter against the
// slot-by-slot enterRef, wanted (cached) against wantedNow, and, after
// each return, that no configuration kept holds its lists in the room
// borrowClone lends, or shares them with another.

// keysReplay replays generated logs of a register (cas 0) or a
// compare-and-set register and calls look with the frontier and a random
// source after every step.
func keysReplay(t *testing.T, cas float64, look func(f *frontier, rng *rand.Rand)) {
	t.Helper()
	for seed := range int64(testutil.Scale(4)) {
		hist := jepsenHistory(t, gen.JepsenConfig{Ops: 200, Clients: 6, Values: 4, Reads: 0.3, CAS: cas, Info: 0.05, Seed: seed})
		m, err := NewContext(context.Background(), hist.Object, hist.Param, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		if _, err := m.replayThen(hist, func() {
			if f := m.front; f != nil && !f.top && len(f.confs) > 0 {
				look(f, rng)
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
}

var keysObjects = []float64{0, 0.4} // compare-and-sets' share

// enterRef is enter as it looked at every slot, without f.em.
func (f *frontier) enterRef(c *fconf, st uint32, l *h.Label) {
	c.st = st
	s := f.states[st]
	overwrites := l.Method == h.Write
	for p := range f.slots[:f.hi] {
		sl := &f.slots[p]
		if !sl.inUse {
			continue
		}
		switch sl.l.Method {
		case h.Write:
			if overwrites && c.taken&(1<<p) == 0 {
				c.hide |= 1 << p
			}
		case h.Read:
			if s.has && (!sl.known || sl.target == st) {
				f.addSeen(c, p, st)
			}
		case h.CAS:
			if c.taken&(1<<p) == 0 && s.has && s.val != sl.l.Old && !(sl.known && sl.ok) {
				c.other |= 1 << p
			}
		}
	}
}

func sameConf(a, b *fconf) bool {
	return a.st == b.st && a.taken == b.taken && a.other == b.other && a.hide == b.hide && a.seenK == b.seenK &&
		slices.Equal(a.seen, b.seen) && slices.Equal(a.used, b.used)
}

// enter from f.em records what enterRef does, for every configuration,
// every state and a write's and a compare-and-set's label.
func TestFrontierEnterMasks(t *testing.T) {
	t.Parallel()
	labels := []h.Label{{Method: h.Write, Arg: "1"}, {Method: h.CAS, Old: "0", Arg: "1"}}
	checked, changed := 0, 0
	for _, obj := range keysObjects {
		keysReplay(t, obj, func(f *frontier, rng *rand.Rand) {
			f.enterPrep()
			// The configurations kept, changed as prune's test changes
			// them, and with open operations taken at random: one
			// taken is not marked hidden, nor other.
			cs := pruneVariants(f, rng)
			for i := range cs {
				if open := openMask(f); open != 0 {
					v := cs[i].clone()
					v.taken |= open & rng.Uint64()
					v.hide &^= v.taken
					cs = append(cs, v)
				}
			}
			for i := range cs {
				for st := range uint32(len(f.states)) {
					l := &labels[rng.IntN(len(labels))]
					a, b := cs[i].clone(), cs[i].clone()
					f.enter(&a, st, l)
					f.enterRef(&b, st, l)
					if !sameConf(&a, &b) {
						t.Fatalf("cas %v: enter %d by %v of %+v: %+v, slot by slot %+v", obj, st, *l, cs[i], a, b)
					}
					checked++
					if !sameConf(&a, &cs[i]) {
						changed++
					}
				}
			}
		})
	}
	t.Logf("%d enters compared, %d of them changed the configuration", checked, changed)
	if changed == 0 {
		t.Fatal("no enter changed a configuration: the test compared nothing")
	}
}

// wantedResult is what wanted leaves for the search: all, the states
// marked, and the compare-and-sets known to fail that retro may use.
type wantedResult struct {
	all    bool
	marked []uint32
	wb     uint64
}

func (f *frontier) wantedResult(all bool) wantedResult {
	r := wantedResult{all: all, wb: f.wb}
	for st := range uint32(len(f.states)) {
		if f.wanted1(st) {
			r.marked = append(r.marked, st)
		}
	}
	if !slices.Equal(r.marked, slices.Sorted(slices.Values(f.wlist))) {
		panic("wlist is not the states marked")
	}
	return r
}

// wanted, cached for the configurations of one return that agree on
// wkey, leaves what wantedNow does, in whatever order the configurations
// come, the same ones again included; and configurations that differ
// outside wkey (writes taken, hidden, unknown reads' seen) share a
// result.
func TestFrontierWantedCache(t *testing.T) {
	t.Parallel()
	calls, hits := 0, 0
	for _, obj := range keysObjects {
		keysReplay(t, obj, func(f *frontier, rng *rand.Rand) {
			f.enterPrep()
			f.wc.reset()
			f.retSlot = -1
			if open := openMask(f); open != 0 && rng.IntN(2) == 0 {
				f.retSlot = bitIndex(pickBit(open, rng))
			}
			cs := pruneVariants(f, rng)
			for range 3 * len(cs) {
				c := &cs[rng.IntN(len(cs))]
				n := len(f.wc.ents)
				got := f.wantedResult(f.wanted(c))
				if len(f.wc.ents) == n {
					hits++
				}
				want := f.wantedResult(f.wantedNow(c))
				f.wc.cur = -1 // wantedNow's marks replaced the cache's
				calls++
				if got.all != want.all || !got.all && (!slices.Equal(got.marked, want.marked) || got.wb != want.wb) {
					t.Fatalf("cas %v: wanted of %+v: cached %+v, computed %+v", obj, *c, got, want)
				}
			}
		})
	}
	t.Logf("%d calls, %d answered from the cache", calls, hits)
	if hits == 0 || hits == calls {
		t.Fatalf("%d of %d calls from the cache: the test did not exercise both ways", hits, calls)
	}
}

func bitIndex(b uint64) int {
	for p := range 64 {
		if b == 1<<p {
			return p
		}
	}
	return -1
}

// backing is the end of the array that s's elements live in (nil for
// no room): two slices with the same end share their array.
func backing[T any](s []T) *T {
	if cap(s) == 0 {
		return nil
	}
	return &s[:cap(s)][cap(s)-1]
}

// After each step, every configuration kept holds lists of its own: none
// in the room borrowClone lends (the next return's search writes over
// it), none shared with another configuration (seen and used are changed
// in place).
func TestFrontierBorrowedOwned(t *testing.T) {
	t.Parallel()
	withLists := 0
	for _, obj := range keysObjects {
		keysReplay(t, obj, func(f *frontier, _ *rand.Rand) {
			lent := map[any]bool{}
			if p := backing(f.bseen); p != nil {
				lent[p] = true
			}
			if p := backing(f.bused); p != nil {
				lent[p] = true
			}
			owner := map[any]int{}
			for i := range f.confs {
				c := &f.confs[i]
				for _, p := range []any{backing(c.seen), backing(c.used)} {
					switch p := p.(type) {
					case *uint64:
						if p == nil {
							continue
						}
					case *uint32:
						if p == nil {
							continue
						}
					}
					withLists++
					if lent[p] {
						t.Fatalf("cas %v: configuration %d (%+v) holds a list in the search's room", obj, i, *c)
					}
					if j, ok := owner[p]; ok {
						t.Fatalf("cas %v: configurations %d and %d share a list: %+v, %+v", obj, j, i, f.confs[j], *c)
					}
					owner[p] = i
				}
			}
		})
	}
	if withLists == 0 {
		t.Fatal("no configuration had a list: the test looked at nothing")
	}
}

// casFrom(st) is poolCAS of st's value, as the pool grows.
func TestFrontierCasFrom(t *testing.T) {
	t.Parallel()
	nonEmpty := 0
	keysReplay(t, 0.4, func(f *frontier, _ *rand.Rand) {
		for st := range uint32(len(f.states)) {
			s := f.states[st]
			if !s.has {
				continue
			}
			got, want := f.casFrom(st), f.poolCAS[s.val]
			if !slices.Equal(got, want) {
				t.Fatalf("state %v: casFrom %v, poolCAS %v", s, got, want)
			}
			if len(got) > 0 {
				nonEmpty++
			}
		}
	})
	if nonEmpty == 0 {
		t.Fatal("no crashed compare-and-set: the test compared nothing")
	}
}

// mergeSorted (merge's for many configurations) merges as mergeFew
// (pairs compared) does: the same groups, each in order of index. The
// configurations are the frontier's, with copies that used one crashed
// operation more or one fewer (so that groups merge), shuffled.
func TestFrontierMergeSorted(t *testing.T) {
	t.Parallel()
	merged := 0
	keysReplay(t, 0.4, func(f *frontier, rng *rand.Rand) {
		if len(f.pool) == 0 {
			return
		}
		var cs []fconf
		for _, c := range pruneVariants(f, rng) {
			cs = append(cs, c)
			for range 2 {
				v := c.clone()
				li := uint32(rng.IntN(len(f.pool)))
				i, _ := slices.BinarySearch(v.used, li)
				v.used = slices.Insert(v.used, i, li)
				cs = append(cs, v)
			}
		}
		rng.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
		a, b := cloneAll(cs), cloneAll(cs)
		g := &frontier{pool: f.pool}
		a = g.mergeSorted(a)
		b = g.mergeFew(b)
		if len(a) != len(b) {
			t.Fatalf("mergeSorted left %d of %d, mergeFew %d", len(a), len(cs), len(b))
		}
		for i := range a {
			if !sameConf(&a[i], &b[i]) || !slices.EqualFunc(a[i].alts, b[i].alts, func(x, y [][]uint32) bool {
				return slices.EqualFunc(x, y, slices.Equal)
			}) {
				t.Fatalf("configuration %d: mergeSorted %+v, mergeFew %+v", i, a[i], b[i])
			}
		}
		merged += len(cs) - len(a)
	})
	if merged == 0 {
		t.Fatal("nothing merged: the test compared nothing")
	}
}

func cloneAll(cs []fconf) []fconf {
	out := make([]fconf, len(cs))
	for i := range cs {
		out[i] = cs[i].clone()
	}
	return out
}
