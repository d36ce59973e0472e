package encode

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

// The compiled kernel. Each axiom is compiled once, when the encoder is
// built, into a grounding template: the plan's candidate sources per level
// (plan.gen, plan.meth), the checks of each level and the witness as atoms
// coded as small structs, and the clause written straight into a buffer.
// Grounding an instance through the template calls no formula interpreter
// and builds no formula nodes; what it emits is, clause for clause and
// variable for variable, what the interpreter (rec, fold, leaf) emits,
// which stays the reference (TestCompiledAgreesWithInterpreter). Axioms
// the template does not cover (a relation computed from labels, a
// compound check, a witness that is not a conjunction of atoms, several ∃
// variables, LIMIT) are grounded by the interpreter.

// catom is an atom coded for the template: its kind, its variables, its
// method or value, and whether it is negated.
type catom struct {
	kind theory.Kind
	neg  bool
	x, y int
	m    h.Method
	v    h.Value
}

// ccheck is a check of a plan level: an antecedent conjunct (an instance
// is pruned when it is false) or a rest disjunct (pruned when true).
type ccheck struct {
	atom catom
	ante bool
}

// clevel is a level of a plan as the template reads it: what the plan
// keeps in per-level slices (instances.go), gathered in one struct.
type clevel struct {
	v      int      // the variable bound
	gen    *source  // plan.gen
	meth   h.Method // plan.meth
	checks []ccheck
	cuts   []rtCut   // plan.cuts
	feeds  []*source // plan.feeds
	// tied: FUNCTION's level whose candidates are byArg when the kernel
	// ties values (see rec).
	tied bool
	// label: the first label checks are meth(v) = m, or ret(v) = val
	// with val not ⊥, possibly negated: the candidate's label decides
	// them (once it has returned, for ret), and cbind reads the label
	// rather than folding the atoms. Such a check often prunes nearly
	// every candidate (EMPTY's ret(e) = empty at an add's return).
	label int
	// quick: the level is the plan's last, its checks are all order
	// atoms, and the witness is template.quick's with its x the level's
	// variable: crec may pass over a candidate of a closed instance that
	// quickHolds finds grounds nothing.
	quick bool
	// feedSides has bit 0 set when a feed reads partners as x (asX), bit
	// 1 when one reads them as y (feedMethod).
	feedSides uint8
	// self is the variable u bound earlier such that binding the level's
	// variable v to u's operation is pruned by the level's first check,
	// before anything is folded, or -1: the check is b(v,u) or b(u,v),
	// an antecedent conjunct (¬b(…) a rest disjunct), with no label
	// check before it, and real time makes b(o,o) false without a
	// variable (bLitKind). crec leaves that candidate out before calling
	// cbind, which would bind it only to prune it (FIFO's a1 = a2 at a
	// dequeue's return, LIFO's at an add's).
	self int
	// storedOnly: the level's candidates have a source (gen) and nothing
	// else narrows them (no cuts, tie or quick shortcut): crec takes a
	// closed instance's from the stored partners at once.
	storedOnly bool
	// direct: the level is a fixed plan's first, whose candidates are
	// the fixed operation alone (no source, cuts, tie or quick
	// shortcut): crecFixed binds it without crec.
	direct bool
}

// template is an axiom's compiled grounding.
type template struct {
	levels      []clevel   // for plan
	fixedLevels [][]clevel // for fixedPlans[f]
	// fixedFor[m] has bit f set when an operation of method m may be
	// bound first at variable f: fixedLevels[f]'s first level requires no
	// method, or m (instances).
	fixedFor [memoMethods]uint32
	// At the return of an operation o of method m (instances' fast
	// path), the fixed plans entered are those of fixedMeth[m], minus
	// those of fixedAsX when o has no stored partner as x, those of
	// fixedAsY when it has none as y (noReturnedPartners), and those of
	// fixedRet whose first level's label checks o's return value prunes
	// (labelPrunes). fixedMeth[m] is fixedFor[m] minus the plans whose
	// first level has a label check meth(v) = m' that m alone prunes:
	// o has returned, so labelPrunes reads all of a level's label checks,
	// and it prunes when any one of them does, whatever the others are.
	fixedMeth          [memoMethods]uint32
	fixedAsX, fixedAsY uint32
	fixedRet           uint32
	// wit is the witness as a conjunction of atoms; hasWit says whether
	// there is one (an empty conjunction is true).
	wit    []catom
	hasWit bool
	// witFresh[i]: wit[i] is a b or match atom whose variable no other
	// atom of its kind in the witness names. knownWit's look-up of it,
	// when it finds none, then holds until cwitness folds it: folding the
	// atoms before it makes only their own variables (and used and ret
	// ones, by makeVar's side clauses; a match variable makes no b one,
	// and a b variable no match one, so ADDREM's match(a,r) ∧ b(a,r)
	// has both atoms fresh), so cwitness makes it without looking it up
	// again.
	witFresh []bool
	// witSure[i]: knownAtom finding wit[i] true without a literal
	// decided it by labels or real time, and atomLit folds it to true
	// without making a variable, so cfold passes over it. Every atom but
	// a negated match one, which knownAtom finds true when a true match
	// variable excludes the pair (excluded), while atomLit makes its
	// variable.
	witSure []bool
	// witOwn: every atom of the witness names the witness: two
	// candidates' atoms have no variable in common.
	witOwn bool
	// witSrc is the index in wit of the match atom witGen reads the
	// candidates from (-1 if none): every witness candidate is a partner
	// of the operation witGen names, so MATCH's labels allow the pair,
	// and absentLit need not ask matchPossible again.
	witSrc int
	// witMB: the witness is match(x,y) ∧ b(u,w), neither negated (every
	// ∀∃ axiom of the queue, stack and priority queue kernels: the
	// witness is matched and ordered). knownWit reads the two atoms
	// without knownAtom's dispatch on kinds and negation.
	witMB bool
	// quick: the witness is match(g,y) ∧ b(y,u) or match(g,y) ∧ b(u,y)
	// (witMB, quickYFirst for the first) with u a universal variable
	// (quickU) and its match atom the one witGen reads, as x's stored
	// partners (asX) with g bound to x: quickHolds reads x's true match
	// variable.
	quick       bool
	quickYFirst bool
	quickU      int
	// witCut is u when the witness has a conjunct b(y,u), y its variable
	// and u a universal one, else -1. Real time makes the conjunct, and
	// so the witness, false for every candidate y called after u
	// returned (witLimit): knownWit would find it so, and such a
	// candidate is passed over before it is looked at.
	witCut int
}

