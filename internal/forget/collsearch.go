// Package forget holds the searches that decide, without SAT, a segment of
// operations that -r forgets behind a summary; internal/engine trusts one
// only where a test checks it against the kernel by SAT.
package forget

import (
	"math/bits"

	h "github.com/satmon/satmon/internal/history"
)

// A summary of a queue or stack (internal/engine/summary.go) is made at a quiescent point
// where the collection is empty, and its only question is whether the
// complete segment is linearizable: the one state it may leave is the
// empty collection. Grounding the kernel and building a SAT solver for
// that costs far more than the segment, which is usually a handful of
// operations (a remove ⇒ empty kept back by an overlapping add, and the
// match that add belongs to). So the segment is first searched for a
// linearization by the sequential specification: depth first over
// (operations linearized, contents), memoized. A linearization found is a
// proof that the segment is linearizable, which is what SAT would answer
// (the kernel is exact on complete histories, docs/theories.md), so the
// summary is the same. Where the search finds none, or gives up, SAT
// decides as before, so a violation is still reported only on SAT's word.
// The search's answer is trusted only when it finds a linearization, which
// it checks against real time and the specification as it goes; one that
// wrongly found one could hide a violation, never invent one.
// TestCollSearchAgreesWithSAT (internal/engine) compares the two on
// random segments.
//
// The memo is a set of 64-bit hashes of the search states: a collision
// prunes a state that was not visited, which can only make the search miss
// a linearization and fall back to SAT. Everything is kept from summary to
// summary, so that a summary allocates nothing once the buffers have grown.

// collBudget bounds the search states one search visits; past it the
// summary falls back to SAT.
const collBudget = 1 << 14

// collMaxOps bounds the segments searched: the operations linearized are a
// bit mask in one word.
const collMaxOps = 64

// collSeenSlots is the room the memo is made with: the usual search (a
// handful of operations) visits a few dozen states.
const collSeenSlots = 128

// CollSearch searches complete queue and stack segments for a
// linearization. The zero CollSearch is ready; one is reused from segment
// to segment, so that a search allocates nothing once its buffers grew.
type CollSearch struct {
	stack bool // a stack: removes take the newest element (else the oldest)
	ops   []*h.Op
	// val[i] numbers the value of ops[i] (its argument for an add, its
	// result for a remove ⇒ v; -1 for a remove ⇒ empty), so that the
	// contents are small integers and equal values share a number.
	val   []int
	vals  []h.Value
	order []int // ops by call: indices into ops
	// buf[head:tail] are the contents, oldest first.
	buf        []int
	head, tail int
	seen       stateSet
	gaveUp     bool
}

// Linearizable reports whether the complete queue or stack segment seg
// has a linearization; false means none was found (or the search gave up:
// GaveUp), not that none exists.
func (s *CollSearch) Linearizable(seg *h.History) bool {
	n := len(seg.Ops)
	if n > collMaxOps || seg.Object != h.Queue && seg.Object != h.Stack {
		return false
	}
	s.stack = seg.Object == h.Stack
	if s.ops == nil {
		// At once the room of the largest segment searched, so that no
		// later segment, however long, grows them.
		s.ops, s.val = make([]*h.Op, 0, collMaxOps), make([]int, 0, collMaxOps)
		s.vals, s.order = make([]h.Value, 0, collMaxOps), make([]int, 0, collMaxOps)
		s.buf = make([]int, collMaxOps)
	}
	s.ops, s.val, s.vals, s.order = s.ops[:0], s.val[:0], s.vals[:0], s.order[:0]
	for i := range seg.Ops {
		o := &seg.Ops[i]
		if o.Pending() {
			return false
		}
		var v h.Value
		switch {
		case o.Label.Method == h.Add:
			v = o.Label.Arg
		case o.Label.Method == h.Rem && o.Label.Ret != h.Empty:
			v = o.Label.Ret
		case o.Label.Method == h.Rem:
			s.ops, s.val = append(s.ops, o), append(s.val, -1)
			continue
		default:
			return false
		}
		id := -1
		for j, x := range s.vals {
			if x == v {
				id = j
				break
			}
		}
		if id < 0 {
			id = len(s.vals)
			s.vals = append(s.vals, v)
		}
		s.ops, s.val = append(s.ops, o), append(s.val, id)
	}
	// Candidates are tried in call order; the segment usually is in call
	// order already, and is small.
	for i := range n {
		s.order = append(s.order, i)
		for j := len(s.order) - 1; j > 0 && s.ops[s.order[j]].Call < s.ops[s.order[j-1]].Call; j-- {
			s.order[j], s.order[j-1] = s.order[j-1], s.order[j]
		}
	}
	if cap(s.buf) < n {
		s.buf = make([]int, n)
	}
	s.buf = s.buf[:n]
	s.head, s.tail = 0, 0
	s.seen.reset()
	s.gaveUp = false
	return s.visit(0, n)
}

