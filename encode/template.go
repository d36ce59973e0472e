package encode

import (
	h "github.com/satmon/satmon/internal/history"
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