// maxHeld bounds the stored partners whose witness findings
// cwitnessHolds keeps for cleaf.
const maxHeld = 4

// compileAtom codes f, an atom or a negated atom, or reports that it
// cannot.
func compileAtom(f *theory.Formula) (catom, bool) {
	neg := false
	if f.Kind == theory.KNot {
		neg, f = true, f.Args[0]
	}
	switch f.Kind {
	case theory.KMeth, theory.KRet, theory.KArgEq, theory.KArgRet, theory.KArgLess,
		theory.KEq, theory.KB, theory.KMatch, theory.KUsed:
		return catom{kind: f.Kind, neg: neg, x: f.X, y: f.Y, m: f.M, v: f.V}, true
	}
	return catom{}, false
}

// compilePlan compiles pl, a fixed plan (its first variable bound to one
// given operation) when fixed is set.
func compilePlan(a *axiom, pl *plan, fixed bool) ([]clevel, bool) {
	n := 0
	for _, cs := range pl.checks {
		n += len(cs)
	}
	if n > maxChecks {
		return nil, false
	}
	out := make([]clevel, len(pl.checks))
	for l, cs := range pl.checks {
		v := pl.order[l]
		lv := &out[l]
		lv.v, lv.gen, lv.meth, lv.cuts = v, pl.gen[l], pl.meth[l], pl.cuts[l]
		if pl.feeds != nil {
			lv.feeds = pl.feeds[l]
			for _, g := range lv.feeds {
				if g.asX {
					lv.feedSides |= 1
				} else {
					lv.feedSides |= 2
				}
			}
		}
		lv.tied = a.shape == shapeFunction && (v == 0 || v == 1) && containsInt(pl.order[:l], 1-v)
		// A level whose candidates are the window's operations of its
		// method (crec: no partner source, not FUNCTION's byArg, not the
		// given operation) binds only operations of that method: the
		// conjunct meth(v) = m that chose them is true for each, and
		// folding it would leave nothing.
		byMeth := lv.gen == nil && lv.meth != h.NoMethod && !lv.tied && !(fixed && l == 0)
		for _, c := range cs {
			ca, ok := compileAtom(c.f)
			if !ok {
				return nil, false
			}
			if byMeth && c.ante && ca.kind == theory.KMeth && !ca.neg && ca.x == v && ca.m == lv.meth {
				continue
			}
			lv.checks = append(lv.checks, ccheck{atom: ca, ante: c.ante})
		}
		lv.self = -1
		if len(lv.checks) > 0 {
			if c := lv.checks[0]; c.atom.kind == theory.KB && c.ante != c.atom.neg && (c.atom.x == v) != (c.atom.y == v) {
				lv.self = c.atom.x + c.atom.y - v
			}
		}
		for _, c := range lv.checks {
			if ca := c.atom; ca.x != v || ca.kind != theory.KMeth && (ca.kind != theory.KRet || ca.v == theory.Bottom) {
				break
			}
			lv.label++
		}
	}
	return out, true
}

