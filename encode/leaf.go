package encode

import (
	"math"
	"math/bits"
	"slices"

	"github.com/satmon/satmon/internal/z"
)

// knownWit is eval3(a.wit, e.fo.known) for the template's conjunction. Unless
// it returns vFalse, it leaves in e.scr.inst.witLits, for each atom, the
// literal it found for it or z.LitNull, and in witVals the literal's
// value: cwitness, right after, folds an atom with a literal to it
// without looking it up again (variables are made, never dropped, while
// an instance is grounded), and settles it without asking the saturator
// again (folding the other atoms assigns none but the variables it
// makes).
//
// It is kept out of line: the profile-guided build (cmd/satmon's
// default.pgo) inlines knownAtom into knownWit's own body, but not where
// knownWit is inlined into cwitness, and one call per witness candidate
// costs less than one per atom.
//
//go:noinline
func (gr *grounder) knownWit(t *template) tri {
	e := gr.e
	st := &e.scr.inst
	if t.witMB {
		// A witness match(x,y) ∧ b(u,w): knownAtom's KMatch and KB
		// cases, in that order, with their values read as knownAtom
		// reads them, and the same witLits and witVals left behind
		// (TestKnownMatchBAgrees).
		env := e.scr.env
		cm, cb := &t.wit[0], &t.wit[1]
		r := vTrue
		x, y := env[cm.x], env[cm.y]
		lm, ok := e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key())
		km := vUnknown
		if !ok {
			// excluded needs a true match variable in x's row or y's column.
			if (x.trueAsX != noLit || y.trueAsY != noLit) && e.match.excluded(x, y) {
				return vFalse
			}
			r = vUnknown
		} else {
			switch e.val(lm) {
			case 1:
				km = vTrue
			case -1:
				return vFalse
			default:
				r = vUnknown
			}
		}
		st.witLits[0], st.witVals[0] = lm, km
		u, w := env[cb.x], env[cb.y]
		kb := realTime(u, w)
		var lb Lit
		switch kb {
		case vFalse:
			return vFalse
		case vUnknown:
			// As bExisting: in a sequential kernel b(w,u) is ¬b(u,w).
			if !e.k.Sequential || u.Serial < w.Serial {
				lb, _ = e.reg.vars.get(varPair{vB, int32(u.Serial), int32(w.Serial)}.key())
			} else if l, ok := e.reg.vars.get(varPair{vB, int32(w.Serial), int32(u.Serial)}.key()); ok {
				lb = l.Not()
			}
			if lb != noLit {
				switch e.val(lb) {
				case 1:
					kb = vTrue
				case -1:
					return vFalse
				}
			}
			if kb == vUnknown {
				r = vUnknown
			}
		}
		st.witLits[1], st.witVals[1] = lb, kb
		return r
	}
	r := vTrue
	for i := range t.wit {
		k, l := e.fo.knownAtom(&t.wit[i])
		switch k {
		case vFalse:
			return vFalse
		case vUnknown:
			r = vUnknown
		}
		st.witLits[i], st.witVals[i] = l, k
	}
	return r
}

// witnessMB is cwitness for a witness match(x,y) ∧ b(u,w) (template.witMB)
// over the operations given, y the candidate (bound at env[nf] too, for
// foldMB's look-ups of the atoms without a variable): knownWit's
// reading of the two atoms, written out again with the operations as
// arguments, and the literals and values it finds passed to foldMB
// directly rather than left in witLits and witVals. The loops over a
// leaf's witness candidates (witnessesX) pass the operations that stay
// bound for the whole leaf (x and the universal u of template.quick)
// without reading them from env, nor the atoms from the template, per
// candidate. A disagreement with knownWit changes the
// clauses (TestCompiledAgreesWithInterpreter, TestQuickHoldsAgrees).
func (gr *grounder) witnessMB(t *template, x, y, u, w *Op) {
	e := gr.e
	km := vUnknown
	lm, ok := e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key())
	if !ok {
		// excluded needs a true match variable in x's row or y's column.
		if (x.trueAsX != noLit || y.trueAsY != noLit) && e.match.excluded(x, y) {
			return
		}
	} else {
		switch e.val(lm) {
		case 1:
			km = vTrue
		case -1:
			return
		}
	}
	kb := realTime(u, w)
	var lb Lit
	switch kb {
	case vFalse:
		return
	case vUnknown:
		// As bExisting: in a sequential kernel b(w,u) is ¬b(u,w).
		if !e.k.Sequential || u.Serial < w.Serial {
			lb, _ = e.reg.vars.get(varPair{vB, int32(u.Serial), int32(w.Serial)}.key())
		} else if l, ok := e.reg.vars.get(varPair{vB, int32(w.Serial), int32(u.Serial)}.key()); ok {
			lb = l.Not()
		}
		if lb != noLit {
			switch e.val(lb) {
			case 1:
				kb = vTrue
			case -1:
				return
			}
		}
	}
	gr.foldMB(t, lm, km, lb, kb)
}

