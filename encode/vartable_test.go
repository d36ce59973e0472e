package encode

import (
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/z"
)

// varTable against Go's map under random puts, gets and deletes, with
// keys drawn from a small range so that clusters, updates and backward
// shifts all happen.
func TestVarTableMatchesMap(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var tab varTable
	tab.init()
	ref := map[uint64]Lit{}
	for step := 0; step < 200000; step++ {
		k := rng.Uint64N(3000)
		if step%7 == 0 {
			k = k<<62 | rng.Uint64N(1<<40) // large keys too
		}
		switch rng.IntN(3) {
		case 0:
			v := z.Var(rng.IntN(1 << 30)).Lit(rng.IntN(2) == 0)
			tab.put(k, v)
			ref[k] = v
		case 1:
			tab.del(k)
			delete(ref, k)
		}
		got, ok := tab.get(k)
		want, wok := ref[k]
		if ok != wok || got != want {
			t.Fatalf("step %d: get(%d) = %v,%v, want %v,%v", step, k, got, ok, want, wok)
		}
		if tab.n != len(ref) {
			t.Fatalf("step %d: len %d, want %d", step, tab.n, len(ref))
		}
		// Slots are addressed without bounds checks (slot): an index
		// masked by anything but len(slots)-1 could leave the table.
		if tab.mask != uint(len(tab.slots)-1) {
			t.Fatalf("step %d: mask %d for %d slots", step, tab.mask, len(tab.slots))
		}
	}
	for k, v := range ref {
		if got, ok := tab.get(k); !ok || got != v {
			t.Fatalf("final: get(%d) = %v,%v, want %v", k, got, ok, v)
		}
	}
}

// An empty table is the shared slot (init): get and del find nothing in
// it and never write it, and the first put grows it into a table of its
// own.
func TestVarTableEmpty(t *testing.T) {
	t.Parallel()
	var a, b varTable
	a.init()
	b.init()
	for _, k := range []uint64{0, 1, 63, 1 << 62, 3<<62 | 1<<31 | 5} {
		if l, ok := a.get(k); ok || l != z.LitNull {
			t.Fatalf("empty get(%d) = %v,%v", k, l, ok)
		}
		a.del(k)
	}
	a.put(7, z.Var(3).Pos())
	if noSlots != [1]varSlot{} {
		t.Fatalf("the shared empty slot was written: %v", noSlots)
	}
	if _, ok := b.get(7); ok {
		t.Fatal("a put into one empty table shows in another")
	}
	if l, ok := a.get(7); !ok || l != z.Var(3).Pos() {
		t.Fatalf("get(7) = %v,%v after put", l, ok)
	}
	a.del(7)
	if _, ok := a.get(7); ok || a.n != 0 {
		t.Fatal("del(7) left the key")
	}
}

func TestListClasses(t *testing.T) {
	t.Parallel()
	for c := 0; c <= 8192; c++ {
		want := -1
		for k, cc := 0, minListCap; k < listClasses; k, cc = k+1, 2*cc {
			if c == cc {
				want = k
			}
		}
		if got := listClass(c); got != want {
			t.Fatalf("listClass(%d) = %d, want %d", c, got, want)
		}
		want = -1
		for k, cc := 0, minOwnedCap; k < ownedClasses; k, cc = k+1, 2*cc {
			if c == cc {
				want = k
			}
		}
		if got := ownedClass(c); got != want {
			t.Fatalf("ownedClass(%d) = %d, want %d", c, got, want)
		}
	}
}
