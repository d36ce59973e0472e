package encode

import (
	"math/bits"

	h "github.com/satmon/satmon/internal/history"
)

// argTable maps an argument to the live operations that have it, in
// call order (opTable.byArg). Every call adds to it and every forgotten
// operation leaves it; with the values of a queue or a stack all
// distinct, each is an insertion or a deletion, and a Go map would hash
// the string at every look-up of the call and of the forgetting. This is
// a hash table with open addressing, linear probing and backward-shift
// deletion, as varTable: each operation hashes its argument once on the
// way in and once on the way out. Nothing iterates over it, so its layout decides
// nothing but speed.
type argTable struct {
	slots []argSlot
	n     int
	shift uint // 64 - log2(len(slots))
}

// argSlot is an argument and its operations; a slot with no operation is
// empty (an argument whose last operation leaves is deleted).
type argSlot struct {
	ops  []*Op
	key  h.Value
	hash uint64
}

// hashValue is FNV-1a over the value's bytes: arguments are short, and the
// table keeps the top bits of the product with the golden ratio (home).
func hashValue(v h.Value) uint64 {
	x := uint64(14695981039346656037)
	for i := 0; i < len(v); i++ {
		x = (x ^ uint64(v[i])) * 1099511628211
	}
	return x
}

func (t *argTable) home(x uint64) int {
	return int((x * 0x9E3779B97F4A7C15) >> t.shift)
}

// get returns the operations of argument v (nil if there is none); the
// slice is the table's own.
func (t *argTable) get(v h.Value) []*Op {
	if t.n == 0 {
		return nil
	}
	x := hashValue(v)
	mask := len(t.slots) - 1
	for i := t.home(x); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if len(s.ops) == 0 {
			return nil
		}
		if s.hash == x && s.key == v {
			return s.ops
		}
	}
}

// at returns the slot of argument v, made with an empty list if v has
// none; the pointer is valid until the next at or del. The caller must
// put an operation in a slot it made (an empty list marks a free slot).
func (t *argTable) at(v h.Value) *argSlot {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	x := hashValue(v)
	mask := len(t.slots) - 1
	for i := t.home(x); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if len(s.ops) == 0 {
			s.key, s.hash = v, x
			t.n++
			return s
		}
		if s.hash == x && s.key == v {
			return s
		}
	}
}

// find returns the index of argument v's slot, or -1.
func (t *argTable) find(v h.Value) int {
	if t.n == 0 {
		return -1
	}
	x := hashValue(v)
	mask := len(t.slots) - 1
	for i := t.home(x); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if len(s.ops) == 0 {
			return -1
		}
		if s.hash == x && s.key == v {
			return i
		}
	}
}

// del empties slot i, whose list the caller has taken, and shifts back
// the entries after it that would no longer be found.
func (t *argTable) del(i int) {
	mask := len(t.slots) - 1
	t.n--
	for j := (i + 1) & mask; len(t.slots[j].ops) != 0; j = (j + 1) & mask {
		hj := t.home(t.slots[j].hash)
		// The entry at j may move to i unless its home lies cyclically
		// in (i, j].
		if i <= j && (hj <= i || hj > j) || i > j && hj <= i && hj > j {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = argSlot{}
}

func (t *argTable) grow() {
	size := 64
	if len(t.slots) > 0 {
		size = 2 * len(t.slots)
	}
	old := t.slots
	t.slots = make([]argSlot, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := size - 1
	for _, s := range old {
		if len(s.ops) == 0 {
			continue
		}
		i := t.home(s.hash)
		for len(t.slots[i].ops) != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
