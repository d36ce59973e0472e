package encode

import (
	"slices"

	"github.com/satmon/satmon/internal/z"
)

// MATCH's clauses, generated when they become unit, for SATURATE.
//
// For the kernels whose MATCH axiom is meth(x) = … ∧ meth(y) = … ∧
// arg(x) = ret(y) (queue, stack, priority queue, register), a match
// variable m = match(x,y) exists only for a pair the labels allow, so
// MATCH's instance is a constant while y has returned and the binary
// clause ¬m ∨ r, r = ret(y)=arg(x), while y is pending. Grounded when m is
// flushed, it also made r, which then needed its own unit at y's return;
// and it almost never propagated. The clause is unit or false exactly
// when m becomes true or r false, so it is emitted then (pairTrue,
// retFalse), or when m is flushed with r already false (pairMade). When y
// returns another value, the pair is ruled out and the instance is the
// unit ¬m (ruleOut). The fixpoint is the eager grounding's
// (TestLazyGroundingExact).

// pairMade emits MATCH's clause for a flushed m if it is already unit.
func (g *lazyGround) pairMade(m newMatch) {
	e := g.e
	if !m.y.pending() {
		return // the labels allow the pair: the instance is true
	}
	if v, ok := e.reg.vars.get(varPair{vMatch, int32(m.x.Serial), int32(m.y.Serial)}.key()); !ok || v != m.v {
		return // ruled out since (see ruleOut)
	}
	// r is false if it exists and is, or if y's value is known to be
	// another one (the at-most-one makes it false once it exists).
	r, ok := m.y.rets.get(m.x.Label.Arg)
	t := m.y.retTrue
	if ok && e.val(r) == -1 || t != z.LitNull && t != r && e.val(t) == 1 || e.val(m.v) == 1 {
		g.pairClause(m.x, m.y, m.v)
	}
}

// pairTrue emits MATCH's clause for m = match(x,y) now true.
func (g *lazyGround) pairTrue(x, y *Op, m Lit) {
	if y.pending() {
		g.pairClause(x, y, m)
	}
}

// retFalse emits MATCH's clauses for the match variables of the pending
// y that need r, now false.
func (g *lazyGround) retFalse(y *Op, r Lit) { g.pairClauses(y, r, true) }

// otherValue emits MATCH's clauses for the match variables of the pending
// y whose value is not that of r, now true: their return variables are
// false by the at-most-one (made now if need be, see pendingVarMade).
func (g *lazyGround) otherValue(y *Op, r Lit) { g.pairClauses(y, r, false) }

// pairClauses emits MATCH's clause for each live, flushed, not false
// match(x,y) whose return variable is r (same) or is not (!same), in
// window order, as the partner list would give them.
//
// With same, the x are the window's operations of r's value (byArg, in
// serial order): a match(x,y) that lives is in the table, and its x is in
// the window. Most values of a queue or a stack have one operation,
// where y's owned variables, a pending dequeue's match variable with each
// add of the window among them, are many. Without, the x are found among
// the match variables y owns, which are fewer than its partners (a
// pending dequeue has every add of the window for partner, and a
// variable for a few of them).
func (g *lazyGround) pairClauses(y *Op, r Lit, same bool) {
	e := g.e
	val := e.reg.meaning[r.Var()].ret
	if same {
		for _, x := range e.tab.argOps(val) {
			g.pairClauseOf(x, y)
		}
		return
	}
	// y.rets[arg(x)] is r exactly when arg(x) is r's value: the value is
	// compared with each x's argument instead of looking the argument up
	// in y.rets, and only the x kept are sorted.
	xs := e.scr.opScratch[:0]
	for _, ov := range y.owned {
		if e.reg.liveKind(ov) == vMatch && e.reg.varOps[ov.v][1] == y {
			if x := e.reg.varOps[ov.v][0]; x.Label.Arg != val {
				xs = append(xs, x)
			}
		}
	}
	slices.SortFunc(xs, func(a, b *Op) int { return a.Serial - b.Serial })
	for _, x := range xs {
		g.pairClauseOf(x, y)
	}
	clear(xs)
	e.scr.opScratch = xs[:0]
}

// pairClauseOf emits MATCH's clause for match(x,y) if it is live,
// flushed and not false.
func (g *lazyGround) pairClauseOf(x, y *Op) {
	e := g.e
	m, ok := e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key())
	if ok && !e.match.waiting(m) && e.val(m) != -1 {
		g.pairClause(x, y, m)
	}
}

// pairClause emits ¬m ∨ ret(y)=arg(x).
func (g *lazyGround) pairClause(x, y *Op, m Lit) {
	e := g.e
	switch r := e.fo.retNode(y, x.Label.Arg); r.kind {
	case nLit:
		e.emit2(m.Not(), r.lit)
	case nFalse:
		e.emit1(m.Not())
	}
}
