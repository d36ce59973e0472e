package encode

import (
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

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
