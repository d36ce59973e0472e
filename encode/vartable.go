package encode

import (
	"math/bits"
	"unsafe"

	"github.com/satmon/satmon/internal/z"
)

// varTable maps the key of a b or match variable (varPair.key) to
// the variable, as its positive literal. It is a hash table with open
// addressing, linear probing and backward-shift deletion (no tombstones,
// so churn never degrades it): these lookups are SATURATE's most frequent
// operation, and the generic map spent most of its time hashing and
// matching control bytes.
//
// A slot holds its key and its value together, so that a hit reads one
// slot with one bounds check. An empty table is one shared empty slot
// (init), never written (put grows it first, and del finds nothing in
// it), so that get needs no test for emptiness: every index is masked
// by len(slots)-1.
type varTable struct {
	slots []varSlot
	n     int
	shift uint // 64 - log2(len(slots)) once grown
	mask  uint // len(slots)-1: every index is masked by it
}

// varSlot is a slot of varTable: key is the variable's key+1, 0 when the
// slot is empty.
type varSlot struct {
	key uint64
	val Lit
}

// noSlots is the empty table's one slot, shared by every empty table.
var noSlots [1]varSlot

// init makes t an empty table; the zero varTable must be initialised
// before use.
func (t *varTable) init() {
	*t = varTable{slots: noSlots[:]}
}

func (t *varTable) home(k uint64) uint {
	// shift is below 64: masking it spares the code Go adds for a shift
	// by 64 or more. In the empty table shift is 0 and the mask of its
	// one slot makes any home 0.
	return uint((k * 0x9E3779B97F4A7C15) >> (t.shift & 63))
}

// slotSize is the size of a slot, by which an index becomes an offset.
const slotSize = uint(unsafe.Sizeof(varSlot{}))

// slot is &s[i] for s = t.slots and i masked by t.mask (len(s)-1, a
// power of two less one, so that every masked index is in range), found
// without a bounds check: the compiler cannot prove that a masked index
// is in range, and the check cost a compare and a branch at every probe
// of the encoder's most frequent look-up. get writes it out, so that its
// cost stays within what its callers inline.
func slot(s []varSlot, i uint) *varSlot {
	return (*varSlot)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s)), i*slotSize))
}

func (t *varTable) get(k uint64) (Lit, bool) {
	s, mask := t.slots, t.mask
	for i := t.home(k) & mask; ; i = (i + 1) & mask {
		sl := (*varSlot)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s)), i*slotSize)) // slot(s, i)
		switch sl.key {
		case k + 1:
			return sl.val, true
		case 0:
			return z.LitNull, false
		}
	}
}

func (t *varTable) put(k uint64, v Lit) {
	// Filled to a quarter at most: keys are deleted about as often as
	// they are looked up for a new variable, and every probe past the
	// home slot costs get, put and del alike (del also scans the rest of
	// the run to shift it back); the table stays small (a slot for each
	// four variables of the window's pairs).
	if 4*(t.n+1) > len(t.slots) {
		t.grow()
	}
	s, mask := t.slots, t.mask
	for i := t.home(k) & mask; ; i = (i + 1) & mask {
		sl := slot(s, i)
		switch sl.key {
		case k + 1:
			sl.val = v
			return
		case 0:
			*sl = varSlot{k + 1, v}
			t.n++
			return
		}
	}
}

func (t *varTable) del(k uint64) {
	s, mask := t.slots, t.mask
	i := t.home(k) & mask
	for ; slot(s, i).key != k+1; i = (i + 1) & mask {
		if slot(s, i).key == 0 {
			return
		}
	}
	t.n--
	// Shift back the entries after i that would no longer be found.
	for j := (i + 1) & mask; slot(s, j).key != 0; j = (j + 1) & mask {
		sj := slot(s, j)
		h := t.home(sj.key-1) & mask
		// The entry at j may move to i unless its home lies cyclically
		// in (i, j].
		if i <= j && (h <= i || h > j) || i > j && h <= i && h > j {
			*slot(s, i) = *sj
			i = j
		}
	}
	slot(s, i).key = 0
}

func (t *varTable) grow() {
	size := 64
	if len(t.slots) > 1 {
		size = 2 * len(t.slots)
	}
	old := t.slots
	t.slots = make([]varSlot, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.mask = uint(size - 1)
	t.n = 0
	for _, sl := range old {
		if sl.key != 0 {
			t.put(sl.key-1, sl.val)
		}
	}
}
