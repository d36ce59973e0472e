package valtab

import (
	"math/rand"
	"strconv"
	"testing"

	h "github.com/satmon/satmon/internal/history"
)

// TestInterner interns and releases random values against a count kept
// aside: a held value keeps its ID, an ID names its value, fixed IDs
// never move, and freed IDs are reused (the number of IDs stays the most
// values held at once).
func TestInterner(t *testing.T) {
	in := NewValues()
	for i, v := range Fixed {
		if id, ok := in.Lookup(v); !ok || id != ID(i) || in.Value(id) != v {
			t.Fatalf("fixed %q: ID %d, %v", v, id, ok)
		}
	}
	rng := rand.New(rand.NewSource(1))
	refs := map[h.Value]int{}
	ids := map[h.Value]ID{}
	var held []h.Value // one entry per reference
	most := 0
	for step := 0; step < 100000; step++ {
		if len(held) > 0 && rng.Intn(2) == 0 {
			i := rng.Intn(len(held))
			v := held[i]
			held[i] = held[len(held)-1]
			held = held[:len(held)-1]
			in.Release(ids[v])
			if refs[v]--; refs[v] == 0 {
				fixed := ids[v] < ID(len(Fixed))
				delete(refs, v)
				delete(ids, v)
				if _, ok := in.Lookup(v); ok != fixed {
					t.Fatalf("step %d: %q held %v after its last release", step, v, ok)
				}
			}
		} else {
			v := h.Value(strconv.Itoa(rng.Intn(200)))
			if rng.Intn(10) == 0 {
				v = Fixed[rng.Intn(len(Fixed))]
			}
			id := in.Intern(v)
			if old, ok := ids[v]; ok && old != id {
				t.Fatalf("step %d: %q moved from ID %d to %d", step, v, old, id)
			}
			if in.Value(id) != v {
				t.Fatalf("step %d: ID %d names %q, not %q", step, id, in.Value(id), v)
			}
			ids[v] = id
			refs[v]++
			held = append(held, v)
		}
		nonFixed := 0
		for v := range refs {
			if id := ids[v]; id >= ID(len(Fixed)) {
				nonFixed++
			}
		}
		most = max(most, nonFixed)
		if in.Held() != len(Fixed)+nonFixed {
			t.Fatalf("step %d: %d held, want %d", step, in.Held(), len(Fixed)+nonFixed)
		}
	}
	if in.Cap() > len(Fixed)+most {
		t.Fatalf("%d IDs made, at most %d values held at once", in.Cap(), len(Fixed)+most)
	}
}