// compile returns a's template, or nil when the interpreter grounds a.
func compile(a *axiom) *template {
	if a.shape == shapeLimit || len(a.Exists) > 1 {
		return nil
	}
	t := &template{witSrc: -1, witCut: -1}
	var ok bool
	if t.levels, ok = compilePlan(a, &a.plan, false); !ok {
		return nil
	}
	for i := range a.fixedPlans {
		ls, ok := compilePlan(a, &a.fixedPlans[i], true)
		if !ok {
			return nil
		}
		t.fixedLevels = append(t.fixedLevels, ls)
	}
	if len(t.fixedLevels) > 32 {
		return nil // fixedFor's bits
	}
	for m := range t.fixedFor {
		for f, ls := range t.fixedLevels {
			if ls[0].meth == h.NoMethod || ls[0].meth == h.Method(m) {
				t.fixedFor[m] |= 1 << f
				if !methPrunes(&ls[0], h.Method(m)) {
					t.fixedMeth[m] |= 1 << f
				}
			}
		}
	}
	for f, ls := range t.fixedLevels {
		if len(a.Forall) > 1 {
			if g := ls[1].gen; g != nil && g.from == f {
				if g.asX {
					t.fixedAsX |= 1 << f
				} else {
					t.fixedAsY |= 1 << f
				}
			}
		}
		for _, c := range ls[0].checks[:ls[0].label] {
			if c.atom.kind != theory.KMeth {
				t.fixedRet |= 1 << f
			}
		}
	}
	if a.wit != nil {
		if len(a.Exists) != 1 {
			return nil
		}
		t.hasWit = true
		ws := []*theory.Formula{a.wit}
		if a.wit.Kind == theory.KAnd {
			// Only a flat conjunction: fold stops at the first constant
			// false conjunct, and the template must stop at the same one.
			ws = a.wit.Args
		}
		if len(ws) > maxWit {
			return nil
		}
		for _, f := range ws {
			ca, ok := compileAtom(f)
			if !ok {
				return nil
			}
			t.wit = append(t.wit, ca)
		}
		for i, ca := range t.wit {
			fresh := ca.kind == theory.KB || ca.kind == theory.KMatch
			for j, cb := range t.wit {
				if j != i && cb.kind == ca.kind &&
					(cb.x == ca.x && cb.y == ca.y || cb.x == ca.y && cb.y == ca.x) {
					fresh = false
				}
			}
			t.witFresh = append(t.witFresh, fresh)
			t.witSure = append(t.witSure, ca.kind != theory.KMatch || !ca.neg)
		}
		ex := len(a.Forall)
		if g := a.witGen; g != nil {
			for i, ca := range t.wit {
				if ca.kind == theory.KMatch && !ca.neg &&
					(g.asX && ca.x == g.from && ca.y == ex || !g.asX && ca.x == ex && ca.y == g.from) {
					t.witSrc = i
					break
				}
			}
		}
		for _, ca := range t.wit {
			if ca.kind == theory.KB && !ca.neg && ca.x == ex && ca.y < ex {
				t.witCut = ca.y
				break
			}
		}
		t.witMB = len(t.wit) == 2 && t.wit[0].kind == theory.KMatch && !t.wit[0].neg &&
			t.wit[1].kind == theory.KB && !t.wit[1].neg
		if cb := t.wit[len(t.wit)-1]; t.witMB && t.witSrc == 0 && a.witGen.asX && (cb.x == ex) != (cb.y == ex) {
			t.quick, t.quickYFirst, t.quickU = true, cb.x == ex, cb.y
			if cb.y == ex {
				t.quickU = cb.x
			}
			for _, lvs := range append([][]clevel{t.levels}, t.fixedLevels...) {
				lv := &lvs[len(lvs)-1]
				lv.quick = lv.v == a.witGen.from && lv.v != t.quickU
				for _, c := range lv.checks {
					lv.quick = lv.quick && c.atom.kind == theory.KB
				}
			}
		}
		t.witOwn = true
		for _, ca := range t.wit {
			switch ca.kind {
			case theory.KMeth, theory.KRet, theory.KUsed:
				t.witOwn = t.witOwn && ca.x == ex
			default:
				t.witOwn = t.witOwn && (ca.x == ex || ca.y == ex)
			}
		}
	}
	for _, lvs := range t.fixedLevels {
		lv := &lvs[0]
		lv.direct = lv.gen == nil && len(lv.cuts) == 0 && !lv.tied && !lv.quick
	}
	for _, lvs := range append([][]clevel{t.levels}, t.fixedLevels...) {
		for i := range lvs {
			lv := &lvs[i]
			lv.storedOnly = lv.gen != nil && len(lv.cuts) == 0 && !lv.tied && !lv.quick
		}
	}
	return t
}

// noLit stands for no literal, next to a constant kind.
const noLit = z.LitNull

// maxWit bounds the atoms of a compiled witness, which cwitness folds
// into an array (every kernel's have at most 3).
const maxWit = 8

// maxChecks bounds the checks of a compiled plan, whose literals cbind
// keeps in arrays (every kernel's have at most 5).
const maxChecks = 16

// atomLit grounds atom c under e.env as fold does: a literal (kind nLit)
// or a constant (nTrue, nFalse), creating the same variables.
func (gr *folder) atomLit(c *catom) (Lit, nodeKind) {
	e := gr.e
	env := e.scr.env
	var l Lit
	k := nLit
	switch c.kind {
	case theory.KMeth:
		k = constKind(env[c.x].Label.Method == c.m)
	case theory.KRet:
		l, k = gr.retLit(env[c.x], c.v)
	case theory.KArgEq:
		k = constKind(env[c.x].Label.Arg == env[c.y].Label.Arg)
	case theory.KArgRet:
		l, k = gr.retLit(env[c.y], env[c.x].Label.Arg)
	case theory.KArgLess:
		k = constKind(env[c.x].Label.Prio < env[c.y].Label.Prio)
	case theory.KEq:
		k = constKind(env[c.x] == env[c.y])
	case theory.KB:
		l, k = gr.bLitKind(env[c.x], env[c.y])
	case theory.KMatch:
		l, k = gr.matchLit(env[c.x], env[c.y])
	case theory.KUsed:
		if o := env[c.x]; o.pending() {
			l = e.used(o)
		} else {
			k = nTrue
		}
	}
	if c.neg {
		l, k = negLit(l, k)
	}
	return l, k
}

// negLit negates a literal or constant as atomLit returns it.
func negLit(l Lit, k nodeKind) (Lit, nodeKind) {
	switch k {
	case nTrue:
		return l, nFalse
	case nFalse:
		return l, nTrue
	}
	return l.Not(), k
}

func constKind(b bool) nodeKind {
	if b {
		return nTrue
	}
	return nFalse
}

// retLit is retNode without the node.
func (gr *folder) retLit(o *Op, v h.Value) (Lit, nodeKind) {
	e := gr.e
	if !o.pending() {
		return noLit, constKind(o.Label.Ret == v)
	}
	if v == theory.Bottom {
		return e.used(o).Not(), nLit
	}
	if l, ok := o.rets.get(v); ok {
		return l, nLit
	}
	if !e.lab.retPossible(o, v) {
		return noLit, nFalse
	}
	return e.variable(varKey{kind: vRet, x: o.Serial, v: v, xo: o}), nLit
}

// bLitKind is bNode without the node.
func (gr *folder) bLitKind(x, y *Op) (Lit, nodeKind) {
	e := gr.e
	switch realTime(x, y) {
	case vTrue:
		return noLit, nTrue
	case vFalse:
		return noLit, nFalse
	}
	if e.k.Sequential {
		if x.Serial < y.Serial {
			return e.pairVar(vB, x, y), nLit
		}
		return e.pairVar(vB, y, x).Not(), nLit
	}
	return e.pairVar(vB, x, y), nLit
}

