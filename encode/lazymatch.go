package encode

import (
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

// Sanity instances wait for their match variables.
//
// The matching axioms — MATCH1/2/3, INJECTIVE, FUNCTION, MATCHOVERLAP,
// the set's ADDREM — are universal, and their match atoms occur only in
// the antecedent, that is negatively in the clauses. Grounded eagerly,
// they give every pair of possible partners a match variable the moment
// the second one is called: O(window) variables and clauses per call,
// for a pending remove and every value it might return.
//
// A variable that occurs only negatively can always be false. While no
// clause mentions match(x,y) positively — the witnesses of ∀∃ axioms and
// READFROM's ¬match are the only such places — nothing can make it true,
// and its negative clauses can make nothing else true: unit propagation
// over the other variables, and satisfiability, are the same with or
// without them. So an instance is emitted only once all the match atoms
// of its antecedent have variables, at the end of the call that created
// the last of them (flushMatches). The instances that never get emitted
// are exactly those that could never fire.

// flushMatches emits, for each match variable created since the last
// flush, the waiting instances whose match atoms all have variables now.
// It runs at the end of the encoder's entry points, never inside a
// grounding, because it uses the shared assignment e.env.
//
// Small enough to be inlined: most calls find no new match variable.
func (mt *matcher) flushMatches() {
	if len(mt.newMatches) > 0 {
		mt.flushNew()
	}
}

// flushNew is flushMatches when there are new match variables.
func (mt *matcher) flushNew() {
	e := mt.e
	if mt.matchPRC && (e.hk == nil || !e.hk.flushByActs) {
		mt.flushPairRowCol() // the queue's, stack's and priority queue's
		return
	}
	for len(mt.newMatches) > 0 {
		n := len(mt.newMatches) - 1
		m := mt.newMatches[n]
		mt.newMatches = mt.newMatches[:n]
		// Both operations are live: Remove drops the entries of the
		// operations it forgets (their structs are recycled), and every
		// entry point flushes before it returns. So the entry's pointers
		// are used as they are, with no lookup by serial, which would
		// bisect the window twice per new match variable.
		for i, act := range mt.matchAct {
			switch act {
			case matchExclRow:
				mt.exclusionMade(m, m.x.trueAsX, true)
			case matchExclCol:
				mt.exclusionMade(m, m.y.trueAsY, false)
			case matchAtMostRow:
				mark := len(e.scr.pbuf)
				mt.atMostOne(m, e.ptn.partnersX(m.x), true)
				e.scr.pbuf = e.scr.pbuf[:mark]
			case matchAtMostCol:
				mark := len(e.scr.pbuf)
				mt.atMostOne(m, mt.functionCands(m.x, m.y), false)
				e.scr.pbuf = e.scr.pbuf[:mark]
			case matchPair:
				e.lazy.pairMade(m)
			default:
				a := mt.matchAx[i]
				for _, at := range a.matchAtoms {
					mt.groundFromMatch(a, at, m.x, m.y)
				}
			}
		}
	}
}

// flushPairRowCol is flushMatches for the actions [matchPair,
// matchExclRow, matchExclCol], those of the lazy queue, stack and
// priority queue, written out in their order, without the loop over the
// actions and its switch for each new match variable.
func (mt *matcher) flushPairRowCol() {
	e := mt.e
	for len(mt.newMatches) > 0 {
		n := len(mt.newMatches) - 1
		m := mt.newMatches[n]
		mt.newMatches = mt.newMatches[:n]
		e.lazy.pairMade(m)
		mt.exclusionMade(m, m.x.trueAsX, true)
		mt.exclusionMade(m, m.y.trueAsY, false)
	}
}

// atMostOne grounds INJECTIVE (injective: the pairs (x,o) for o in
// cands) or FUNCTION (the pairs (o,y)) for the new variable m directly: the instance for m
// and the pair's variable n is the clause ¬m ∨ ¬n, since the operations
// differ and their match atoms imply their used guards. The generic
// grounding built each clause twice, once per atom position, through
// the formula interpreter; here each pair of variables gets it once,
// from whichever of the two is flushed last, and not when one of them is
// already false (see isTrue).
func (mt *matcher) atMostOne(m newMatch, cands []*Op, injective bool) {
	e := mt.e
	if v, ok := e.reg.vars.get(varPair{vMatch, int32(m.x.Serial), int32(m.y.Serial)}.key()); !ok || v != m.v {
		return // ruled out since (see ruleOut)
	}
	if e.val(m.v) == -1 {
		return
	}
	for _, o := range cands {
		x, y := o, m.y
		if injective {
			x, y = m.x, o
		}
		if x == m.x && y == m.y {
			continue
		}
		n, ok := e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key())
		if !ok || mt.waiting(n) || e.val(n) == -1 {
			continue
		}
		e.scr.clauseBuf = append(e.scr.clauseBuf[:0], m.v.Not(), n.Not())
		e.emit(e.scr.clauseBuf)
	}
}