// witLimit is the last call at which a witness candidate may have been
// called (template.witCut): one called after it, y, has b(y,u) false by
// real time (u returned before y was called), and knownWit would return
// vFalse for it without a side effect. math.MaxInt when there is no cut,
// and when u is the operation the instance is grounded for: at u's own
// return no operation was called after it (and none is left out when
// the limit is not applied).
func (gr *grounder) witLimit(t *template) int {
	e := gr.e
	if t.witCut >= 0 {
		if u := e.scr.env[t.witCut]; u != e.scr.inst.must && !u.pending() {
			return u.Return
		}
	}
	return math.MaxInt
}

// cleaf is leaf through the template. The instance is the disjunction of
// the guards ¬used(x̄), the negated antecedent, the rest and the
// witnesses, emitted as one clause, with a Plaisted–Greenbaum helper for
// each witness of two or more literals, exactly as leaf emits it. A
// closed instance's operations have all returned: it has no guards.
//
// A literal the saturator assigned while the checks were folded is
// settled again here, where leaf's disjunction settles it: a unit clause
// emitted meanwhile is a fact at once.
func (gr *grounder) cleaf(st *instState) {
	e := gr.e
	a, nf := st.a, st.nf
	t := a.tmpl
	st.nheld = 0
	if t.hasWit && gr.cwitnessHolds(a, st.win, nf) {
		return
	}
	// st's fields are read where used, not copied: nothing grounded before
	// cleaf returns changes them (instances is not entered again meanwhile).
	settledAt := e.clause // watchInstance
	// The instance's operations for origin.go are env's first nf, which
	// stay put until cleaf returns (the witnesses bind env[nf]): curLeaf
	// says so (curOps), and cur is emptied as the slice it replaced was
	// at the end, so that what reads it after cleaf reads the same.
	e.scr.cur = e.scr.cur[:0]
	gr.curLeaf = nf + 1
	gr.curAxiom = a.Axiom // origin.go
	parts := e.scr.cparts[:0]
	e.scr.conj = e.scr.conj[:0]
	if !st.closed {
		for j := 0; j < nf; j++ {
			o := e.scr.env[j]
			if !o.pending() || a.guarded[j] || slices.Contains(e.scr.env[:j], o) {
				continue
			}
			parts = append(parts, cpart{lit: e.used(o).Not()})
		}
	}
	for _, l := range st.lante[:st.na] {
		parts = append(parts, cpart{lit: l.Not()})
	}
	for _, l := range st.lrest[:st.nr] {
		parts = append(parts, cpart{lit: l})
	}
	// cwitness appends to the buffers in e.scr, not to slices passed
	// through each call, and notes a true witness in truePart.
	e.scr.cparts = parts
	if t.hasWit {
		e.scr.inst.truePart = false
		if g := a.witGen; g != nil && g.asX && e.ptn.virt {
			if limit := gr.witLimit(t); limit != math.MaxInt {
				gr.witnessesXCut(st, e.scr.env[g.from], limit)
			} else {
				gr.witnessesX(st, e.scr.env[g.from])
			}
		} else {
			mark := len(e.scr.pbuf)
			cands := st.win
			if g != nil {
				cands = e.ptn.partners(g, e.scr.env)
			}
			for _, o := range cands {
				e.scr.env[nf] = o
				gr.cwitness(a, o)
			}
			e.scr.pbuf = e.scr.pbuf[:mark]
		}
		parts = e.scr.cparts
	}
	// The disjunction, folded as or folds it: a true part makes the
	// instance true, a false one is left out (in place). Every literal
	// part but the guards was settled when it was made (a check's at its
	// level, a witness's in cwitness), and making variables since has
	// assigned only those variables (the side clauses of a new match or
	// ret variable, pendingVarMade), each settled after. But a clause
	// emitted by another instance grounded since the first level was
	// bound (a unit one materialised at once, say) may have assigned a
	// check's literal: then every part is settled again, as leaf's
	// disjunction settles it. So a closed instance, which has no guards,
	// has nothing to settle when no clause has been emitted since, nor
	// has one without a saturator (settledLit is then nLit); watchInstance
	// relies on every part being settled.
	out := parts
	if !st.closed || e.clause != e.scr.inst.clauseAt {
		out = parts[:0]
		for _, p := range parts {
			if p.n == 0 {
				switch e.fo.settledLit(p.lit) {
				case nTrue:
					gr.curLeaf, gr.curAxiom = 0, nil
					return
				case nFalse:
					continue
				}
			}
			out = append(out, p)
		}
	}
	if t.hasWit && gr.watch && st.extra == nil {
		if !e.scr.inst.truePart {
			e.lazy.w.watchInstance(out, nf, settledAt)
		}
	} else {
		gr.cassert(out, st.extra)
	}
	gr.curLeaf, gr.curAxiom = 0, nil
}

