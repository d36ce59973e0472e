// Package valtab names history values by small integers (Interner), over a
// hash table keyed by values that hashes a key once per look-up and never
// on deletion (Table).
package valtab

import (
	"math/bits"

	h "github.com/satmon/satmon/internal/history"
)

// Table maps values to V. The interner looks a value up, adds it if new,
// and later deletes it; with a Go map each of those hashes the string
// again. Table uses open addressing, linear probing and backward-shift
// deletion: a key's hash is computed once when it is looked up and kept
// in its slot, where the caller can keep it too (Slot.Hash), so that
// deleting hashes nothing.
//
// The order of All is the slots' order, which depends on nothing but the
// keys and the history of the table: runs are reproducible.
//
// The zero Table is empty and ready to use.
type Table[V any] struct {
	slots []Slot[V]
	n     int
	shift uint // 64 - log2(len(slots))
}

// Slot is one entry: a key, its value, and the key's hash. A slot whose
// hash is 0 is free; Hash never returns 0, so no further mark is needed
// and V may be any type.
type Slot[V any] struct {
	Val  V
	Key  h.Value
	hash uint64
}

// Hash returns the hash of the slot's key.
func (s *Slot[V]) Hash() uint64 { return s.hash }

// Hash is FNV-1a over the value's bytes, never 0 (0 marks a free slot).
// Keys are short values; the table keeps the top bits of the product
// with the golden ratio (home), which mixes FNV's weak high bits.
func Hash(v h.Value) uint64 {
	x := uint64(14695981039346656037)
	for i := 0; i < len(v); i++ {
		x = (x ^ uint64(v[i])) * 1099511628211
	}
	if x == 0 {
		x = 1
	}
	return x
}

// Len returns the number of keys.
func (t *Table[V]) Len() int { return t.n }

func (t *Table[V]) home(x uint64) int {
	// shift is below 64 once the table has slots (every caller has
	// some): masking it spares the code Go adds for a shift by 64 or
	// more.
	return int((x * 0x9E3779B97F4A7C15) >> (t.shift & 63))
}

// Find returns the index of v's slot, or -1 if v is absent.
func (t *Table[V]) Find(v h.Value) int {
	if t.n == 0 {
		return -1
	}
	x := Hash(v)
	mask := len(t.slots) - 1
	for i := t.home(x); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.hash == 0 {
			return -1
		}
		if s.hash == x && s.Key == v {
			return i
		}
	}
}

// At returns slot i, an index Find returned; the pointer is valid until
// the next Put or Delete.
func (t *Table[V]) At(i int) *Slot[V] { return &t.slots[i] }

// Get returns v's value, or the zero V if v is absent. Its loop is
// Find's, written again: a generic method is compiled once per shape and
// inlined only while small, and Get is on the per-step path.
func (t *Table[V]) Get(v h.Value) (val V) {
	if t.n == 0 {
		return val
	}
	x := Hash(v)
	mask := len(t.slots) - 1
	for i := t.home(x); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.hash == 0 {
			return val
		}
		if s.hash == x && s.Key == v {
			return s.Val
		}
	}
}

// Put returns v's slot, made with the zero V if v was absent; the
// pointer is valid until the next Put or Delete.
func (t *Table[V]) Put(v h.Value) *Slot[V] {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	x := Hash(v)
	mask := len(t.slots) - 1
	for i := t.home(x); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.hash == 0 {
			s.Key, s.hash = v, x
			t.n++
			return s
		}
		if s.hash == x && s.Key == v {
			return s
		}
	}
}

// Delete deletes v, whose hash is x (Slot.Hash), if it is present.
func (t *Table[V]) Delete(v h.Value, x uint64) {
	if t.n == 0 {
		return
	}
	mask := len(t.slots) - 1
	for i := t.home(x); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.hash == 0 {
			return
		}
		if s.hash == x && s.Key == v {
			t.DeleteAt(i)
			return
		}
	}
}

// DeleteAt deletes the key of slot i, an index Find returned, and shifts
// back the entries after it that would no longer be found.
func (t *Table[V]) DeleteAt(i int) {
	mask := len(t.slots) - 1
	t.n--
	for j := (i + 1) & mask; t.slots[j].hash != 0; j = (j + 1) & mask {
		hj := t.home(t.slots[j].hash)
		// The entry at j may move to i unless its home lies cyclically
		// in (i, j].
		if i <= j && (hj <= i || hj > j) || i > j && hj <= i && hj > j {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = Slot[V]{}
}

// All calls f for every slot in use, in the slots' order; f may change
// the slot's value but not the table.
func (t *Table[V]) All(f func(*Slot[V])) {
	if t.n == 0 {
		return
	}
	for i := range t.slots {
		if s := &t.slots[i]; s.hash != 0 {
			f(s)
		}
	}
}

// Reset empties the table, keeping its storage.
func (t *Table[V]) Reset() {
	if t.n > 0 {
		clear(t.slots)
		t.n = 0
	}
}

func (t *Table[V]) grow() {
	size := 64
	if len(t.slots) > 0 {
		size = 2 * len(t.slots)
	}
	old := t.slots
	t.slots = make([]Slot[V], size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := size - 1
	for _, s := range old {
		if s.hash == 0 {
			continue
		}
		i := t.home(s.hash)
		for t.slots[i].hash != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
