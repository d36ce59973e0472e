package engine

import (
	"slices"
	"strings"

	h "github.com/satmon/satmon/internal/history"
)

// The string register's kernel is exact only when no appended token
// occurs twice in one get's result (docs/theories.md, "Ambiguous
// parsings"). Where it is not, SAT on the kernel cannot confirm a
// violation that the frontier found, although the frontier, whose
// transitions are the sequential specification (regStep), is right. The
// confirmation then rests on a second, independent decision of the same
// specification: a search over (operations linearized, string) of the
// prefix, pending operations free to take effect or not.

// ambiguousParse reports whether some append's argument occurs twice in
// some returned get's result of ops (or is empty): the histories on which
// the string register's kernel may admit a violation.
func ambiguousParse(ops []h.Op) bool {
	var args []string
	for i := range ops {
		if l := &ops[i].Label; l.Method == h.Append && !slices.Contains(args, string(l.Arg)) {
			args = append(args, string(l.Arg))
		}
	}
	for i := range ops {
		l := &ops[i].Label
		if l.Method != h.Read || l.Pending {
			continue
		}
		for _, a := range args {
			if a == "" {
				return true
			}
			if j := strings.Index(string(l.Ret), a); j >= 0 && strings.Contains(string(l.Ret)[j+1:], a) {
				return true
			}
		}
	}
	return false
}

// searchLinearizable decides hist, a register history whose pending
// operations may take effect or not (a pending read is dropped), by
// search of the sequential specification from the state init. decided
// is false when the search gave up (more than searchBudget pairs).
func searchLinearizable(hist *h.History, init regState) (member, decided bool) {
	var ops []*h.Op
	for i := range hist.Ops {
		o := &hist.Ops[i]
		if o.Pending() && o.Label.Method == h.Read {
			continue
		}
		ops = append(ops, o)
	}
	slices.SortFunc(ops, func(a, b *h.Op) int { return a.Call - b.Call })
	s := &linSearch{obj: hist.Object, ops: ops, seen: map[string]bool{}}
	for _, o := range ops {
		if !o.Pending() {
			s.complete++
		}
	}
	found := s.visit(make([]uint64, (len(ops)+63)/64), 0, init)
	if s.gaveUp {
		return false, false
	}
	return found, true
}

type linSearch struct {
	obj      h.Object
	ops      []*h.Op // by call
	complete int     // how many returned
	seen     map[string]bool
	key      []byte
	gaveUp   bool
}

// visit reports whether the linearization of the operations in mask
// (done of them returned), leaving st, extends to one of every returned
// operation.
func (s *linSearch) visit(mask []uint64, done int, st regState) bool {
	if done == s.complete {
		return true
	}
	s.key = searchKey(s.key[:0], mask, st)
	if s.seen[string(s.key)] {
		return false
	}
	s.seen[string(s.key)] = true
	if len(s.seen) > searchBudget {
		s.gaveUp = true
		return false
	}
	// An operation may go next iff it was called before every returned
	// operation not yet linearized returned.
	minRet := -1
	for i, o := range s.ops {
		if mask[i/64]&(1<<(i%64)) == 0 && !o.Pending() && (minRet < 0 || o.Return < minRet) {
			minRet = o.Return
		}
	}
	for i, o := range s.ops {
		if minRet >= 0 && o.Call > minRet {
			break
		}
		if mask[i/64]&(1<<(i%64)) != 0 {
			continue
		}
		l := o.Label
		if o.Pending() && l.Method == h.CAS {
			l.Ret = h.OK // a pending compare-and-set that fails changes nothing
		}
		next, legal := regStep(s.obj, st, &l)
		if !legal {
			continue
		}
		m := slices.Clone(mask)
		m[i/64] |= 1 << (i % 64)
		d := done
		if !o.Pending() {
			d++
		}
		if s.visit(m, d, next) || s.gaveUp {
			return !s.gaveUp
		}
	}
	return false
}