// matchLit is matchNode without the node.
func (gr *folder) matchLit(x, y *Op) (Lit, nodeKind) {
	e := gr.e
	if x == y && e.k.Object != h.Exchanger {
		return noLit, nFalse
	}
	if v, ok := e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key()); ok {
		return v, nLit
	}
	if !e.lab.matchPossible(x, y) {
		return noLit, nFalse
	}
	return e.makeVar(&varKey{kind: vMatch, x: x.Serial, y: y.Serial, xo: x, yo: y}), nLit // not found above
}

// absentLit is atomLit for a b or match atom that knownAtom found
// undecided with no variable: it makes the variable without looking it
// up again (real time, which knownAtom read, leaves a b atom open).
// partner says that the atom is the match atom between a witness and
// the operation whose partner it is (template.witSrc): the pair is
// possible.
func (gr *folder) absentLit(c *catom, partner bool) (Lit, nodeKind) {
	e := gr.e
	x, y := e.scr.env[c.x], e.scr.env[c.y]
	var l Lit
	if c.kind == theory.KMatch {
		if x == y && e.k.Object != h.Exchanger || !partner && !e.lab.matchPossible(x, y) {
			if c.neg {
				return noLit, nTrue
			}
			return noLit, nFalse
		}
		l = e.makeVar(&varKey{kind: vMatch, x: x.Serial, y: y.Serial, xo: x, yo: y})
	} else if !e.k.Sequential || x.Serial < y.Serial {
		l = e.makeVar(&varKey{kind: vB, x: x.Serial, y: y.Serial, xo: x, yo: y})
	} else {
		l = e.makeVar(&varKey{kind: vB, x: y.Serial, y: x.Serial, xo: y, yo: x}).Not()
	}
	if c.neg {
		l = l.Not()
	}
	return l, nLit
}

// settledLit is settled for a literal: nTrue or nFalse when the saturator
// has assigned it (SATURATE only), else nLit.
func (gr *folder) settledLit(l Lit) nodeKind {
	switch gr.e.val(l) {
	case 1:
		return nTrue
	case -1:
		return nFalse
	}
	return nLit
}

// knownAtom is known for a coded atom. It also returns the atom's
// literal when it found the variable (z.LitNull otherwise): the atom
// folds to that literal (see witLits). Each kind either decides the atom
// by labels and real time or finds its variable, whose value is then
// read in one place.
func (gr *folder) knownAtom(c *catom) (tri, Lit) {
	e := gr.e
	env := e.scr.env
	t := vUnknown
	var l Lit // the atom's variable (positive), if it exists
	switch c.kind {
	case theory.KMeth:
		t = triOf(env[c.x].Label.Method == c.m)
	case theory.KRet:
		if c.v == theory.Bottom {
			return vUnknown, noLit
		}
		if o := env[c.x]; !o.pending() {
			t = triOf(o.Label.Ret == c.v)
		} else {
			l, _ = o.rets.get(c.v) // z.LitNull when missing
		}
	case theory.KArgEq:
		t = triOf(env[c.x].Label.Arg == env[c.y].Label.Arg)
	case theory.KArgRet:
		if o, v := env[c.y], env[c.x].Label.Arg; !o.pending() {
			t = triOf(o.Label.Ret == v)
		} else {
			l, _ = o.rets.get(v)
		}
	case theory.KArgLess:
		t = triOf(env[c.x].Label.Prio < env[c.y].Label.Prio)
	case theory.KEq:
		t = triOf(env[c.x] == env[c.y])
	case theory.KB:
		x, y := env[c.x], env[c.y]
		if t = realTime(x, y); t == vUnknown {
			// As bExisting: in a sequential kernel b(y,x) is ¬b(x,y).
			if !e.k.Sequential || x.Serial < y.Serial {
				l, _ = e.reg.vars.get(varPair{vB, int32(x.Serial), int32(y.Serial)}.key())
			} else if r, ok := e.reg.vars.get(varPair{vB, int32(y.Serial), int32(x.Serial)}.key()); ok {
				l = r.Not()
			}
		}
	case theory.KMatch:
		x, y := env[c.x], env[c.y]
		var ok bool
		// excluded needs a true match variable in x's row or y's column.
		if l, ok = e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key()); !ok &&
			(x.trueAsX != noLit || y.trueAsY != noLit) && e.match.excluded(x, y) {
			t = vFalse
		}
	case theory.KUsed:
		if o := env[c.x]; !o.pending() {
			t = vTrue
		} else {
			l = o.usedVar
		}
	}
	if l != noLit {
		switch e.val(l) {
		case 1:
			t = vTrue
		case -1:
			t = vFalse
		}
	}
	if c.neg {
		if l != noLit {
			l = l.Not()
		}
		switch t {
		case vTrue:
			return vFalse, l
		case vFalse:
			return vTrue, l
		}
	}
	return t, l
}

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