// witnessesX runs cwitness for each of partnersX(x), in the same order,
// merging the stored partners with the pending ones as it goes rather
// than into a list. The candidate's slot in env is found once: env stays
// put while the leaf is grounded (cleaf).
func (gr *grounder) witnessesX(st *instState, x *Op) {
	e := gr.e
	a := st.a
	t := a.tmpl
	// u: the witness's universal b operand (template.quick), bound for
	// the whole leaf.
	var u *Op
	if t.quick {
		u = e.scr.env[t.quickU]
	}
	stored, slot := x.asX, &e.scr.env[st.nf]
	// When the pending operations all have one method, pendingMayMatch
	// says of each what it says of the first (partnersX).
	pend, same := e.ptn.pendingForSame(x.Label.Method)
	if same && len(pend) > 0 && !e.ptn.pendingMayMatch(x, pend[0]) {
		pend = nil
	}
	i := 0
	ex := gr.rowExcluded(a.tmpl, x)
	for _, p := range pend {
		if !same && !e.ptn.pendingMayMatch(x, p) {
			continue
		}
		for ; i < len(stored) && stored[i].Serial < p.Serial; i++ {
			gr.storedWitness(st, stored[i], i)
		}
		if ex >= 0 && p.Serial != ex && !gr.hasMatchVar(x, p) {
			e.scr.exclHits++
			continue // excluded: knownWit finds the witness false
		}
		*slot = p
		// cwitness, written out: a witness of x's partners is folded
		// by cfoldMB when it is match ∧ b (cfold); when it is
		// match(x,p) ∧ b(p,u) or b(u,p) (template.quick), its atoms are
		// read and folded over x, p and u in hand.
		if t.quick {
			bu, bw := u, p
			if t.quickYFirst {
				bu, bw = p, u
			}
			gr.witnessMB(t, x, p, bu, bw)
		} else if gr.knownWit(t) != vFalse {
			if t.witMB {
				gr.cfoldMB(t)
			} else {
				gr.cfold(a, p)
			}
		}
	}
	for ; i < len(stored); i++ {
		gr.storedWitness(st, stored[i], i)
	}
}

// witnessesXCut is witnessesX when the candidates called after limit
// are false witnesses (witLimit): it passes over them.
func (gr *grounder) witnessesXCut(st *instState, x *Op, limit int) {
	e := gr.e
	a := st.a
	t := a.tmpl
	var u *Op // as in witnessesX
	if t.quick {
		u = e.scr.env[t.quickU]
	}
	stored := x.asX
	pend, same := e.ptn.pendingForSame(x.Label.Method)
	if same && len(pend) > 0 && !e.ptn.pendingMayMatch(x, pend[0]) {
		pend = nil
	}
	i := 0
	ex := gr.rowExcluded(a.tmpl, x)
	for _, p := range pend {
		if !same && !e.ptn.pendingMayMatch(x, p) {
			continue
		}
		for ; i < len(stored) && stored[i].Serial < p.Serial; i++ {
			if stored[i].Call <= limit {
				gr.storedWitness(st, stored[i], i)
			}
		}
		if p.Call > limit {
			continue
		}
		if ex >= 0 && p.Serial != ex && !gr.hasMatchVar(x, p) {
			e.scr.exclHits++
			continue // excluded, as in witnessesX
		}
		e.scr.env[st.nf] = p
		if t.quick {
			bu, bw := u, p
			if t.quickYFirst {
				bu, bw = p, u
			}
			gr.witnessMB(t, x, p, bu, bw)
		} else {
			gr.cwitness(a, p)
		}
	}
	for ; i < len(stored); i++ {
		if stored[i].Call <= limit {
			gr.storedWitness(st, stored[i], i)
		}
	}
}

