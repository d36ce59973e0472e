// Package openset is the set of open operation ids, each with a value,
// that a log reader and a monitor's window keep to match a return to its
// call and to refuse a second call of an open id.
//
// A log keeps few operations open at once, so an id is found by scanning
// them, which beats hashing it at every call and return; beyond MaxScan
// open ids a map finds them, kept until at most half as many are open.
// The scan compares keys (Key), one integer per operation, and the ids
// only where the keys agree and do not hold the ids whole.
package openset

import "slices"

// MaxScan is the most open ids that are scanned rather than hashed;
// hashing resumes below half of it.
const MaxScan = 16

// KeyedLen is the longest id that Key holds whole.
const KeyedLen = 7

// buckets is the number of buckets of Set.count: many times the ids open
// at once while they are scanned (MaxScan).
const buckets = 64

// bucket is key's bucket in Set.count: its top bits, mixed.
func bucket(key uint64) int {
	return int(key * 0x9e3779b97f4a7c15 >> 58)
}

// Key is id's length (up to 255) in the top byte and its last bytes, up
// to KeyedLen of them, below. Equal ids have equal keys, and ids of at
// most KeyedLen bytes with equal keys are equal: their key holds them
// whole. Ids of one length mostly differ in their last bytes (counters),
// so that longer ones with equal keys are rare.
//
// The bytes are read a few at once: k is the last bytes as a big-endian
// number, and two overlapping reads (the first 4 and the last 4 of 4 to
// 7 bytes, say) put their common bytes at the same place in it.
func Key[T string | []byte](id T) uint64 {
	var k uint64
	switch n := len(id); {
	case n > KeyedLen:
		k = be64(id[n-8:]) & (1<<(8*KeyedLen) - 1)
	case n >= 4:
		k = be32(id)<<(8*(n-4)) | be32(id[n-4:])
	case n >= 2:
		k = be16(id)<<(8*(n-2)) | be16(id[n-2:])
	case n == 1:
		k = uint64(id[0])
	}
	return k | uint64(min(len(id), 255))<<56
}

// be64, be32 and be16 are the first 8, 4 and 2 bytes of s as a
// big-endian number.
func be64[T string | []byte](s T) uint64 {
	_ = s[7]
	return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
		uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
}

func be32[T string | []byte](s T) uint64 {
	_ = s[3]
	return uint64(s[0])<<24 | uint64(s[1])<<16 | uint64(s[2])<<8 | uint64(s[3])
}

func be16[T string | []byte](s T) uint64 {
	_ = s[1]
	return uint64(s[0])<<8 | uint64(s[1])
}

// Set holds the open ids, each with a value of its own (no two open ids
// share one). A set whose ids leave by DeleteStable alone keeps them in
// the order they were added: the window reads the earliest call first.
type Set[V comparable] struct {
	// id is the id whose value is v: the caller holds the ids (in its
	// operations), and the set asks for one only where keys cannot tell
	// ids apart, and to hash them.
	id     func(v V) string
	keys   []uint64 // keys[i] is Key(id(vals[i]))
	vals   []V
	byID   map[string]V // while hashed; kept allocated once made
	hashed bool         // byID holds every open id, and finds them
	// count counts the open ids by bucket of their key: a call whose
	// bucket is empty repeats no open id (MayHold), and most calls are
	// told so without a scan.
	count [buckets]int32
	// found is the index where a scan found an id last: Delete, which
	// mostly follows a look-up of the same id, starts there.
	found int
}

// Make returns an empty set whose values' ids id tells.
func Make[V comparable](id func(v V) string) Set[V] { return Set[V]{id: id} }

// Len is the number of open ids.
func (s *Set[V]) Len() int { return len(s.vals) }

// Values are the open ids' values: in the order they were added while
// only DeleteStable took any out, and in no particular order after a
// Delete. The
// slice is the set's own: valid until the next Add or Delete, and not to
// be written.
func (s *Set[V]) Values() []V { return s.vals }

// MayHold reports whether an open id may have the given key: false when
// none has.
func (s *Set[V]) MayHold(key uint64) bool { return s.count[bucket(key)] != 0 }

// Find returns the value of the open id id, and whether it is open. It is
// Lookup written out for a string: every return finds its call here, and
// the generic call would cost it a frame.
func (s *Set[V]) Find(id string) (V, bool) {
	if s.hashed || len(id) > KeyedLen {
		return s.lookupSlow(id, Key(id))
	}
	key := Key(id)
	for i, k := range s.keys {
		if k == key {
			s.found = i
			return s.vals[i], true
		}
	}
	var zero V
	return zero, false
}