// crec is rec through the template: the folded checks are literals in
// st.lante[:st.na] and st.lrest[:st.nr] (constants that cannot prune are left out, as the
// interpreter's disjunction drops them).
func (gr *enumerator) crec(st *instState, level int) {
	e := gr.e
	if e.poll() {
		return
	}
	if level == st.nf {
		if !gr.openDone(st) {
			e.gr.cleaf(st)
		}
		return
	}
	lv := &st.clv[level]
	v := lv.v
	if lv.storedOnly && st.closed && v != st.fixed {
		// The case below for a closed instance's level whose candidates
		// are the stored partners of an operation bound earlier, with
		// no cuts, tie or quick shortcut to narrow them: each one
		// returned, not the self variable's, with returned partners for
		// the later levels, is bound.
		var self *Op
		if lv.self >= 0 {
			self = e.scr.env[lv.self]
		}
		for _, o := range lv.gen.stored(e.scr.env) {
			if o != self && !o.pending() && (lv.feeds == nil || !gr.noReturnedPartner(lv.feeds, o)) {
				gr.cbind(st, lv, level, o, false, true)
			}
		}
		return
	}
	cands, full := st.win, true
	m := lv.meth
	mark := len(e.scr.pbuf)
	if g := lv.gen; g != nil && st.closed {
		// A closed instance binds only returned operations, and the
		// stored partners hold every returned one, in the same order as
		// partners lists them (partners.go): the pending ones are not
		// merged in only to be skipped.
		cands, full, m = g.stored(e.scr.env), false, h.NoMethod
	} else if g != nil {
		cands, full, m = e.ptn.partners(g, e.scr.env), false, h.NoMethod
	} else if m != h.NoMethod {
		cands = e.tab.opsOf(m)
	} else if lv.feedSides != 0 && st.closed {
		// Only operations with a returned partner on each side a later
		// level reads are bound (noReturnedPartner); when the methods
		// MATCH allows on those sides leave one, the level visits that
		// method's operations, in the same order, as if it were the
		// level's (LIFO's a1 at an add's return, FIFO's a2 at an add's:
		// the adds, not the window).
		if fm := gr.feedMethod(st, lv); fm != h.NoMethod {
			cands, m = e.tab.opsOf(fm), fm
		}
	}
	tied := lv.tied && e.valueTied
	if tied {
		cands, full = e.tab.byArg[e.scr.env[1-v].argID], false // see rec
	}
	if v == st.fixed {
		cands, full = st.one[:], false
	}
	var head, tail []*Op
	limit, admitted := math.MaxInt, true
	if len(lv.cuts) == 0 {
		tail = cands // levelRun without cuts
	} else {
		head, tail, limit, admitted = gr.levelRun(lv.cuts, cands, full)
	}
	// A closed instance binds no pending operation, nor one whose
	// partners a later level reads when none of them has returned
	// (noReturnedPartner), nor any instance the operation of the
	// level's self variable, which the first check prunes
	// (clevel.self; nil, which no candidate is, when there is none):
	// skipped here, before the call. The loops are written out for each
	// case, so that the common ones test nothing per candidate that is
	// the same for all.
	var self *Op
	if lv.self >= 0 {
		self = e.scr.env[lv.self]
	}
	switch {
	case !st.closed:
		for _, o := range head {
			if (m == h.NoMethod || o.Label.Method == m) && o != self {
				gr.cbind(st, lv, level, o, tied, false)
			}
		}
		for _, o := range tail {
			if o.Call > limit {
				break
			}
			if o != self {
				gr.cbind(st, lv, level, o, tied, admitted)
			}
		}
	case lv.quick && gr.quick:
		// As below, passing over the candidates quickHolds finds ground
		// nothing; one without a true match variable of its own
		// (clevel.quick: the witness's x is the level's variable) is
		// bound without asking it. Long tails of one method's list go
		// to quickTail, which passes over runs of them at once.
		for _, o := range head {
			if (m == h.NoMethod || o.Label.Method == m) && o != self && !o.pending() && (o.trueAsX == noLit || !gr.quickHolds(st, lv, o)) {
				gr.cbind(st, lv, level, o, tied, false)
			}
		}
		if len(tail) >= quickMin && (e.hk == nil || !e.hk.noRuns) && lv.gen == nil && !tied && v != st.fixed && m != h.NoMethod {
			gr.quickTail(st, lv, level, tail, limit, admitted)
			break
		}
		for _, o := range tail {
			if o.Call > limit {
				break
			}
			if o != self && !o.pending() && (o.trueAsX == noLit || !gr.quickHolds(st, lv, o)) {
				gr.cbind(st, lv, level, o, tied, admitted)
			}
		}
	case lv.feeds == nil && lv.label > 0:
		// As below, leaving out the candidates whose label prunes them
		// (labelPrunes), as cbind's first checks would: EMPTY's ret(e) =
		// empty at an add's return, over the dequeues that returned a
		// value.
		for _, o := range head {
			if (m == h.NoMethod || o.Label.Method == m) && o != self && !o.pending() && !labelPrunes(lv, o) {
				gr.cbind(st, lv, level, o, tied, false)
			}
		}
		for _, o := range tail {
			if o.Call > limit {
				break
			}
			if o != self && !o.pending() && !labelPrunes(lv, o) {
				gr.cbind(st, lv, level, o, tied, admitted)
			}
		}
	case lv.feeds == nil:
		for _, o := range head {
			if (m == h.NoMethod || o.Label.Method == m) && o != self && !o.pending() {
				gr.cbind(st, lv, level, o, tied, false)
			}
		}
		for _, o := range tail {
			if o.Call > limit {
				break
			}
			if o != self && !o.pending() {
				gr.cbind(st, lv, level, o, tied, admitted)
			}
		}
	default:
		for _, o := range head {
			if (m == h.NoMethod || o.Label.Method == m) && o != self && !o.pending() && !gr.noReturnedPartner(lv.feeds, o) {
				gr.cbind(st, lv, level, o, tied, false)
			}
		}
		for _, o := range tail {
			if o.Call > limit {
				break
			}
			if o != self && !o.pending() && !gr.noReturnedPartner(lv.feeds, o) {
				gr.cbind(st, lv, level, o, tied, admitted)
			}
		}
	}
	if len(e.scr.pbuf) != mark {
		e.scr.pbuf = e.scr.pbuf[:mark]
	}
}