// rowExcluded is, for the witnesses of x's partners (witnessesX), the
// serial of y when x's row has a true match variable match(x,y) (x's
// trueAsX, still that variable: excludes), else -1. Then, in an injective kernel, every other partner p
// without a match variable of its own is excluded (excluded): knownWit
// finds the witness's match atom match(x,p) (template.witSrc) false,
// whatever the other atoms are (it reads them without side effects), and
// cwitness adds nothing for p. witnessesX then passes over p after one
// look-up of its variable.
func (gr *grounder) rowExcluded(t *template, x *Op) int {
	e := gr.e
	l := x.trueAsX
	if t.witSrc < 0 || l == noLit || !gr.rowExcl || e.val(l) != 1 {
		return -1
	}
	if m := &e.reg.meaning[l.Var()]; m.kind == vMatch && int(m.x) == x.Serial {
		return int(m.y)
	}
	return -1
}

// hasMatchVar reports whether match(x,y) has a variable.
func (gr *grounder) hasMatchVar(x, y *Op) bool {
	e := gr.e
	_, ok := e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key())
	return ok
}

// storedWitness is cwitness for o, x's i-th stored partner (witnessesX).
func (gr *grounder) storedWitness(st *instState, o *Op, i int) {
	e := gr.e
	e.scr.env[st.nf] = o
	if i < st.nheld {
		// Its atoms as cwitnessHolds found them: candidates' atoms share
		// no variable (witOwn), and grounding the witnesses before it
		// made and assigned only their own variables.
		st.witLits, st.witVals = st.heldLits[i], st.heldVals[i]
		if st.heldRes[i] == vFalse {
			return
		}
	} else if gr.knownWit(st.a.tmpl) == vFalse {
		return
	}
	// cfold's dispatch, written out as in witnessesX.
	if st.a.tmpl.witMB {
		gr.cfoldMB(st.a.tmpl)
	} else {
		gr.cfold(st.a, o)
	}
}

// cwitness appends the witness o of the instance under e.env to
// e.scr.cparts (its literals to e.scr.conj): the conjunction used(o)
// (when no match atom guards it) ∧ wit, folded as witnesses folds it. A
// false conjunction adds nothing; a true one is a part that is always
// true (a literal-free true part is coded as the empty conjunction at n
// = -1). It calls knownWit for o first, and reads its witLits.
func (gr *grounder) cwitness(a *axiom, o *Op) {
	if gr.knownWit(a.tmpl) == vFalse {
		return
	}
	gr.cfold(a, o)
}

// cfold is cwitness after knownWit.
func (gr *grounder) cfold(a *axiom, o *Op) {
	e := gr.e
	t := a.tmpl
	if t.witMB && a.witGen != nil {
		gr.cfoldMB(t)
		return
	}
	// lits[0] is used(o), read before the witness is folded, as
	// witnesses builds its conjunction in that order; bit i of known says
	// that lits[i] need not be settled again: knownWit found it and read its
	// value, unknown (a true one settles out at once).
	var lits [maxWit + 1]Lit
	var known uint32
	n := 1
	if a.witGen == nil && o.pending() {
		lits[0] = e.used(o)
	} else {
		n = 0
	}
	st := &e.scr.inst
	// The witness's conjuncts; fold stops at the first constant false.
	for i := range t.wit {
		l := st.witLits[i]
		k := nLit
		if l == noLit {
			switch v := st.witVals[i]; {
			case v == vUnknown && t.witFresh[i]:
				l, k = e.fo.absentLit(&t.wit[i], i == t.witSrc)
			case v == vTrue && t.witSure[i]:
				continue
			default:
				l, k = e.fo.atomLit(&t.wit[i])
			}
		} else if st.witVals[i] == vTrue {
			continue
		}
		if k == nFalse {
			return
		}
		if k == nLit {
			lits[n] = l
			if st.witLits[i] != noLit {
				known |= 1 << n
			}
			n++
		}
	}
	// Settle as and does, in order; the literals left gather in lits[:m].
	// The leading ones known need no settling and stay where they are
	// (n is below 32, so bit n of ^known is set and m is at most n).
	m := bits.TrailingZeros32(^known)
	for i := m; i < n; i++ {
		l := lits[i]
		if known&(1<<i) == 0 {
			switch e.fo.settledLit(l) {
			case nFalse:
				return
			case nTrue:
				continue
			}
		}
		lits[m] = l
		m++
	}
	switch m {
	case 0:
		e.scr.cparts = append(e.scr.cparts, cpart{n: -1})
		e.scr.inst.truePart = true
	case 1:
		e.scr.cparts = append(e.scr.cparts, cpart{lit: lits[0]})
	default:
		// Copied literal by literal into room the buffer has (it is
		// kept across instances): two or three, not worth memmove.
		conj := e.scr.conj
		start := len(conj)
		if cap(conj)-start < m {
			conj = slices.Grow(conj, m)
		}
		conj = conj[:start+m]
		for i, l := range lits[:m] {
			conj[start+i] = l
		}
		e.scr.conj = conj
		e.scr.cparts = append(e.scr.cparts, cpart{at: int32(start), n: int32(m)})
	}
}