// visit extends the linearization whose operations are mask (left of them
// not yet linearized) from the contents buf[head:tail]; it restores them
// before returning.
// GaveUp reports whether the last search spent its budget before it
// found a linearization.
func (s *CollSearch) GaveUp() bool { return s.gaveUp }

func (s *CollSearch) visit(mask uint64, left int) bool {
	if left == 0 {
		return true
	}
	key := s.hash(mask)
	if s.seen.has(key) {
		return false
	}
	if s.seen.n >= collBudget {
		s.gaveUp = true
		return false
	}
	s.seen.add(key)
	// An operation may go next iff it was called before every operation
	// not yet linearized returned.
	minRet := -1
	for i, o := range s.ops {
		if mask&(1<<i) == 0 && (minRet < 0 || o.Return < minRet) {
			minRet = o.Return
		}
	}
	for _, i := range s.order {
		o := s.ops[i]
		if o.Call > minRet {
			break
		}
		if mask&(1<<i) != 0 {
			continue
		}
		next := mask | 1<<i
		v := s.val[i]
		switch {
		case o.Label.Method == h.Add:
			s.buf[s.tail] = v
			s.tail++
			ok := s.visit(next, left-1)
			s.tail--
			if ok {
				return true
			}
		case v < 0: // remove ⇒ empty
			if s.head == s.tail && s.visit(next, left-1) {
				return true
			}
		case s.head == s.tail:
		case s.stack:
			if s.buf[s.tail-1] != v {
				continue
			}
			s.tail--
			ok := s.visit(next, left-1)
			s.buf[s.tail] = v
			s.tail++
			if ok {
				return true
			}
		default:
			if s.buf[s.head] != v {
				continue
			}
			s.head++
			ok := s.visit(next, left-1)
			s.head--
			if ok {
				return true
			}
		}
		if s.gaveUp {
			return false
		}
	}
	return false
}

// hash is an FNV-1a hash of the search state: mask and the contents.
func (s *CollSearch) hash(mask uint64) uint64 {
	const prime = 1099511628211
	x := uint64(14695981039346656037)
	x = (x ^ mask) * prime
	for _, v := range s.buf[s.head:s.tail] {
		x = (x ^ uint64(v+1)) * prime
	}
	return x
}

// stateSet is the search's memo, a set of state hashes: open addressing
// with linear probing in slots, a power of two at least twice the
// entries. A slot holds a key of this search if its epoch is the
// set's, so that reset empties the set without touching the slots. A
// Go map cleared between searches allocated again each time a search
// went past the room the map had kept; this one grows only when a search
// needs more room than any before.
type stateSet struct {
	slots []stateSlot
	n     int    // keys of this search
	epoch uint32 // the search's; slots of other epochs are empty
}

type stateSlot struct {
	key   uint64
	epoch uint32
}

// reset empties the set for a new search.
func (t *stateSet) reset() {
	t.n = 0
	t.epoch++
	if t.epoch == 0 { // wrapped: a slot's old epoch could match again
		clear(t.slots)
		t.epoch = 1
	}
	if t.slots == nil {
		t.slots = make([]stateSlot, collSeenSlots)
	}
}

// slot is where key's probe sequence starts (Fibonacci hashing: the
// key's high bits, mixed).
func (t *stateSet) slot(key uint64) int {
	return int((key * 0x9e3779b97f4a7c15) >> (64 - bits.TrailingZeros(uint(len(t.slots)))))
}

// has reports whether key is in the set.
func (t *stateSet) has(key uint64) bool {
	mask := len(t.slots) - 1
	for i := t.slot(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.epoch != t.epoch {
			return false
		}
		if s.key == key {
			return true
		}
	}
}

// add puts key, not in the set, in it.
func (t *stateSet) add(key uint64) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	i := t.slot(key)
	for t.slots[i].epoch == t.epoch {
		i = (i + 1) & mask
	}
	t.slots[i] = stateSlot{key: key, epoch: t.epoch}
	t.n++
}

// grow doubles the slots, moving this search's keys.
func (t *stateSet) grow() {
	old := t.slots
	t.slots = make([]stateSlot, 2*len(old))
	t.n = 0
	for _, s := range old {
		if s.epoch == t.epoch {
			t.add(s.key)
		}
	}
}