// feedMethod is the one method whose operations can have partners on
// every side that lv's feeds read (clevel.feedSides; MATCH's methods:
// methAsX, methAsY), or h.NoMethod when there are several or none.
// Partner lists pair only operations whose methods MATCH allows
// (matchPossible), so an operation of another method has none there,
// and noReturnedPartner leaves it out. The method for each set of sides
// is found once per encoder, as the kernel's MATCH decides it.
func (gr *enumerator) feedMethod(st *instState, lv *clevel) h.Method {
	e := gr.e
	if !st.methsSet {
		var x, y uint16
		for m := range memoMethods {
			if e.lab.methAsX[m] != 0 {
				x |= 1 << m
			}
			if e.lab.methAsY[m] != 0 {
				y |= 1 << m
			}
		}
		for sides := range st.feedMeth {
			mask := ^uint16(0)
			if sides&1 != 0 {
				mask &= x
			}
			if sides&2 != 0 {
				mask &= y
			}
			st.feedMeth[sides] = h.NoMethod
			if mask != 0 && mask&(mask-1) == 0 {
				st.feedMeth[sides] = h.Method(bits.TrailingZeros16(mask))
			}
		}
		st.methsSet = true
	}
	return st.feedMeth[lv.feedSides]
}

// crecFixed is crec at the first level of a fixed plan of a closed
// instance whose must has returned (instances), which labelPrunes found
// does not prune it: its one candidate is must, bound without going
// through crec's candidate lists when the level takes them from nowhere
// else (clevel.direct), as crec would bind it: returned, and with a
// returned partner for every later level that reads its partners
// (noReturnedPartner).
func (gr *enumerator) crecFixed(st *instState) {
	e := gr.e
	lv := &st.clv[0]
	if !lv.direct {
		gr.crec(st, 0)
		return
	}
	if e.poll() {
		return
	}
	if lv.feeds != nil && gr.noReturnedPartner(lv.feeds, st.must) {
		return
	}
	if len(lv.checks) != lv.label {
		gr.cbind(st, lv, 0, st.must, false, true)
		return
	}
	// cbind, when the level's checks are all label checks, which must's
	// label does not prune (instances asked labelPrunes): nothing to
	// fold, must is bound and the next level entered.
	gr.bindings++
	e.scr.env[lv.v] = st.must
	st.clauseAt = e.clause
	if st.nf > 1 {
		gr.crec(st, 1)
	} else if !e.poll() {
		e.gr.cleaf(st) // openDone is false: must is given
	}
}

// quickHolds reports whether binding o at lv, the last level of a
// closed instance (clevel.quick), grounds nothing because its instance
// has a true witness, as cwitnessHolds would find it, and folding the
// level's checks makes no variable. Then cbind would either prune o or
// reach cleaf, which stops at cwitnessHolds, and passing over o derives
// the same (only the bindings count is lower). It looks at one
// candidate witness only: y, the partner of x = o (the level binds the
// witness's x) whose match variable is true (x.trueAsX). That
// variable is still match(x,y) when the table maps the pair to it (a
// forgotten or ruled-out one is not found there, and a recycled index
// stands for the pair its new meaning names); y has then returned and
// match(x,y) is possible, so y is one of x's stored partners, and
// knownWit finds the witness true when real time orders b(u,w). Anything
// else (no true match variable, a pending y, an order atom that real
// time leaves open in the witness, or in a check without a variable
// yet) is left to cbind. The cheap tests come first: most candidates
// that fail, fail at the first.
func (gr *enumerator) quickHolds(st *instState, lv *clevel, o *Op) bool {
	e := gr.e
	// o is the witness's x (clevel.quick).
	l := o.trueAsX
	if l == noLit || e.val(l) != 1 {
		return false
	}
	y := e.reg.varOps[l.Var()][1]
	if y == nil || y.pending() {
		return false
	}
	// The witness's b(y,u) or b(u,y), true by real time; u is bound at
	// an earlier level (compile).
	env := e.scr.env
	if t := st.a.tmpl; t.quickYFirst && !before(y, env[t.quickU]) || !t.quickYFirst && !before(env[t.quickU], y) {
		return false
	}
	if m, ok := e.reg.vars.get(varPair{vMatch, int32(o.Serial), int32(y.Serial)}.key()); !ok || m != l {
		return false
	}
	env[lv.v] = o
	// The checks, order atoms, as bLitKind folds them: a variable is
	// looked up, and made when missing, only when real time leaves the
	// atom open.
	for i := range lv.checks {
		c := &lv.checks[i].atom
		u, w := env[c.x], env[c.y]
		if u == w || before(u, w) || before(w, u) {
			continue // realTime decides it
		}
		if e.k.Sequential && u.Serial > w.Serial {
			u, w = w, u
		}
		if _, ok := e.reg.vars.get(varPair{vB, int32(u.Serial), int32(w.Serial)}.key()); !ok {
			return false
		}
	}
	e.scr.quickHits++
	return true
}