// cfoldMB is cfold for a witness match ∧ b (template.witMB) whose
// candidates witGen reads (no used(o) conjunct): foldMB over the
// literals and values knownWit left in witLits and witVals.
func (gr *grounder) cfoldMB(t *template) {
	e := gr.e
	st := &e.scr.inst
	gr.foldMB(t, st.witLits[0], st.witVals[0], st.witLits[1], st.witVals[1])
}

// foldMB folds a witness match ∧ b (template.witMB) into the clause's
// parts, given what knownWit (or witnessMB) found for its match atom
// (lm, km) and its b atom (lb, kb): a literal is noLit when the atom has
// no variable (or labels or real time decided it), and then the atom is
// read or made here; the loop over the atoms and the settling of cfold
// written out for its two literals.
func (gr *grounder) foldMB(t *template, lm Lit, km tri, lb Lit, kb tri) {
	e := gr.e
	st := &e.scr.inst
	// lm and lb become the atoms' literals, noLit when true; known says
	// that witnessMB found the literal and read its value, unknown, so it
	// needs no settling.
	knownM, knownB := false, false
	if lm != noLit {
		if km == vTrue {
			lm = noLit
		} else {
			knownM = true
		}
	} else {
		var k nodeKind
		switch {
		case km == vUnknown && t.witFresh[0]:
			lm, k = e.fo.absentLit(&t.wit[0], t.witSrc == 0)
		case km == vTrue && t.witSure[0]:
			k = nTrue
		default:
			lm, k = e.fo.atomLit(&t.wit[0])
		}
		switch k {
		case nFalse:
			return
		case nTrue:
			lm = noLit
		}
	}
	if lb != noLit {
		if kb == vTrue {
			lb = noLit
		} else {
			knownB = true
		}
	} else {
		var k nodeKind
		switch {
		case kb == vUnknown && t.witFresh[1]:
			lb, k = e.fo.absentLit(&t.wit[1], t.witSrc == 1)
		case kb == vTrue && t.witSure[1]:
			k = nTrue
		default:
			lb, k = e.fo.atomLit(&t.wit[1])
		}
		switch k {
		case nFalse:
			return
		case nTrue:
			lb = noLit
		}
	}
	// Settle as and does, in order.
	if lm != noLit && !knownM {
		switch e.fo.settledLit(lm) {
		case nFalse:
			return
		case nTrue:
			lm = noLit
		}
	}
	if lb != noLit && !knownB {
		switch e.fo.settledLit(lb) {
		case nFalse:
			return
		case nTrue:
			lb = noLit
		}
	}
	switch {
	case lm == noLit && lb == noLit:
		e.scr.cparts = append(e.scr.cparts, cpart{n: -1})
		st.truePart = true
	case lb == noLit:
		e.scr.cparts = append(e.scr.cparts, cpart{lit: lm})
	case lm == noLit:
		e.scr.cparts = append(e.scr.cparts, cpart{lit: lb})
	default:
		conj := e.scr.conj
		start := len(conj)
		conj = append(conj, lm, lb)
		e.scr.conj = conj
		e.scr.cparts = append(e.scr.cparts, cpart{at: int32(start), n: 2})
	}
}