// functionCands are the x' whose match(x',y) FUNCTION excludes together
// with match(x,y): with values tied, only those of x's value (see
// instances). A list built on e.pbuf is the caller's to drop (see
// partnersX).
func (mt *matcher) functionCands(x, y *Op) []*Op {
	e := mt.e
	if e.valueTied {
		return e.tab.byArg[x.argID]
	}
	return e.ptn.partnersY(y)
}

// In SATURATE, INJECTIVE's and FUNCTION's clauses ¬m ∨ ¬n are generated
// when they become unit, like the side clauses of lazyret.go: when m or n
// becomes true (matchTrue), or when a variable is flushed after the other
// one became true (exclusionMade). Each operation remembers the match
// variable of its row (trueAsX) and column (trueAsY) last seen true;
// another one seen true since is matchTrue's to handle.

// exclusionMade emits, for the new match variable m, the exclusion with
// t, the variable of its row (row) or column last seen true, if it is
// unit. Small enough to be inlined into flushMatches: most rows and
// columns have no true variable yet, and are passed over without a call.
func (mt *matcher) exclusionMade(m newMatch, t Lit, row bool) {
	if t != z.LitNull {
		mt.exclusionOf(m, t, row)
	}
}

// exclusionOf is exclusionMade for a row or column with a variable t.
func (mt *matcher) exclusionOf(m newMatch, t Lit, row bool) {
	e := mt.e
	if !mt.excludes(t, m.x, m.y, row) {
		return
	}
	if v, ok := e.reg.vars.get(varPair{vMatch, int32(m.x.Serial), int32(m.y.Serial)}.key()); !ok || v != m.v {
		return // ruled out since (see ruleOut)
	}
	e.emit2(m.v.Not(), t.Not())
}

// matchTrue emits the exclusions made unit by match(x,y) = m becoming
// true.
func (mt *matcher) matchTrue(x, y *Op, m Lit) {
	e := mt.e
	mark := len(e.scr.pbuf)
	if mt.injective {
		x.trueAsX = m
		mt.exclude(m, x, y, mt.rowOps(x), true)
		// Not cleared: see returnPartners.
		e.scr.opScratch = e.scr.opScratch[:0]
	}
	if mt.function {
		y.trueAsY = m
		mt.exclude(m, x, y, mt.functionCands(x, y), false)
	}
	e.scr.pbuf = e.scr.pbuf[:mark]
}

// rowOps lists, in window order (by serial), the y of x's live match
// variables match(x,y), in e.scr.opScratch (the caller empties it). These
// are the partners of x that exclude can find a variable for: a match
// variable is owned by both its operations, and one whose pair a return
// has ruled out has left the table (ruleOut), so every pair still in the
// table is one of partnersX(x). Reading x's owned list spares merging
// the pending partners with the stored ones, where a pending remove is a
// partner of every add and has a variable with few of them.
func (mt *matcher) rowOps(x *Op) []*Op {
	e := mt.e
	e.stamp++
	seen := e.stamp
	ys := e.scr.opScratch[:0]
	for _, ov := range x.owned {
		if e.reg.liveKind(ov) != vMatch || e.reg.varOps[ov.v][0] != x {
			continue
		}
		// match(x,x) is owned twice by x.
		if y := e.reg.varOps[ov.v][1]; y.mark != seen {
			y.mark = seen
			ys = append(ys, y)
		}
	}
	// By insertion: there are hardly ever more than a few.
	for i := 1; i < len(ys); i++ {
		for j := i; j > 0 && ys[j-1].Serial > ys[j].Serial; j-- {
			ys[j-1], ys[j] = ys[j], ys[j-1]
		}
	}
	e.scr.opScratch = ys
	return ys
}