// cbind binds the variable of level lv to candidate o, folds the level's
// checks and goes down a level unless one prunes the tuple. admitted says
// that levelRun's run already applied the level's cuts to o; crec leaves
// out the candidates a closed instance does not bind.
func (gr *enumerator) cbind(st *instState, lv *clevel, level int, o *Op, tied, admitted bool) {
	e := gr.e
	v := lv.v
	if o == st.must && v < st.fixed {
		return
	}
	if e.fo.dropped(o) {
		return
	}
	if tied && e.scr.env[1-v].Label.Arg != o.Label.Arg {
		return
	}
	if !admitted && !gr.cutsAdmit(lv.cuts, o) {
		return
	}
	gr.bindings++
	// A label check is a constant, true or false, as atomLit would find
	// it without making a variable; a true antecedent conjunct or false
	// disjunct adds nothing.
	first := 0
	for ; first < lv.label; first++ {
		c := &lv.checks[first]
		var t bool
		if c.atom.kind == theory.KMeth {
			t = o.Label.Method == c.atom.m
		} else if o.pending() {
			break
		} else {
			t = o.Label.Ret == c.atom.v
		}
		if t == c.atom.neg == c.ante {
			return
		}
	}
	e.scr.env[v] = o
	if level == 0 {
		st.clauseAt = e.clause
	}
	na, nr := st.na, st.nr
	ok := true
	for i := first; i < len(lv.checks); i++ {
		c := &lv.checks[i]
		var l Lit
		var k nodeKind
		if c.atom.kind == theory.KB {
			// atomLit's case, without its dispatch: most checks below
			// the first level are order atoms (LIFO's b(a1,a2) and
			// b(a2,r1) at each a2).
			l, k = e.fo.bLitKind(e.scr.env[c.atom.x], e.scr.env[c.atom.y])
			if c.atom.neg {
				l, k = negLit(l, k)
			}
		} else {
			l, k = e.fo.atomLit(&c.atom)
		}
		if k == nLit {
			k = e.fo.settledLit(l)
		}
		if c.ante {
			if k == nFalse {
				ok = false
				break
			}
			if k == nLit {
				st.lante[st.na] = l
				st.na++
			}
		} else {
			if k == nTrue {
				ok = false
				break
			}
			if k == nLit {
				st.lrest[st.nr] = l
				st.nr++
			}
		}
	}
	if ok {
		if level+1 < st.nf {
			gr.crec(st, level+1)
		} else if !e.poll() && !gr.openDone(st) {
			// crec's leaf, without the call: one per instance.
			e.gr.cleaf(st)
		}
	}
	st.na, st.nr = na, nr
}

// openDone reports whether the instance bound in env, enumerated
// without a given operation (EmitOpen), was emitted for good when its
// last operation returned.
func (gr *enumerator) openDone(st *instState) bool {
	e := gr.e
	return st.must == nil && st.a.closable && !anyPending(e.scr.env[:st.nf])
}

// labelPrunes reports whether a label check of level lv (clevel.label)
// prunes candidate o, as cbind would find it before folding anything.
func labelPrunes(lv *clevel, o *Op) bool {
	for i := 0; i < lv.label; i++ {
		c := &lv.checks[i]
		var t bool
		if c.atom.kind == theory.KMeth {
			t = o.Label.Method == c.atom.m
		} else if o.pending() {
			return false
		} else {
			t = o.Label.Ret == c.atom.v
		}
		if t == c.atom.neg == c.ante {
			return true
		}
	}
	return false
}

// methPrunes reports whether a label check meth(v) = m' of level lv
// prunes a candidate of method m, as labelPrunes would find it.
func methPrunes(lv *clevel, m h.Method) bool {
	for _, c := range lv.checks[:lv.label] {
		if c.atom.kind == theory.KMeth && (m == c.atom.m) == c.atom.neg == c.ante {
			return true
		}
	}
	return false
}