// cassert is assert for the folded disjunction parts.
func (gr *grounder) cassert(parts []cpart, extra []Lit) {
	e := gr.e
	for _, p := range parts {
		if p.n < 0 {
			return // a true witness: the instance holds
		}
	}
	switch len(parts) {
	case 0:
		e.emit(extra)
		return
	case 1:
		p := parts[0]
		if p.n == 0 {
			if e.fo.isTrueLit(p.lit) {
				return
			}
			gr.emitWith(extra, p.lit)
			return
		}
		for _, l := range e.scr.conj[p.at : p.at+p.n] {
			if !e.fo.isTrueLit(l) {
				gr.emitWith(extra, l)
			}
		}
		return
	}
	for _, p := range parts {
		if p.n == 0 && e.fo.isTrueLit(p.lit) {
			return
		}
	}
	cl := append(e.scr.cclause[:0], extra...)
	for _, p := range parts {
		if p.n == 0 {
			cl = append(cl, p.lit)
			continue
		}
		aux := e.fo.aux()
		for _, l := range e.scr.conj[p.at : p.at+p.n] {
			if !e.fo.isTrueLit(l) {
				e.emit2(aux.Not(), l)
			}
		}
		cl = append(cl, aux)
	}
	e.scr.cclause = cl
	e.emit(cl)
}

// emitWith emits extra ∨ l.
func (gr *grounder) emitWith(extra []Lit, l Lit) {
	e := gr.e
	cl := append(append(e.scr.cclause[:0], extra...), l)
	e.scr.cclause = cl
	e.emit(cl)
}

// cwitnessHolds is witnessHolds through the template.
func (gr *grounder) cwitnessHolds(a *axiom, win []*Op, nf int) bool {
	e := gr.e
	if e.lazy == nil {
		return false
	}
	g := a.witGen
	if g == nil {
		return gr.witHoldsAmong(a, nf, win)
	}
	if !g.asX || !e.ptn.virt {
		mark := len(e.scr.pbuf)
		holds := gr.witHoldsAmong(a, nf, e.ptn.partners(g, e.scr.env))
		e.scr.pbuf = e.scr.pbuf[:mark]
		return holds
	}
	// Any witness will do, in any order: the stored partners, then the
	// pending ones (partners.go), without merging them; the pending ones
	// are listed only when no stored one is a true witness (most often
	// one is).
	x := e.scr.env[g.from]
	if !a.tmpl.witOwn || len(x.asX) > maxHeld {
		if gr.witHoldsAmong(a, nf, x.asX) {
			return true
		}
	} else {
		// The stored partners have returned (e.ptn.virt: partners.go). What
		// knownWit finds for them is kept for cleaf's witnesses, which
		// look at them again when none is true.
		st := &e.scr.inst
		for i, o := range x.asX {
			e.scr.env[nf] = o
			r := gr.knownWit(a.tmpl)
			if r == vTrue {
				return true
			}
			st.heldLits[i], st.heldVals[i], st.heldRes[i] = st.witLits, st.witVals, r
		}
		st.nheld = len(x.asX)
	}
	for _, o := range e.ptn.pendingFor(x.Label.Method) {
		if o.usedVar == z.LitNull || e.val(o.usedVar) != 1 || !e.ptn.pendingMayMatch(x, o) {
			continue
		}
		e.scr.env[nf] = o
		if gr.witTrue(a.tmpl) {
			return true
		}
	}
	return false
}

// witHoldsAmong reports whether a candidate of cands is a true witness.
//
// It is not inlined, nor is witTrue: inlined into cwitnessHolds under
// PGO they made it too big to be inlined at cleaf, once per instance,
// where it runs far more often than they do.
//
//go:noinline
func (gr *grounder) witHoldsAmong(a *axiom, nf int, cands []*Op) bool {
	e := gr.e
	for _, o := range cands {
		if o.pending() && (o.usedVar == z.LitNull || e.val(o.usedVar) != 1) {
			continue
		}
		e.scr.env[nf] = o
		if gr.witTrue(a.tmpl) {
			return true
		}
	}
	return false
}

// witTrue reports whether knownWit(t) is vTrue, stopping at the first
// atom not known true. It leaves witLits alone: only cwitness reads
// them, right after the knownWit that wrote them.
//
// Not inlined: see witHoldsAmong.
//
//go:noinline
func (gr *grounder) witTrue(t *template) bool {
	for i := range t.wit {
		if k, _ := gr.e.fo.knownAtom(&t.wit[i]); k != vTrue {
			return false
		}
	}
	return true
}

