package encode

import (
	"math/bits"

	"github.com/satmon/satmon/internal/z"
)

// varTable maps the key of a b or match variable (varPair.key) to
// the variable, as its positive literal. It is a hash table with open
// addressing, linear probing and backward-shift deletion (no tombstones,
// so churn never degrades it): these lookups are SATURATE's most frequent
// operation, and the generic map spent most of its time hashing and
// matching control bytes.
type varTable struct {
	keys  []uint64 // key+1; 0 marks an empty slot
	vals  []Lit
	n     int
	shift uint // 64 - log2(len(keys))
}

func (t *varTable) home(k uint64) int {
	// shift is below 64 (the table has at least 64 slots): masking it
	// spares the code Go adds for a shift by 64 or more.
	return int((k * 0x9E3779B97F4A7C15) >> (t.shift & 63))
}

func (t *varTable) get(k uint64) (Lit, bool) {
	if t.n == 0 {
		return z.LitNull, false
	}
	mask := len(t.keys) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k + 1:
			return t.vals[i], true
		case 0:
			return z.LitNull, false
		}
	}
}

func (t *varTable) put(k uint64, v Lit) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	mask := len(t.keys) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k + 1:
			t.vals[i] = v
			return
		case 0:
			t.keys[i], t.vals[i] = k+1, v
			t.n++
			return
		}
	}
}

func (t *varTable) del(k uint64) {
	if t.n == 0 {
		return
	}
	mask := len(t.keys) - 1
	i := t.home(k)
	for ; t.keys[i] != k+1; i = (i + 1) & mask {
		if t.keys[i] == 0 {
			return
		}
	}
	t.n--
	// Shift back the entries after i that would no longer be found.
	for j := (i + 1) & mask; t.keys[j] != 0; j = (j + 1) & mask {
		h := t.home(t.keys[j] - 1)
		// The entry at j may move to i unless its home lies cyclically
		// in (i, j].
		if i <= j && (h <= i || h > j) || i > j && h <= i && h > j {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
		}
	}
	t.keys[i] = 0
}

func (t *varTable) len() int { return t.n }

func (t *varTable) grow() {
	size := 64
	if len(t.keys) > 0 {
		size = 2 * len(t.keys)
	}
	old, oldVals := t.keys, t.vals
	t.keys, t.vals = make([]uint64, size), make([]Lit, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.n = 0
	for i, k := range old {
		if k != 0 {
			t.put(k-1, oldVals[i])
		}
	}
}
