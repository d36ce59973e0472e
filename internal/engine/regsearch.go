package engine

import (
	"slices"

	h "github.com/satmon/satmon/internal/history"
)

// The states a complete segment of a register may leave, found by search
// instead of SAT. A summary (summary.go) is made at almost every quiescent
// point of a register log, on a segment of a few dozen operations; grounding
// the kernel and building a solver for each cost more than the checking
// it summarizes. The three registers have a sequential state that is one
// value (the register's value; the compare-and-set register's value, nil
// when absent; the string register's string), so a depth-first search over
// (operations linearized, state), memoized, enumerates every state a
// linearization can leave, exactly, in time bounded by the frontier the
// segment's concurrency allows. It is the sequential specification the
// kernels encode (docs/theories.md): where it finds no linearization, the
// SAT solver still decides before a violation is reported (states), so a
// disagreement could only cost a summary, never invent a violation; and
// TestRegisterSearchAgreesWithSAT compares the two on random segments.

// searchBudget bounds the (operations linearized, state) pairs one search
// visits; past it the search gives up and the caller falls back to SAT (the
// register) or skips the summary (the other registers).
const searchBudget = 1 << 17

// regState is a register's sequential state: its value, and whether it
// has one (a register without an initial value has none until a write).
type regState struct {
	val h.Value
	has bool
}

// regStep applies l to st and reports whether l is legal there.
func regStep(obj h.Object, st regState, l *h.Label) (regState, bool) {
	switch l.Method {
	case h.Write:
		return regState{l.Arg, true}, true
	case h.Read:
		return st, st.has && st.val == l.Ret
	case h.CAS:
		if obj != h.CASRegister || !st.has {
			return st, false
		}
		switch l.Ret {
		case h.OK:
			return regState{l.Arg, true}, st.val == l.Old
		case h.Fail:
			return st, st.val != l.Old
		}
	case h.Append:
		if obj == h.StringRegister && st.has {
			return regState{st.val + l.Arg, true}, true
		}
	}
	return st, false
}

// observes reports whether l only observes a register's state: a read, a
// failed cas.
func observes(l *h.Label) bool {
	return l.Method == h.Read || l.Method == h.CAS && l.Ret == h.Fail
}

// searchStates decides the complete register segment seg from any of the
// states starts (none: a register without a value) and returns the states
// its linearizations may leave, sorted: none when seg is not linearizable
// from any of them. ok is false when the search gave up (more than
// searchBudget pairs, or more than maxStates final states when maxStates
// is positive).
func searchStates(seg *h.History, starts []regState, maxStates int) (finals []regState, ok bool) {
	if len(starts) == 0 {
		starts = []regState{{}}
	}
	ops := make([]*h.Op, len(seg.Ops))
	for i := range seg.Ops {
		ops[i] = &seg.Ops[i]
	}
	slices.SortFunc(ops, func(a, b *h.Op) int { return a.Call - b.Call })
	n := len(ops)
	words := (n + 63) / 64
	s := &regSearch{obj: seg.Object, ops: ops, seen: map[string]bool{}, max: maxStates}
	// A summary's writes open the segment: mutually overlapping, and
	// all returned before anything else was called. Any of them may be
	// last, so each of their values is a starting state; searching
	// through their orders instead would visit every subset of them.
	mask := make([]uint64, words)
	if lead := leadingWrites(ops); lead > 1 {
		starts = starts[:0:0]
		for i := range lead {
			mask[i/64] |= 1 << (i % 64)
			if st := (regState{ops[i].Label.Arg, true}); !slices.Contains(starts, st) {
				starts = append(starts, st)
			}
		}
		for _, st := range starts {
			s.visit(mask, lead, st)
		}
	} else {
		for _, st := range starts {
			s.visit(mask, 0, st)
		}
	}
	if s.gaveUp {
		return nil, false
	}
	slices.SortFunc(s.finals, func(a, b regState) int {
		switch {
		case a.has != b.has:
			if a.has {
				return 1
			}
			return -1
		case a.val < b.val:
			return -1
		case a.val > b.val:
			return 1
		}
		return 0
	})
	return s.finals, true
}

type regSearch struct {
	obj    h.Object
	ops    []*h.Op // by call
	seen   map[string]bool
	key    []byte
	finals []regState
	max    int
	gaveUp bool
}

func (s *regSearch) done(mask []uint64, i int) bool { return mask[i/64]&(1<<(i%64)) != 0 }

// visit extends the linearization whose operations are mask (done of
// them) and whose state is st.
func (s *regSearch) visit(mask []uint64, done int, st regState) {
	if s.gaveUp {
		return
	}
	// An observer that is legal now and may go next goes next: moving it
	// earlier to here respects real time (everything that must precede it
	// is in mask) and changes no state, so nothing is lost.
	for {
		moved := false
		minRet := s.minReturn(mask)
		for i, o := range s.ops {
			if o.Call > minRet {
				break
			}
			if s.done(mask, i) || !observes(&o.Label) {
				continue
			}
			if _, legal := regStep(s.obj, st, &o.Label); legal {
				mask = slices.Clone(mask)
				mask[i/64] |= 1 << (i % 64)
				done++
				moved = true
				break
			}
		}
		if !moved {
			break
		}
	}
	if done == len(s.ops) {
		if !slices.Contains(s.finals, st) {
			s.finals = append(s.finals, st)
			if s.max > 0 && len(s.finals) > s.max {
				s.gaveUp = true
			}
		}
		return
	}
	s.key = searchKey(s.key[:0], mask, st)
	if s.seen[string(s.key)] {
		return
	}
	s.seen[string(s.key)] = true
	if len(s.seen) > searchBudget {
		s.gaveUp = true
		return
	}
	minRet := s.minReturn(mask)
	for i, o := range s.ops {
		if o.Call > minRet {
			break
		}
		if s.done(mask, i) {
			continue
		}
		next, legal := regStep(s.obj, st, &o.Label)
		if !legal {
			continue
		}
		m := slices.Clone(mask)
		m[i/64] |= 1 << (i % 64)
		s.visit(m, done+1, next)
		if s.gaveUp {
			return
		}
	}
}

// minReturn is the earliest return among the operations not in mask: an
// operation may be linearized next iff it was called before that (every
// operation that returned before its call is then in mask).
func (s *regSearch) minReturn(mask []uint64) int {
	m := -1
	for i, o := range s.ops {
		if !s.done(mask, i) && (m < 0 || o.Return < m) {
			m = o.Return
		}
	}
	return m
}

// leadingWrites is the length of the longest prefix of ops (by call) made
// of writes that all overlap each other and all returned before the next
// operation was called; 0 when there is none.
func leadingWrites(ops []*h.Op) int {
	n, minRet, maxRet := 0, -1, -1
	for n < len(ops) && ops[n].Label.Method == h.Write && (n == 0 || ops[n].Call < minRet) {
		if minRet < 0 || ops[n].Return < minRet {
			minRet = ops[n].Return
		}
		maxRet = max(maxRet, ops[n].Return)
		n++
	}
	if n < len(ops) && ops[n].Call < maxRet {
		return 0
	}
	return n
}

// searchKey appends to key what a search over (operations linearized,
// state) has visited: mask's bytes, then the state.
func searchKey(key []byte, mask []uint64, st regState) []byte {
	for _, m := range mask {
		for b := 0; b < 64; b += 8 {
			key = append(key, byte(m>>b))
		}
	}
	if st.has {
		key = append(key, 1)
	}
	return append(key, st.val...)
}