func (gr *grounder) leaf(a *axiom, win []*Op, ante, rest []*node, extra []Lit) {
	e := gr.e
	nf := len(a.Forall)
	// First, as a quarter of the instances stop here: it needs none of
	// what follows.
	if a.wit != nil && gr.witnessHolds(a, win, nf) {
		return
	}
	e.scr.cur = append(e.scr.cur[:0], e.scr.env[:nf]...)
	gr.curAxiom = a.Axiom // origin.go
	defer func() { e.scr.cur, gr.curAxiom = e.scr.cur[:0], nil }()
	// The disjuncts are gathered in a buffer kept across calls: or copies
	// them into the arena, and leaf is not reentered before that.
	parts := e.scr.parts[:0]
	defer func() { e.scr.parts = parts[:0] }()
	// ¬(used(x̄) ∧ ante); the guard of a variable bound in a match atom
	// of the antecedent is implied by that atom (match ⇒ used).
	for j, o := range e.scr.env[:nf] {
		dup := a.guarded[j]
		for _, p := range e.scr.env[:j] {
			if p == o {
				dup = true
			}
		}
		if !dup {
			parts = append(parts, e.fo.not(e.fo.usedNode(o)))
		}
	}
	for _, n := range ante {
		parts = append(parts, e.fo.not(n))
	}
	parts = append(parts, rest...)
	if a.wit != nil {
		gr.witnesses(a, win, nf, &parts)
	}
	n := e.fo.or(parts...)
	if n.kind == nTrue {
		return
	}
	e.fo.assert(n, extra)
}

// witnessHolds reports, for SATURATE, whether some witness of a
// single-∃ instance is already true under the saturator's assignment and
// real time, looking only at variables that exist. Such an instance
// would be emitted with its witness's helper t in the clause: t's
// definition is satisfied, so t can never become false, and the clause
// can never propagate. Skipping it before the witnesses are grounded also
// spares the match variables of the other candidates (a pending remove
// for every add of the window), which are created for nothing else.
func (gr *grounder) witnessHolds(a *axiom, win []*Op, nf int) bool {
	e := gr.e
	if e.lazy == nil || len(a.Exists) != 1 {
		return false
	}
	mark := len(e.scr.pbuf)
	cands := win
	if g := a.witGen; g != nil {
		cands = e.ptn.partners(g, e.scr.env)
	}
	holds := false
	for _, o := range cands {
		if o.pending() && (o.usedVar == z.LitNull || e.val(o.usedVar) != 1) {
			continue
		}
		e.scr.env[nf] = o
		if eval3(a.wit, e.fo.known) == vTrue {
			holds = true
			break
		}
	}
	e.scr.pbuf = e.scr.pbuf[:mark]
	return holds
}

// witnesses appends ∨ȳ used(ȳ) ∧ wit(x̄,ȳ) over the window.
func (gr *grounder) witnesses(a *axiom, win []*Op, j int, parts *[]*node) {
	e := gr.e
	if j == a.Vars() {
		// A witness that constants (real time above all) or the
		// saturator already falsify is left out before it is folded:
		// folding creates its match variable, and with it MATCH's and
		// INJECTIVE's clauses and a return variable, all for a disjunct
		// that can never hold.
		if eval3(a.wit, e.fo.known) == vFalse {
			return
		}
		var buf [4]*node
		conj := buf[:0]
		// A witness bound by a match atom needs no used() guard: a match
		// variable implies used() of its pending operations (see
		// variable), so the guard adds nothing unit propagation does
		// not already derive, and cost a clause per pending candidate.
		if a.witGen == nil {
			for _, o := range e.scr.env[len(a.Forall):] {
				conj = append(conj, e.fo.usedNode(o))
			}
		}
		conj = append(conj, e.fo.fold(a.wit, false))
		*parts = append(*parts, e.fo.and(conj...))
		return
	}
	mark := len(e.scr.pbuf)
	cands := win
	if g := a.witGen; g != nil && j == len(a.Forall) && len(a.Exists) == 1 {
		cands = e.ptn.partners(g, e.scr.env)
	}
	for _, o := range cands {
		e.scr.env[j] = o
		gr.witnesses(a, win, j+1, parts)
	}
	e.scr.pbuf = e.scr.pbuf[:mark]
}
