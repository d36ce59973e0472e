package encode

import (
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

// LIMIT(n) is grounded by counting.
//
// The formula (theory.Limit) has n+1 universal variables; grounded tuple
// by tuple it has W^(n+1) instances over a window of W operations, and
// planning the order in which to bind them enumerated (n+1)! orders. Read
// as what it says, LIMIT(n) is, for each acquire x (the formula's xn):
//
//	used(x) ∧ ¬self(x) ⇒ at most n−1 acquires a ≠ x are held at x
//
// where a is held at x when used(a) ∧ b(a,x) and no r with b(r,x)
// releases it (match(a,r)), and self(x) says that some r with b(r,x)
// releases x itself. The witness ∃r distributes over the formula's
// disjunction ⋁i match(xi,r), which is what splits it into a part per
// acquire; the n−1 distinct xi with b(xi,x) are the count (for i < n, the
// tuple's xi are distinct and differ from xn since b is irreflexive).
//
// Equivalently, with held'(a,x) = held(a,x) ∧ ¬self(x): used(x) ⇒ at
// most n−1 acquires are held' at x (if self(x), none is). For n = 1 that
// is the formula's own instance for the pair (a, x), witness for witness.
// The encoding, for each acquire x:
//
//   - for each acquire a that may be held at x, a fresh h(a,x) with the
//     clause h(a,x) ∨ ¬used(a) ∨ ¬b(a,x) ∨ ⋁r w(a,r,x), where w implies
//     b(r,x) ∧ (match(a,r) ∨ match(x,r)) (Plaisted–Greenbaum: h only has
//     to be true when a is held');
//   - Sinz's sequential counter over the h(a,x) with bound n−1, each of
//     its overflow clauses extended by the guard ¬used(x) while x is
//     pending.
//
// That is O(W·n) clauses per acquire instead of W^n. An h(a,x) whose
// clause is already true (a was released before x) is left out: nothing
// can make it true. One whose clause has only false literals besides h
// is true for good: instead of entering the counter it lowers the bound
// by one (Tighten), which is what the counter would derive from it.
//
// Incremental emission follows the plain grounding's: a tuple instance
// is closed when all of its operations have returned (no later operation
// can be a witness: it would need b(r,x)). So when x returns, its counter
// is started over the acquires that have returned, and each acquire that
// returns later and overlapped x is appended to it — the counter grows
// by appending, like the ladder of return values, and no clause is ever
// withdrawn. EmitOpen emits, for every acquire x that is pending or
// overlaps a pending acquire, a fresh counter over all of them under the
// activation literal; with the closed counters this is LIMIT for every
// x, as the plain grounding's closed and open instances are.
//
// Unit propagation: the counter is arc-consistent (k true inputs make the
// others false; k+1 make the guard false or the last one false). For
// capacity 1, and wherever each release can release only one acquire of
// the window (a release that returns its tag, as generated logs do), a
// tuple instance's witness for r is the w(a,r,x) of its one acquire, and
// propagation derives the same facts about b, used, match and ret from
// either grounding. An untagged release that may release two acquires of
// a tuple (capacity ≥ 2) makes the plain instance's witness a disjunction
// over them, from which it concludes b(r,x) without knowing which one r
// releases; the counter cannot, so SATURATE may prove such a violation
// later or not at all (TestLimitCountingAgreesWithPlain). SYMBOLIC and
// ENUMERATE, which decide satisfiability, are not affected.

// limitGround grounds the kernel's LIMIT axiom by counting; an encoder
// has one when its kernel has LIMIT (New). Its counters live with their
// acquires (Op.lim); it reaches the window, the variables and the
// grounder's folding through the encoder it belongs to (e). Return and
// EmitOpen call it for the axiom (returned, open).
type limitGround struct {
	e *Encoder
}

// The witnesses, over env = (r, x, a): r, before x, releases a
// (limitHeld), a or x (limitHeld1), x (limitSelf).
var (
	limitHeld  = theory.And(theory.B(0, 1), theory.Match(2, 0))
	limitHeld1 = theory.And(theory.B(0, 1), theory.Or(theory.Match(2, 0), theory.Match(1, 0)))
	limitSelf  = theory.And(theory.B(0, 1), theory.Match(1, 0))
)

// limitWitness is the witness f for (r, x, a), or nil if constants (or,
// in SATURATE, the assignment) falsify it. Known false witnesses are left
// out before folding, as in witnesses: folding would create their match
// variables for nothing.
func (lg *limitGround) limitWitness(f *theory.Formula, a, r, x *Op) *node {
	e := lg.e
	if r == x || r == a {
		return nil
	}
	if cap(e.scr.env) < 3 {
		e.scr.env = make([]*Op, 3)
	}
	e.scr.env = append(e.scr.env[:0], r, x, a)
	if eval3(f, lg.limitKnown) == vFalse {
		return nil
	}
	n := e.fo.fold(f, false)
	if n.kind == nFalse {
		return nil
	}
	return n
}

// limitKnown is known, and in SYMBOLIC also the value of a b or match
// variable fixed by a unit clause the encoder emitted (a unit is never
// withdrawn: forgetting its variable clears the record). It is what makes
// the counters small outside SATURATE: a returned release that returns a
// tag has one possible partner, TOTAL makes their match variable a unit,
// and the acquire it released before x is then known not to be held at x.
func (lg *limitGround) limitKnown(f *theory.Formula) tri {
	e := lg.e
	t := e.fo.known(f)
	if t != vUnknown || e.lazy != nil {
		return t
	}
	var l Lit
	var ok bool
	switch f.Kind {
	case theory.KB:
		x, y := e.scr.env[f.X], e.scr.env[f.Y]
		if realTime(x, y) != vUnknown || !e.k.Sequential {
			return t
		}
		l, ok = e.reg.bExisting(x, y)
	case theory.KMatch:
		l, ok = e.reg.vars.get(varPair{vMatch, int32(e.scr.env[f.X].Serial), int32(e.scr.env[f.Y].Serial)}.key())
	}
	if !ok {
		return t
	}
	v, sign := l.Var(), int8(1)
	if l.IsNeg() {
		sign = -1
	}
	switch e.reg.units[v] * sign {
	case 1:
		return vTrue
	case -1:
		return vFalse
	}
	return vUnknown
}

// limitStart begins x's counter and its guard.
func (lg *limitGround) limitStart(n int, x *Op, extra []Lit) *limitState {
	e := lg.e
	st := &limitState{n: n, k: n - 1, extra: extra}
	e.scr.cur = append(e.scr.cur[:0], x)
	parts := e.scr.nodes.list(len(x.asX) + 1)
	if x.pending() {
		parts = append(parts, e.fo.litNode(e.used(x).Not()))
	}
	if n > 1 {
		for _, r := range x.asX {
			if w := lg.limitWitness(limitSelf, x, r, x); w != nil {
				parts = append(parts, w)
			}
		}
	}
	g := e.fo.or(parts...)
	switch g.kind {
	case nTrue:
		st.dead = true
	case nFalse:
	case nOr:
		for _, p := range g.args {
			st.guard = append(st.guard, e.fo.litFor(p))
		}
	default:
		st.guard = append(st.guard, e.fo.litFor(g))
	}
	return st
}

// limitInput counts a as possibly held at x.
func (lg *limitGround) limitInput(st *limitState, a, x *Op) {
	e := lg.e
	if st.dead || a == x || st.k < 0 || e.poll() {
		return
	}
	e.scr.cur = append(e.scr.cur[:0], a, x)
	parts := e.scr.nodes.list(len(a.asX) + 2)
	parts = append(parts, e.fo.not(e.fo.usedNode(a)), e.fo.not(e.fo.bNode(a, x)))
	wit := limitWitFor(st.n)
	if lg.limitReleased(wit, a, x) {
		return // a is never held at x
	}
	for _, r := range a.asX {
		if w := lg.limitWitness(wit, a, r, x); w != nil {
			parts = append(parts, w)
		}
	}
	for _, r := range x.asX {
		if st.n > 1 || slices.Contains(a.asX, r) {
			continue
		}
		if w := lg.limitWitness(wit, a, r, x); w != nil {
			parts = append(parts, w)
		}
	}
	body := e.fo.or(parts...)
	switch body.kind {
	case nTrue:
		return // a is never held at x
	case nFalse:
		lg.limitTighten(st) // a is held at x
		return
	}
	hv := e.fo.aux()
	e.fo.assert(e.fo.or(e.fo.litNode(hv), body), st.extra)
	e.scr.cur = append(e.scr.cur[:0], x)
	lg.limitCount(st, hv)
}

// limitWitFor is the witness that an input is released, for capacity n.
func limitWitFor(n int) *theory.Formula {
	if n == 1 {
		return limitHeld1
	}
	return limitHeld
}

// limitCanOverflow reports whether n acquires other than x may ever be
// held at x: those that returned (pending: all that are live), not known
// to be released before x, and the pending ones that overlap x, which
// may be appended later. If not, the counter could never propagate
// anything, nor could any instance of the plain grounding exist: there
// are no n distinct candidates. A semaphore seldom full skips most of
// its counters this way.
func (lg *limitGround) limitCanOverflow(n int, x *Op, all bool) bool {
	e := lg.e
	wit := limitWitFor(n)
	cands := 0
	for _, y := range e.tab.opsOf(h.Acquire) {
		if y == x || realTime(y, x) == vFalse {
			continue
		}
		if y.pending() && !all {
			if slices.Contains(x.conc, y) {
				cands++
			}
		} else if !lg.limitReleased(wit, y, x) {
			cands++
		}
		if cands >= n {
			return true
		}
	}
	return false
}

// limitReleased reports whether a witness that a is released before x
// is known true; it creates no variable.
func (lg *limitGround) limitReleased(wit *theory.Formula, a, x *Op) bool {
	e := lg.e
	if cap(e.scr.env) < 3 {
		e.scr.env = make([]*Op, 3)
	}
	for _, rs := range [2][]*Op{a.asX, x.asX} {
		for _, r := range rs {
			if r == x || r == a {
				continue
			}
			e.scr.env = append(e.scr.env[:0], r, x, a)
			if eval3(wit, lg.limitKnown) == vTrue {
				return true
			}
		}
		if wit == limitHeld {
			break
		}
	}
	return false
}

// limitClause emits extra ∨ guard ∨ lits.
func (lg *limitGround) limitClause(st *limitState, lits ...Lit) {
	e := lg.e
	cl := append(append(append(e.scr.clauseBuf[:0], st.extra...), st.guard...), lits...)
	e.emit(cl)
	e.scr.clauseBuf = cl[:0]
}

// limitDef emits extra ∨ lits: a register's definition, not guarded.
func (lg *limitGround) limitDef(st *limitState, lits ...Lit) {
	e := lg.e
	cl := append(append(e.scr.clauseBuf[:0], st.extra...), lits...)
	e.emit(cl)
	e.scr.clauseBuf = cl[:0]
}

// limitCount appends input in to the sequential counter (Sinz 2005):
// s'_1 ⇐ in, s'_j ⇐ in ∧ s_(j−1), s'_j ⇐ s_j, and the overflow
// in ∧ s_k ⇒ G (in ⇒ G when k = 0).
func (lg *limitGround) limitCount(st *limitState, in Lit) {
	e := lg.e
	k := st.k
	switch {
	case k == 0:
		lg.limitClause(st, in.Not())
		return
	case len(st.regs) == k:
		lg.limitClause(st, in.Not(), st.regs[k-1].Not())
	}
	// The new registers replace the old ones in place, from the top, so
	// that s_(j−1) and s_j are still the old ones when s'_j is made.
	old := len(st.regs)
	m := min(k, old+1)
	if m > old {
		st.regs = append(st.regs, z.LitNull)
	}
	for j := m; j >= 1; j-- {
		s := e.fo.aux()
		if j == 1 {
			lg.limitDef(st, in.Not(), s)
		} else {
			lg.limitDef(st, in.Not(), st.regs[j-2].Not(), s)
		}
		if j <= old {
			lg.limitDef(st, st.regs[j-1].Not(), s)
		}
		st.regs[j-1] = s
	}
}

// limitTighten lowers the bound by one for an input known true: the
// count may already overflow (s_(k+1) for the new k), and later inputs
// overflow one register earlier.
func (lg *limitGround) limitTighten(st *limitState) {
	st.k--
	switch {
	case st.k < 0:
		lg.limitClause(st)
	case len(st.regs) > st.k:
		lg.limitClause(st, st.regs[st.k].Not())
		st.regs = st.regs[:st.k]
	}
}

// returned grounds LIMIT for a returned operation: its own counter
// over the acquires that have returned (if it is an acquire), and its
// input to the counters of the returned acquires it overlapped.
func (lg *limitGround) returned(a *axiom, op *Op) {
	e := lg.e
	if op.Label.Method != h.Acquire {
		return
	}
	if !lg.limitCanOverflow(a.Capacity, op, false) {
		op.lim = &limitState{dead: true}
	} else {
		op.lim = lg.limitStart(a.Capacity, op, nil)
	}
	var in []*Op
	for _, y := range e.tab.opsOf(h.Acquire) {
		if y != op && !y.pending() && realTime(y, op) != vFalse {
			in = append(in, y)
		}
	}
	lg.limitInputs(op.lim, op, in)
	for _, x := range op.conc {
		if x.lim != nil && !x.pending() {
			lg.limitInput(x.lim, op, x)
		}
	}
	e.scr.cur = e.scr.cur[:0]
}

// open emits, under extra, LIMIT for every acquire that is pending
// or overlaps a pending acquire, over all the acquires that may precede it.
func (lg *limitGround) open(a *axiom, extra []Lit) {
	e := lg.e
	acq := e.tab.opsOf(h.Acquire)
	for _, x := range acq {
		open := x.pending()
		for _, y := range x.conc {
			if open {
				break
			}
			open = y.pending() && y.Label.Method == h.Acquire
		}
		if !open || !lg.limitCanOverflow(a.Capacity, x, true) {
			continue
		}
		st := lg.limitStart(a.Capacity, x, extra)
		var in []*Op
		for _, y := range acq {
			if y != x && realTime(y, x) != vFalse {
				in = append(in, y)
			}
		}
		lg.limitInputs(st, x, in)
	}
	e.scr.cur = e.scr.cur[:0]
}

// limitInputs counts the acquires as possibly held at x, grouping first
// those that only a pending release may have released (limitGroup).
func (lg *limitGround) limitInputs(st *limitState, x *Op, as []*Op) {
	if st.n > 1 && !st.dead {
		as = lg.limitGroup(st, x, as)
	}
	for _, a := range as {
		lg.limitInput(st, a, x)
	}
}

// limitGroup counts together the acquires that are held at x unless a
// pending release released them, and returns the other acquires.
//
// A full semaphore of capacity n holds about n acquires that returned
// before x was called; while some release is pending, any of them may be
// the one it releases, so none is known held, and counted one by one they
// make a counter of about n² registers for every acquire x (4,300
// clauses each at capacity 64). But a release releases one acquire
// (FUNCTION), and an acquire is released once (INJECTIVE): of such a
// group D, whose only witnesses are releases of a set R, exactly
// |D| − rel are held, rel being the number of releases of R that release
// a member of D before x. So the bound is lowered by |D| − |R|, and for
// each r of R one input u(r) is counted, with u(r) ∨ ⋁a∈D w(a,r,x) (u(r)
// must be true when r releases no member of D before x): the count is
// then held(others) + |R| − rel, against n − 1 − |D| + |R|, which is
// LIMIT's. With FUNCTION and INJECTIVE the two are equisatisfiable, and
// the group costs |R| inputs instead of |D|.
func (lg *limitGround) limitGroup(st *limitState, x *Op, as []*Op) []*Op {
	e := lg.e
	var rest, group []*Op
	var rels []*Op
	wits := map[*Op][]*node{} // by release: its witnesses over the group
	for _, a := range as {
		if a == x || a.pending() || realTime(a, x) != vTrue || lg.limitReleased(limitHeld, a, x) {
			rest = append(rest, a)
			continue
		}
		e.scr.cur = append(e.scr.cur[:0], a, x)
		ok, any := true, false
		var ws []*node
		var rs []*Op
		for _, r := range a.asX {
			w := lg.limitWitness(limitHeld, a, r, x)
			if w == nil {
				continue
			}
			if !r.pending() || w.kind == nTrue {
				ok = false
				break
			}
			any = true
			ws, rs = append(ws, w), append(rs, r)
		}
		if !ok || !any {
			rest = append(rest, a)
			continue
		}
		group = append(group, a)
		for i, r := range rs {
			if _, seen := wits[r]; !seen {
				rels = append(rels, r)
			}
			wits[r] = append(wits[r], ws[i])
		}
	}
	if len(group) <= len(rels) {
		return as
	}
	for i := 0; i < len(group)-len(rels) && st.k >= 0; i++ {
		lg.limitTighten(st)
	}
	if st.k < 0 {
		return nil
	}
	for _, r := range rels {
		e.scr.cur = append(e.scr.cur[:0], x, r)
		u := e.fo.aux()
		e.fo.assert(e.fo.or(append([]*node{e.fo.litNode(u)}, wits[r]...)...), st.extra)
		e.scr.cur = append(e.scr.cur[:0], x)
		lg.limitCount(st, u)
	}
	return rest
}
