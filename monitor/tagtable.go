package monitor

import (
	"math/bits"

	h "github.com/satmon/satmon/internal/history"
)

// tagTable maps a tag to the live operations that carry it (remover.byKey).
// Every matched return looks a tag up and adds it if new, and every match
// forgotten looks it up again and deletes it: with a Go map each of those
// hashes the string again. This is a hash table with open addressing,
// linear probing and backward-shift deletion, as encode's argTable: a
// tag's hash is computed once when it is looked up and kept in its slot
// and in its struct, so that deleting it hashes nothing. Its order of
// iteration (all) is the slots' order, which depends on nothing but the
// tags and the history of the table.
type tagTable struct {
	slots []tagSlot
	n     int
	shift uint // 64 - log2(len(slots))
}

// tagSlot is a tag and its struct; a slot with no struct is empty.
type tagSlot struct {
	t    *tagged
	key  h.Value
	hash uint64
}

// hashTag is FNV-1a over the tag's bytes: tags are short values, and
// the table keeps the top bits of the product with the golden ratio
// (home).
func hashTag(v h.Value) uint64 {
	x := uint64(14695981039346656037)
	for i := 0; i < len(v); i++ {
		x = (x ^ uint64(v[i])) * 1099511628211
	}
	return x
}

func (t *tagTable) home(x uint64) int {
	return int((x * 0x9E3779B97F4A7C15) >> t.shift)
}

// get returns the struct of tag v, or nil.
func (t *tagTable) get(v h.Value) *tagged {
	if t.n == 0 {
		return nil
	}
	x := hashTag(v)
	mask := len(t.slots) - 1
	for i := t.home(x); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.t == nil {
			return nil
		}
		if s.hash == x && s.key == v {
			return s.t
		}
	}
}

// at returns the slot of tag v, with a nil struct if v has none, which
// the caller must then fill; the pointer is valid until the next at or
// del.
func (t *tagTable) at(v h.Value) *tagSlot {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	x := hashTag(v)
	mask := len(t.slots) - 1
	for i := t.home(x); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.t == nil {
			s.key, s.hash = v, x
			return s
		}
		if s.hash == x && s.key == v {
			return s
		}
	}
}

// filled counts the struct just put in a slot at returned empty.
func (t *tagTable) filled() { t.n++ }

// del deletes tag v, whose hash is x, if it is there, and shifts back the
// entries after it that would no longer be found.
func (t *tagTable) del(v h.Value, x uint64) {
	if t.n == 0 {
		return
	}
	mask := len(t.slots) - 1
	i := t.home(x)
	for ; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.t == nil {
			return
		}
		if s.hash == x && s.key == v {
			break
		}
	}
	t.n--
	for j := (i + 1) & mask; t.slots[j].t != nil; j = (j + 1) & mask {
		hj := t.home(t.slots[j].hash)
		// The entry at j may move to i unless its home lies cyclically
		// in (i, j].
		if i <= j && (hj <= i || hj > j) || i > j && hj <= i && hj > j {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = tagSlot{}
}

// all calls f for every tag and its struct; f must not change the table.
func (t *tagTable) all(f func(h.Value, *tagged)) {
	if t.n == 0 {
		return
	}
	for i := range t.slots {
		if s := &t.slots[i]; s.t != nil {
			f(s.key, s.t)
		}
	}
}

// reset empties the table, keeping its storage.
func (t *tagTable) reset() {
	if t.n > 0 {
		clear(t.slots)
		t.n = 0
	}
}

func (t *tagTable) grow() {
	size := 64
	if len(t.slots) > 0 {
		size = 2 * len(t.slots)
	}
	old := t.slots
	t.slots = make([]tagSlot, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := size - 1
	for _, s := range old {
		if s.t == nil {
			continue
		}
		i := t.home(s.hash)
		for t.slots[i].t != nil {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