// Lookup is Find given id's key (Key), for an id still in a line's bytes
// too: the comparisons and the map index convert without copying. The
// scan for an id that its key holds whole is written here, small enough
// to be inlined at the reader's every call and return; the rest is
// lookupSlow's.
func Lookup[V comparable, T string | []byte](s *Set[V], id T, key uint64) (V, bool) {
	if s.hashed || len(id) > KeyedLen {
		return s.lookupSlow(string(id), key)
	}
	for i, k := range s.keys {
		if k == key {
			s.found = i
			return s.vals[i], true
		}
	}
	var zero V
	return zero, false
}

// lookupSlow is Lookup when the map finds the ids or the key does not
// hold id whole. id may share a line's bytes: it is only compared and
// used as a map index, and not kept.
func (s *Set[V]) lookupSlow(id string, key uint64) (V, bool) {
	if s.hashed {
		v, ok := s.byID[id]
		return v, ok
	}
	for i, k := range s.keys {
		if k == key && s.id(s.vals[i]) == id {
			s.found = i
			return s.vals[i], true
		}
	}
	var zero V
	return zero, false
}

// Add adds the id whose value is v and whose key is key. The id must not
// be open. The common case, room in both lists and the ids scanned, is
// written small enough to be inlined at every call; the rest is addSlow's.
func (s *Set[V]) Add(key uint64, v V) {
	n := len(s.vals)
	if n >= MaxScan || n == cap(s.vals) || n == cap(s.keys) || s.hashed {
		s.addSlow(key, v)
		return
	}
	s.keys = s.keys[:n+1]
	s.keys[n] = key
	s.vals = s.vals[:n+1]
	s.vals[n] = v
	s.count[bucket(key)]++
}

// addSlow is Add when a list must grow or the ids are (to be) hashed.
func (s *Set[V]) addSlow(key uint64, v V) {
	s.keys = append(s.keys, key)
	s.vals = append(s.vals, v)
	s.count[bucket(key)]++
	if s.hashed || len(s.vals) > MaxScan {
		s.hash(v)
	}
}

// hash enters v's id in byID, and every open id when hashing begins.
func (s *Set[V]) hash(v V) {
	if s.hashed {
		s.byID[s.id(v)] = v
		return
	}
	if s.byID == nil {
		s.byID = make(map[string]V, 2*MaxScan)
	}
	for _, x := range s.vals {
		s.byID[s.id(x)] = x
	}
	s.hashed = true
}

// Delete takes out the open id whose value is v, if any; the last open
// id takes its place, so that Values no longer follow the order of Add.
// For a holder that never reads that order (the reader) it saves moving
// every value after v. Values are looked for rather than ids: one
// comparison, where an id would need its key or its bytes compared.
//
// Mostly a look-up came just before, of this very id, and found names
// it: that case, with the ids scanned, is written small enough to be
// inlined at every return; the rest is deleteSlow's. The value left past
// the end is not cleared: a pointer there keeps its target until a later
// Add overwrites it, and the set never holds more than its most open ids.
func (s *Set[V]) Delete(v V) {
	i, n := s.found, len(s.vals)-1
	if uint(i) > uint(n) || s.vals[i] != v || s.hashed {
		s.deleteSlow(v, false)
		return
	}
	s.count[bucket(s.keys[i])]--
	s.keys[i] = s.keys[n]
	s.vals[i] = s.vals[n]
	s.keys = s.keys[:n]
	s.vals = s.vals[:n]
}

// DeleteStable is Delete keeping the others' order: a holder that only
// deletes this way finds Values in the order of Add (the window reads
// the earliest call first).
func (s *Set[V]) DeleteStable(v V) {
	i, n := s.found, len(s.vals)-1
	if uint(i) > uint(n) || s.vals[i] != v || s.hashed {
		s.deleteSlow(v, true)
		return
	}
	s.count[bucket(s.keys[i])]--
	// Both lists lose their i-th element: few follow it, so the loop
	// beats two calls to move them.
	keys, vals := s.keys[:n+1], s.vals[:n+1]
	for j := i; j < n; j++ {
		keys[j], vals[j] = keys[j+1], vals[j+1]
	}
	s.keys = s.keys[:n]
	s.vals = s.vals[:n]
}

// deleteSlow is Delete (DeleteStable if stable) when found does not name
// v or the ids are hashed.
func (s *Set[V]) deleteSlow(v V, stable bool) {
	i := slices.Index(s.vals, v)
	if i < 0 {
		return
	}
	s.count[bucket(s.keys[i])]--
	n := len(s.vals) - 1
	if stable {
		copy(s.keys[i:], s.keys[i+1:])
		copy(s.vals[i:], s.vals[i+1:])
	} else {
		s.keys[i], s.vals[i] = s.keys[n], s.vals[n]
	}
	var zero V
	s.vals[n] = zero
	s.keys, s.vals = s.keys[:n], s.vals[:n]
	if s.hashed {
		delete(s.byID, s.id(v))
		if n <= MaxScan/2 {
			clear(s.byID)
			s.hashed = false
		}
	}
}