// exclude emits ¬m ∨ ¬n for the other variables n of m's row (injective)
// or column that exist, are flushed and are not false.
func (mt *matcher) exclude(m Lit, x, y *Op, cands []*Op, injective bool) {
	e := mt.e
	for _, o := range cands {
		a, b := o, y
		if injective {
			a, b = x, o
		}
		if a == x && b == y {
			continue
		}
		n, ok := e.reg.vars.get(varPair{vMatch, int32(a.Serial), int32(b.Serial)}.key())
		if !ok || mt.waiting(n) || e.val(n) == -1 {
			continue
		}
		e.emit2(m.Not(), n.Not())
	}
}

// groundFromMatch emits the instances of a that bind the match atom at to
// (x,y).
func (mt *matcher) groundFromMatch(a *axiom, at *theory.Formula, x, y *Op) {
	e := mt.e
	if at.X == at.Y && x != y {
		return
	}
	nf := len(a.Forall)
	if cap(e.scr.env) < a.Vars() {
		e.scr.env = make([]*Op, a.Vars())
	}
	e.scr.env = e.scr.env[:a.Vars()]
	clear(e.scr.env)
	e.scr.env[at.X], e.scr.env[at.Y] = x, y
	if nf == 2 && at.X != at.Y && len(a.matchAtoms) == 1 {
		// MATCH: the atom binds every variable. Most flushes are this;
		// the closure below would be allocated for each.
		mt.groundMatched(a)
		return
	}
	var bind func()
	bind = func() {
		// The next unbound variable, reached through a match atom from a
		// bound one: its candidates are that operation's partners.
		for _, c := range a.matchAtoms {
			var cands []*Op
			var v int
			mark := len(e.scr.pbuf)
			switch {
			case e.scr.env[c.X] != nil && e.scr.env[c.Y] == nil:
				v, cands = c.Y, e.ptn.partnersX(e.scr.env[c.X])
			case e.scr.env[c.Y] != nil && e.scr.env[c.X] == nil:
				v, cands = c.X, e.ptn.partnersY(e.scr.env[c.Y])
			default:
				continue
			}
			if a.shape == shapeFunction && e.valueTied && (v == 0 || v == 1) {
				// Only partners of the same value: see groundMatched.
				cands = e.tab.byArg[e.scr.env[1-v].argID]
			}
			for _, o := range cands {
				e.scr.env[v] = o
				bind()
			}
			e.scr.env[v] = nil
			e.scr.pbuf = e.scr.pbuf[:mark]
			return
		}
		for _, o := range e.scr.env[:nf] {
			if o == nil {
				return // not connected through match atoms: cannot happen for our kernels
			}
		}
		mt.groundMatched(a)
	}
	bind()
}

// groundMatched emits the instance of a under e.env if each of its match
// atoms has a variable.
func (mt *matcher) groundMatched(a *axiom) {
	e := mt.e
	for _, c := range a.matchAtoms {
		x, y := e.scr.env[c.X], e.scr.env[c.Y]
		if _, ok := e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key()); !ok {
			return
		}
	}
	// As in instances: FUNCTION for partners of different values follows
	// from MATCH and the at-most-one on return values.
	if a.shape == shapeFunction && e.valueTied && e.scr.env[0].Label.Arg != e.scr.env[1].Label.Arg {
		return
	}
	var ante, rest []*node
	for _, c := range a.ante {
		n := e.fo.fold(c, false)
		if n.kind == nFalse || e.fo.isFalse(n) {
			return
		}
		ante = append(ante, n)
	}
	for _, c := range a.rest {
		n := e.fo.fold(c, false)
		if n.kind == nTrue || e.fo.isTrue(n) {
			return
		}
		rest = append(rest, n)
	}
	e.gr.leaf(a, e.tab.win, ante, rest, nil)
}
