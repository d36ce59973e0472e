package monitor

import (
	"math/rand"
	"strconv"
	"testing"

	h "github.com/satmon/satmon/internal/history"
)

// TestTagTableAgreesWithMap runs random insertions, look-ups and
// deletions on the remover's tag table and on a Go map side by side:
// backward-shift deletion must never lose a tag nor find a deleted one,
// across growth and wrap-around of the probe sequences.
func TestTagTableAgreesWithMap(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var tab tagTable
	ref := map[h.Value]*tagged{}
	for i := 0; i < 200000; i++ {
		// Few distinct keys, so that deletions and re-insertions meet
		// clusters; "" is a key too.
		k := h.Value(strconv.Itoa(rng.Intn(300)))
		if rng.Intn(50) == 0 {
			k = ""
		}
		switch rng.Intn(3) {
		case 0:
			s := tab.at(k)
			if (s.t != nil) != (ref[k] != nil) || s.t != nil && s.t != ref[k] {
				t.Fatalf("step %d: at(%q) found %p, map has %p", i, k, s.t, ref[k])
			}
			if s.t == nil {
				nt := &tagged{hash: s.hash}
				s.t = nt
				tab.filled()
				ref[k] = nt
			}
		case 1:
			if got := tab.get(k); got != ref[k] {
				t.Fatalf("step %d: get(%q) = %p, map has %p", i, k, got, ref[k])
			}
		case 2:
			if r := ref[k]; r != nil {
				tab.del(k, r.hash)
				delete(ref, k)
			} else {
				tab.del(k, hashTag(k)) // absent: nothing changes
			}
		}
		if tab.n != len(ref) {
			t.Fatalf("step %d: table holds %d tags, map %d", i, tab.n, len(ref))
		}
		if i%10000 == 0 {
			seen := 0
			tab.all(func(k h.Value, tg *tagged) {
				seen++
				if ref[k] != tg {
					t.Fatalf("step %d: all gives %q -> %p, map has %p", i, k, tg, ref[k])
				}
			})
			if seen != len(ref) {
				t.Fatalf("step %d: all visits %d tags, map holds %d", i, seen, len(ref))
			}
		}
	}
	tab.reset()
	if tab.n != 0 || tab.get("1") != nil {
		t.Fatal("reset left tags")
	}
}
