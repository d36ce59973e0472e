package valtab

import (
	"math/rand/v2"
	"strconv"
	"testing"

	h "github.com/satmon/satmon/internal/history"
)

// TestTableAgreesWithMap runs random insertions, look-ups and deletions
// (by key and hash, and by index) on a Table and on a Go map side by
// side. Keys come from a small range, so that deletions and
// re-insertions meet clusters and backward shifts wrap around; "" is a
// key too. Backward-shift deletion must never lose a key nor find a
// deleted one, across growth.
func TestTableAgreesWithMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tab Table[*int]
	ref := map[h.Value]*int{}
	for i := 0; i < 300000; i++ {
		k := h.Value(strconv.Itoa(rng.IntN(300)))
		if rng.IntN(50) == 0 {
			k = ""
		}
		switch rng.IntN(4) {
		case 0:
			s := tab.Put(k)
			if s.Key != k || s.Hash() != Hash(k) || s.Val != ref[k] {
				t.Fatalf("step %d: Put(%q) gives key %q, value %p; map has %p", i, k, s.Key, s.Val, ref[k])
			}
			if s.Val == nil {
				s.Val = new(int)
				ref[k] = s.Val
			}
		case 1:
			if got := tab.Get(k); got != ref[k] {
				t.Fatalf("step %d: Get(%q) = %p, map has %p", i, k, got, ref[k])
			}
		case 2:
			// Deleting an absent key changes nothing.
			tab.Delete(k, Hash(k))
			delete(ref, k)
		case 3:
			j := tab.Find(k)
			if (j >= 0) != (ref[k] != nil) {
				t.Fatalf("step %d: Find(%q) = %d, map has %p", i, k, j, ref[k])
			}
			if j >= 0 {
				if s := tab.At(j); s.Key != k || s.Val != ref[k] {
					t.Fatalf("step %d: At(Find(%q)) holds %q", i, k, s.Key)
				}
				tab.DeleteAt(j)
				delete(ref, k)
			}
		}
		if tab.Len() != len(ref) {
			t.Fatalf("step %d: table holds %d keys, map %d", i, tab.Len(), len(ref))
		}
		if i%10000 == 0 {
			seen := 0
			tab.All(func(s *Slot[*int]) {
				seen++
				if ref[s.Key] != s.Val {
					t.Fatalf("step %d: All gives %q -> %p, map has %p", i, s.Key, s.Val, ref[s.Key])
				}
			})
			if seen != len(ref) {
				t.Fatalf("step %d: All visits %d keys, map holds %d", i, seen, len(ref))
			}
		}
	}
	tab.Reset()
	if tab.Len() != 0 || tab.Get("1") != nil || tab.Find("") >= 0 {
		t.Fatal("Reset left keys")
	}
}

// A slice value: the table's zero value is a nil slice, and a key stays
// present while its slice is empty (fullness is the hash's, not V's).
func TestTableSliceValues(t *testing.T) {
	var tab Table[[]int]
	s := tab.Put("a")
	if s.Val != nil || tab.Len() != 1 {
		t.Fatalf("Put made %v, len %d", s.Val, tab.Len())
	}
	s.Val = append(s.Val, 1, 2)
	if got := tab.Get("a"); len(got) != 2 {
		t.Fatalf("Get = %v", got)
	}
	tab.At(tab.Find("a")).Val = nil
	if tab.Find("a") < 0 {
		t.Fatal("an empty value deleted its key")
	}
}