func anyPending(ops []*Op) bool {
	for _, o := range ops {
		if o.pending() {
			return true
		}
	}
	return false
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// A part of the instance's disjunction, as cleaf gathers it: a literal
// (n = 0) or the conjunction e.conj[at:at+n] of a witness.
type cpart struct {
	lit   Lit
	at, n int32
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

func (gr *folder) isTrueLit(l Lit) bool { return gr.e.val(l) == 1 }

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
func (gr *grounder) witTrue(t *template) bool {
	for i := range t.wit {
		if k, _ := gr.e.fo.knownAtom(&t.wit[i]); k != vTrue {
			return false
		}
	}
	return true
}

// quickRun is a run of consecutive operations of one method's list
// (opTable.opsOf), from its holder to the one with serial end, each
// settled: returned, with a true match variable l = x.trueAsX that
// still names (x,y) for a returned y. The times bound the run's: the
// latest y return and earliest y call, the latest return and earliest
// call of the operations themselves.
//
// Why a run once settled stays settled, for every later instance, while
// its epoch (quickEpoch) lasts:
//   - a true fact stays true (the saturator never retracts one), and y,
//     once returned, stays returned;
//   - match(x,y) keeps its variable while both x and y live: only
//     forgetting one of them frees it. x forgotten leaves the list;
//     y forgotten while x lives drops every run (quickForgotten);
//   - the method list only loses operations (forgetting) or gains them
//     at its end (a call gets the next serial): the live operations
//     with serials from the holder's to end are a subset of the run, so
//     the run's times still bound theirs; a holder forgotten hands the
//     run to the next live operation in it (quickForgotten);
//   - a pending operation is never in a run (it ends one), so no
//     operation's own times change inside a run.
//
// What does depend on the instance, the order atoms of quickHolds (the
// witness's b(y,u) or b(u,y) and the level's checks) over the operations
// the earlier levels bind, runPasses decides for the whole run from its
// times, and only when real time decides every one of them the way
// quickHolds would pass it: so each operation passed over by a run
// would be passed over by quickHolds.
type quickRun struct {
	start, end  int // holder's serial + 1 (0: none), last serial
	yRet, yCall int
	ret, call   int
}

func (r *quickRun) add(o, y *Op) {
	r.end = o.Serial
	r.yRet, r.yCall = max(r.yRet, y.Return), min(r.yCall, y.Call)
	r.ret, r.call = max(r.ret, o.Return), min(r.call, o.Call)
}

func (r *quickRun) merge(q *quickRun) {
	r.end = max(r.end, q.end)
	r.yRet, r.yCall = max(r.yRet, q.yRet), min(r.yCall, q.yCall)
	r.ret, r.call = max(r.ret, q.ret), min(r.call, q.call)
}

// quickForgotten keeps the quickRun memos (quickTail) exact when the
// operations of serials, marked gone, are forgotten (Remove calls it
// before they leave the table's lists). A run whose holder goes is
// handed to the next live operation of its list within the run: the
// operations left in the run are still consecutive in the list and
// still settled, and its times, over a superset, still bound theirs.
// A run's premise breaks only when the y of a live x's true match
// variable goes (the variable goes with it, and quickHolds would no
// longer find it): then every memo is dropped (quickEpoch). x is one of
// y's stored partners (match(x,y) is possible), so y.asY finds it; any
// live x there with a true match variable counts, whichever y it names.
func (gr *enumerator) quickForgotten(serials []int, gone uint32) {
	e := gr.e
	ep := e.scr.quickEpoch
	bump := false
	for _, s := range serials {
		o := e.tab.op(s)
		if o == nil || o.mark != gone {
			continue
		}
		for _, x := range o.asY {
			if x.mark != gone && x.trueAsX != noLit {
				bump = true
			}
		}
		if o.qEpoch != ep || o.qrun.start != o.Serial+1 || o.qrun.end <= o.Serial {
			continue
		}
		l := e.tab.opsOf(o.Label.Method)
		i, found := slices.BinarySearchFunc(l, o.Serial, func(p *Op, s int) int { return cmp.Compare(p.Serial, s) })
		if !found {
			continue
		}
		for i++; i < len(l) && l[i].Serial <= o.qrun.end; i++ {
			if n := l[i]; n.mark != gone {
				r := o.qrun
				if n.qEpoch == ep && n.qrun.start == n.Serial+1 {
					r.merge(&n.qrun)
				}
				r.start = n.Serial + 1
				n.qrun, n.qEpoch = r, ep
				break
			}
		}
	}
	if bump {
		e.scr.quickEpoch++
	}
}

// runPasses reports whether quickHolds passes every operation of run r
// at lv under env (the earlier levels bound): the witness's order atom
// is true by real time for every y of the run (with yFirst, y returned
// before u was called: r.yRet < u.Call; else u returned before any y
// was called), and real time decides each check for every operation o
// of the run: all returned before w was called, or w returned before
// any of them was called (o = w, which real time also decides, fails
// both: then the run is not passed over). A check between two earlier
// levels' operations is left to quickHolds (false).
func (gr *enumerator) runPasses(st *instState, lv *clevel, r *quickRun) bool {
	e := gr.e
	t := st.a.tmpl
	env := e.scr.env
	u := env[t.quickU]
	if t.quickYFirst {
		if r.yRet >= u.Call {
			return false
		}
	} else if u.Return < 0 || u.Return >= r.yCall {
		return false
	}
	for i := range lv.checks {
		c := &lv.checks[i].atom
		switch {
		case c.x == lv.v && c.y == lv.v:
			continue
		case c.x == lv.v || c.y == lv.v:
			w := env[c.y]
			if c.y == lv.v {
				w = env[c.x]
			}
			// Not implied by the witness's bound above: an operation of
			// the run may overlap w while its y returned before u was
			// called, and then b(o,w) is open and may have no variable
			// yet, which binding o makes (TestQuickRunCheckOverlap:
			// EMPTY's b(a,e) for an add overlapping the empty dequeue).
			if r.ret < w.Call || w.Return >= 0 && w.Return < r.call {
				continue
			}
			return false
		default:
			return false // not one of ours
		}
	}
	return true
}

// quickTail is crec's loop over the tail of a closed instance's last
// level (clevel.quick) when the candidates are one method's list in
// call order (no source, not tied, not fixed) and many: as the loop it
// stands for, it binds the candidates quickHolds does not pass over,
// but it notes the runs of consecutive ones it does pass over on their
// first operation (quickRun) and passes a noted run over at once when
// runPasses finds every one of its operations would pass. Runs are cut
// at serial blocks of 1<<quickChunk, so that instances starting their
// runs at different operations still meet the same holders; a run met
// while one is open in the same block is merged into it.
func (gr *enumerator) quickTail(st *instState, lv *clevel, level int, tail []*Op, limit int, admitted bool) {
	e := gr.e
	var rs *Op
	var run quickRun
	ep := e.scr.quickEpoch
	var self *Op // as in crec
	if lv.self >= 0 {
		self = e.scr.env[lv.self]
	}
	closeRun := func() {
		if rs != nil {
			run.start = rs.Serial + 1
			rs.qrun, rs.qEpoch = run, ep
			e.scr.quickMemos = true
			rs = nil
		}
	}
	for i := 0; i < len(tail); i++ {
		o := tail[i]
		if o.Call > limit {
			break
		}
		if o.qEpoch == ep && o.qrun.start == o.Serial+1 && gr.runPasses(st, lv, &o.qrun) {
			if rs != nil && rs.Serial>>quickChunk != o.Serial>>quickChunk {
				closeRun()
			}
			if rs == nil {
				rs, run = o, o.qrun
			} else {
				run.merge(&o.qrun)
			}
			e.scr.quickHits++
			e.scr.quickJumps++
			end := o.qrun.end
			j := i + 1
			for j < len(tail) && tail[j].Serial <= end {
				j++
			}
			i = j - 1
			continue
		}
		if o.pending() {
			closeRun()
			continue
		}
		if o.trueAsX != noLit && gr.quickHolds(st, lv, o) {
			y := e.reg.varOps[o.trueAsX.Var()][1]
			if rs != nil && rs.Serial>>quickChunk != o.Serial>>quickChunk {
				closeRun()
			}
			if rs == nil {
				rs = o
				run = quickRun{end: o.Serial, yRet: y.Return, yCall: y.Call, ret: o.Return, call: o.Call}
			} else {
				run.add(o, y)
			}
			continue
		}
		closeRun()
		if o != self {
			gr.cbind(st, lv, level, o, false, admitted)
		}
	}
	closeRun()
}

// quickChunk sets the serial blocks runs are cut at; quickMin is the
// tail length from which crec uses quickTail (on short lists its
// bookkeeping costs more than the candidates it passes over).
const (
	quickChunk = 5
	quickMin   = 32
)
