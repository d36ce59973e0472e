package openset

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/testutil"
)

// plainKey is Key's definition, byte by byte: the last KeyedLen bytes
// below the length.
func plainKey(id string) uint64 {
	var k uint64
	for i := max(len(id)-KeyedLen, 0); i < len(id); i++ {
		k = k<<8 | uint64(id[i])
	}
	return k | uint64(min(len(id), 255))<<56
}

// Key reads an id's bytes a few at once, in overlapping reads chosen by
// its length: it must give what the plain definition gives, for ids of
// every length around the reads' sizes and of every byte, as a string
// and as bytes.
func TestKeyReads(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 15))
	for n := 0; n <= 20; n++ {
		for range 200 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			want := plainKey(string(b))
			if got := Key(string(b)); got != want {
				t.Fatalf("Key(%q) = %#x, want %#x", b, got, want)
			}
			if got := Key(b); got != want {
				t.Fatalf("Key([]byte %q) = %#x, want %#x", b, got, want)
			}
		}
	}
	for _, id := range []string{strings.Repeat("z", 255), strings.Repeat("z", 256), strings.Repeat("z", 300)} {
		if got, want := Key(id), plainKey(id); got != want {
			t.Errorf("Key of %d bytes = %#x, want %#x", len(id), got, want)
		}
	}
}

// Ids that share their last bytes, their length or both: Find and Lookup
// tell every id apart, scanned and hashed.
func TestOpenKeys(t *testing.T) {
	t.Parallel()
	ids := []string{"1", "01", "10", "1234567", "2234567", "x1234567", "y1234567", "xy1234567",
		"op-00000001", "op-10000001", "op-00000011", "\x00", "\x00\x00", "\x01", "a\x00b", "ab"}
	for i := range 2 * MaxScan {
		ids = append(ids, "many-"+strings.Repeat("0", i%3)+string(rune('a'+i)))
	}
	near := []string{"", "11", "001", "123456", "12345678", "z1234567", "op-00000002", "\x02", "b"}
	for _, n := range []int{8, 16, MaxScan + 1, len(ids)} {
		s := Make(func(i int) string { return ids[i] })
		for i, id := range ids[:n] {
			s.Add(Key(id), i)
		}
		if s.hashed != (n > MaxScan) {
			t.Errorf("%d open: hashed %v", n, s.hashed)
		}
		for _, id := range append(slices.Clone(ids), near...) {
			i := slices.Index(ids[:n], id)
			if v, ok := s.Find(id); ok != (i >= 0) || ok && v != i {
				t.Errorf("%d open: Find(%q) = %d, %v, want %d", n, id, v, ok, i)
			}
			if v, ok := Lookup(&s, []byte(id), Key([]byte(id))); ok != (i >= 0) || ok && v != i {
				t.Errorf("%d open: Lookup(%q) = %d, %v, want %d", n, id, v, ok, i)
			}
			if i >= 0 && !s.MayHold(Key(id)) {
				t.Errorf("%d open: MayHold(%q) false", n, id)
			}
		}
		// Deleting every other id (by its value) leaves the others, in
		// their order by DeleteStable, and the counts of those open.
		var left []int
		for i := range n {
			switch {
			case i%2 == 1:
				left = append(left, i)
			case i%4 == 0:
				s.DeleteStable(i)
			default:
				s.Delete(i)
			}
		}
		s.Delete(-1)
		s.DeleteStable(-1)
		if got := slices.Sorted(slices.Values(s.Values())); !slices.Equal(got, left) || s.Len() != len(left) {
			t.Errorf("%d open, after deletions: values %v, want %v", n, s.Values(), left)
		}
		var count [buckets]int32
		for _, i := range left {
			count[bucket(Key(ids[i]))]++
			if v, ok := s.Find(ids[i]); !ok || v != i || !s.MayHold(Key(ids[i])) {
				t.Errorf("%d open, after deletions: %q not found", n, ids[i])
			}
		}
		if count != s.count {
			t.Errorf("%d open, after deletions: count %v, want %v", n, s.count, count)
		}
		if s.hashed != (n > MaxScan && len(left) > MaxScan/2) {
			t.Errorf("%d open, %d after deletions: hashed %v", n, len(left), s.hashed)
		}
	}
}

// Random adds and deletes against a map and a list, across the scanned
// and hashed regimes, with ids whose keys often agree: DeleteStable keeps
// the list's order, Delete moves the last value into the hole.
func TestSetRandom(t *testing.T) {
	t.Parallel()
	for _, stable := range []bool{true, false} {
		t.Run(map[bool]string{true: "stable", false: "swap"}[stable], func(t *testing.T) {
			t.Parallel()
			setRandom(t, stable)
		})
	}
}

func setRandom(t *testing.T, stable bool) {
	rng := rand.New(rand.NewPCG(7, 8))
	var order []int
	byID := map[string]int{}
	id := func(v int) string {
		if v%3 == 0 {
			return "p" + strings.Repeat("x", v%5) + "-" + string(rune('0'+v%10)) + "suffix"
		}
		return string(rune('a'+v%26)) + string(rune('a'+v/26%26)) + string(rune('a'+v/676%26))
	}
	s := Make(id)
	steps := testutil.Scale(20000)
	for step := range steps {
		limit := 8
		if step/1000%2 == 1 {
			limit = 3 * MaxScan
		}
		if rng.IntN(2) == 0 && len(order) < limit || len(order) == 0 {
			v := step
			if _, dup := byID[id(v)]; dup {
				if _, ok := s.Find(id(v)); !ok {
					t.Fatalf("step %d: open %q not found", step, id(v))
				}
				continue
			}
			s.Add(Key(id(v)), v)
			byID[id(v)] = v
			order = append(order, v)
		} else {
			i := rng.IntN(len(order))
			v := order[i]
			if got, ok := s.Find(id(v)); !ok || got != v {
				t.Fatalf("step %d: Find(%q) = %d, %v, want %d", step, id(v), got, ok, v)
			}
			delete(byID, id(v))
			if stable {
				s.DeleteStable(v)
				order = slices.Delete(order, i, i+1)
			} else {
				s.Delete(v)
				order[i] = order[len(order)-1]
				order = order[:len(order)-1]
			}
			if _, ok := s.Find(id(v)); ok {
				t.Fatalf("step %d: %q found after Delete", step, id(v))
			}
		}
		if !slices.Equal(s.Values(), order) {
			t.Fatalf("step %d: values %v, want %v", step, s.Values(), order)
		}
	}
}
