package encode

import (
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

// axiom is a kernel axiom split for grounding: ∀x̄. ante(x̄) ⇒ rest(x̄) ∨
// ∃ȳ. wit(x̄,ȳ). Pulling the ȳ-free disjuncts out of ∃ȳ is sound because
// the domain is never empty when the guard holds.
type axiom struct {
	*theory.Axiom
	ante []*theory.Formula // conjuncts of the antecedent
	rest []*theory.Formula // disjuncts of the consequent without ∃ variables
	wit  *theory.Formula
	// plan binds the universal variables when enumerating every instance;
	// fixedPlans[f] when variable f is bound first, to a given operation.
	plan       plan
	fixedPlans []plan
	guarded    []bool  // universal variables whose used() follows from a match atom of the antecedent
	witGen     *source // likewise for the (single) existential variable
	shape      shape
	// closable: once the universally bound operations have all returned,
	// no later operation can be a witness (it would have to be ordered
	// before one of them), so the instance can be emitted for good.
	closable bool
	// matchAtoms, for an axiom whose instances wait for their match
	// variables (see lazymatch.go), lists the antecedent's match atoms.
	matchAtoms []*theory.Formula
	// tmpl is the compiled grounding (compiled.go), nil when the
	// interpreter grounds the axiom.
	tmpl *template
	// valid: every ground instance is a tautology, so none is emitted
	// (see prepare).
	valid bool
}

// source: the candidates for a variable are env[from].asX (match(from,v))
// or env[from].asY (match(v,from)).
type source struct {
	from int
	asX  bool
}

// matchSource finds, among conjuncts fs, a match atom between v and a
// variable satisfying bound.
func matchSource(fs []*theory.Formula, v int, bound func(int) bool) *source {
	for _, c := range fs {
		if c.Kind != theory.KMatch || c.X == c.Y {
			continue
		}
		if c.Y == v && bound(c.X) {
			return &source{from: c.X, asX: true}
		}
		if c.X == v && bound(c.Y) {
			return &source{from: c.Y, asX: false}
		}
	}
	return nil
}

// shape marks axioms that get a dedicated grounding.
type shape uint8

const (
	shapeGeneric    shape = iota
	shapeTransitive       // b(x1,x2) ∧ b(x2,x3) ⇒ b(x1,x3)
	shapeTotal            // x1 ≠ x2 ⇒ b(x1,x2) ⊕ b(x2,x1)
	shapeFunction         // match(x1,y) ∧ match(x2,y) ⇒ x1 = x2
	shapeInjective        // match(x,y1) ∧ match(x,y2) ⇒ y1 = y2
	shapeLimit            // LIMIT(n), grounded by counting (limit.go)
)

func shapeOf(a *theory.Axiom) shape {
	same := theory.Equal
	switch {
	case a.Capacity > 0 && same(a.Body, theory.Limit(a.Capacity).Parts[0].Body):
		return shapeLimit
	case len(a.Forall) == 3 && len(a.Exists) == 0 &&
		same(a.Body, theory.Implies(theory.And(theory.B(0, 1), theory.B(1, 2)), theory.B(0, 2))):
		return shapeTransitive
	case len(a.Forall) == 2 && len(a.Exists) == 0 &&
		same(a.Body, theory.Implies(theory.Neq(0, 1), theory.Xor(theory.B(0, 1), theory.B(1, 0)))):
		return shapeTotal
	case len(a.Forall) == 3 && len(a.Exists) == 0 &&
		same(a.Body, theory.Implies(theory.And(theory.Match(0, 2), theory.Match(1, 2)), theory.Eq(0, 1))):
		return shapeFunction
	case len(a.Forall) == 3 && len(a.Exists) == 0 &&
		same(a.Body, theory.Implies(theory.And(theory.Match(0, 1), theory.Match(0, 2)), theory.Eq(1, 2))):
		return shapeInjective
	}
	return shapeGeneric
}

// plan is an order in which to bind universal variables, chosen so that
// atoms can be folded early; at level i, checks[i] lists the ante
// conjuncts (an instance is pruned when one folds to false) and the rest
// disjuncts (pruned when one folds to true) whose variables are bound.
// gen[l] says where the candidates for the variable bound at level l come
// from: a match atom of the antecedent with an earlier variable (visit
// that operation's partners), or nil (visit the whole window).
type plan struct {
	order  []int
	checks [][]check
	gen    []*source
	// meth[l], when not NoMethod, is the method an ante conjunct requires
	// of the variable bound at level l: its candidates are then the
	// window's operations of that method (Encoder.byMeth), the same ones
	// in the same order as the window filtered by the check, without the
	// visits that the check would reject.
	meth []h.Method
	// cuts[l] are the checks of level l that real time decides for runs
	// of candidates (rtCut).
	cuts [][]rtCut
	// feeds[l] are the candidate sources of later levels that read the
	// partners of the variable bound at level l (see noReturnedPartner).
	feeds [][]*source
}

type check struct {
	f    *theory.Formula
	ante bool // an antecedent conjunct (else a rest disjunct)
}

// planOrder picks the binding order with the fewest expected visits.
// Each level's candidates are estimated by where they come from: a few
// partners of an operation already bound (a match atom of the
// antecedent), the operations that real time leaves to a check against
// an operation already bound (see rtCut), the window's operations of one
// method, or the whole window; the visits of an order are the sum, over
// its levels, of the product of the estimates up to that level. Ties go
// to the order whose atoms are checkable earliest (the sum, over ante
// conjuncts and rest disjuncts, of the level at which their last variable
// gets bound), then to the first order tried. With first ≥ 0, that
// variable is bound first (to one operation).
func (p *axiom) planOrder(first int) plan {
	nf := len(p.Forall)
	atoms := append(append([]*theory.Formula{}, p.ante...), p.rest...)
	var best []int
	bestVisits, bestLevels := 0, 0
	perm := make([]int, nf)
	for i := range perm {
		perm[i] = i
	}
	var try func(k int)
	try = func(k int) {
		if k == nf {
			if first >= 0 && perm[0] != first {
				return
			}
			visits, prod := 0, 1
			for l := range perm {
				prod *= p.levelEstimate(perm, l, first)
				visits += prod
			}
			levels := 0
			for _, f := range atoms {
				levels += levelOf(f, perm)
			}
			if best == nil || visits < bestVisits || visits == bestVisits && levels < bestLevels {
				best, bestVisits, bestLevels = append([]int(nil), perm...), visits, levels
			}
			return
		}
		for i := k; i < nf; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			try(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	if nf <= exhaustivePlan {
		try(0)
	} else {
		best = p.greedyOrder(first, atoms)
	}
	pl := plan{order: best, gen: make([]*source, nf), checks: make([][]check, nf), meth: make([]h.Method, nf),
		cuts: make([][]rtCut, nf)}
	for l, v := range best {
		pl.gen[l] = matchSource(p.ante, v, func(u int) bool { return slices.Index(best[:l], u) >= 0 })
		for _, f := range p.ante {
			if f.Kind == theory.KMeth && f.X == v {
				pl.meth[l] = f.M
			}
		}
	}
	for _, f := range p.ante {
		l := max(levelOf(f, best), 0)
		pl.checks[l] = append(pl.checks[l], check{f: f, ante: true})
	}
	for _, f := range p.rest {
		l := max(levelOf(f, best), 0)
		pl.checks[l] = append(pl.checks[l], check{f: f})
	}
	for l, v := range best {
		for _, c := range pl.checks[l] {
			if cut, ok := cutOf(c, v, best[:l]); ok {
				pl.cuts[l] = append(pl.cuts[l], cut)
			}
		}
	}
	// FUNCTION's levels may read byArg instead of partners (see rec).
	if p.shape != shapeFunction {
		pl.feeds = make([][]*source, nf)
		for l, v := range best {
			for _, g := range pl.gen[l+1:] {
				if g != nil && g.from == v {
					pl.feeds[l] = append(pl.feeds[l], g)
				}
			}
		}
	}
	return pl
}

// Estimated candidates of a level, by where they come from (planOrder).
const (
	estOne     = 1
	estPartner = 2
	estCut     = 4
	estMethod  = 50
	estWindow  = 100
)

// levelEstimate is the estimated candidates of level l of order perm.
func (p *axiom) levelEstimate(perm []int, l, first int) int {
	v := perm[l]
	if l == 0 && first >= 0 {
		return estOne
	}
	if matchSource(p.ante, v, func(u int) bool { return slices.Index(perm[:l], u) >= 0 }) != nil {
		return estPartner
	}
	for _, f := range p.ante {
		if _, ok := cutOf(check{f: f, ante: true}, v, perm[:l]); ok {
			return estCut
		}
	}
	for _, f := range p.rest {
		if _, ok := cutOf(check{f: f}, v, perm[:l]); ok {
			return estCut
		}
	}
	for _, f := range p.ante {
		if f.Kind == theory.KMeth && f.X == v {
			return estMethod
		}
	}
	return estWindow
}

// rtCut is a check of a plan level that real time decides for whole runs
// of candidates: an order atom b between the variable v bound at the
// level and a variable u bound earlier, which prunes a candidate o (an
// antecedent conjunct folds to false, or a rest disjunct to true) when
// u returned before o was called (after), or when o returned before u was
// called (!after). A candidate it prunes is never bound (levelCands):
// the check would prune it anyway. Candidate lists are in call order, so
// the first kind ends the run at the first candidate called after u
// returned, and the second leaves the candidates called after u plus
// those called before u that overlap it (u.conc).
type rtCut struct {
	u     int
	after bool
}

// cutOf reads c, a check of the level that binds v, as an rtCut against
// one of the variables bound, if it is one.
func cutOf(c check, v int, bound []int) (rtCut, bool) {
	f, neg := c.f, false
	if f.Kind == theory.KNot {
		f, neg = f.Args[0], true
	}
	if f.Kind != theory.KB || f.X == f.Y || (f.X != v && f.Y != v) {
		return rtCut{}, false
	}
	u := f.X
	if u == v {
		u = f.Y
	}
	if !slices.Contains(bound, u) {
		return rtCut{}, false
	}
	// b(x,y) is true when x returned before y was called, false when y
	// returned before x was called. The check prunes on true when it is
	// a rest disjunct or a negated ante conjunct.
	x, y := f.X, f.Y
	if c.ante != neg { // prunes on false: b(y,x) by real time
		x, y = y, x
	}
	// It prunes when x returned before y was called.
	return rtCut{u: u, after: x == u}, true
}

// exhaustivePlan is the most universal variables whose binding orders
// planOrder tries all of (at most 6! = 720); beyond, it picks greedily, so
// that preparing a kernel stays polynomial in the size of its formulas.
// Every axiom of the paper but LIMIT(n), which is grounded by counting,
// has at most 3.
const exhaustivePlan = 6

// greedyOrder binds first (if ≥ 0) first, then, at each level, a variable
// that a match atom binds to an earlier one if there is one, else the
// variable that completes the most atoms: O(nf² · atoms).
func (p *axiom) greedyOrder(first int, atoms []*theory.Formula) []int {
	nf := len(p.Forall)
	var order []int
	bound := make([]bool, nf)
	bind := func(v int) { order, bound[v] = append(order, v), true }
	if first >= 0 {
		bind(first)
	}
	isBound := func(u int) bool { return bound[u] }
	for len(order) < nf {
		best, bestScore := -1, -1
		for v := 0; v < nf; v++ {
			if bound[v] {
				continue
			}
			score := 0
			if matchSource(p.ante, v, isBound) != nil {
				score += 1 << 20
			}
			bound[v] = true
			for _, f := range atoms {
				if levelOf(f, append(order, v)) == len(order) {
					score++
				}
			}
			bound[v] = false
			if score > bestScore {
				best, bestScore = v, score
			}
		}
		bind(best)
	}
	return order
}

// levelOf is the level at which the last variable of f is bound when the
// universal variables are bound in order.
func levelOf(f *theory.Formula, order []int) int {
	lvl := -1
	var walk func(*theory.Formula)
	walk = func(f *theory.Formula) {
		for _, v := range varsOf(f) {
			for l, o := range order {
				if o == v {
					lvl = max(lvl, l)
				}
			}
		}
		for _, g := range f.Args {
			walk(g)
		}
	}
	walk(f)
	return lvl
}

func varsOf(f *theory.Formula) []int {
	switch f.Kind {
	case theory.KMeth, theory.KRet, theory.KUsed:
		return []int{f.X}
	case theory.KArgEq, theory.KArgRet, theory.KArgLess, theory.KEq, theory.KB, theory.KMatch:
		return []int{f.X, f.Y}
	case theory.KRel:
		return f.Vars()
	}
	return nil
}

func conjuncts(f *theory.Formula) []*theory.Formula {
	if f.Kind == theory.KAnd {
		var out []*theory.Formula
		for _, g := range f.Args {
			out = append(out, conjuncts(g)...)
		}
		return out
	}
	return []*theory.Formula{f}
}

func disjuncts(f *theory.Formula) []*theory.Formula {
	if f.Kind == theory.KOr {
		var out []*theory.Formula
		for _, g := range f.Args {
			out = append(out, disjuncts(g)...)
		}
		return out
	}
	return []*theory.Formula{f}
}

func maxVar(f *theory.Formula) int {
	m := -1
	switch f.Kind {
	case theory.KMeth, theory.KRet, theory.KUsed:
		m = f.X
	case theory.KArgEq, theory.KArgRet, theory.KArgLess, theory.KEq, theory.KB, theory.KMatch:
		m = max(f.X, f.Y)
	case theory.KRel:
		m = slices.Max(f.Vars())
	}
	for _, g := range f.Args {
		m = max(m, maxVar(g))
	}
	return m
}

// eval3 evaluates f in Kleene's three-valued logic, atom giving the value
// of each atom.
func eval3(f *theory.Formula, atom func(*theory.Formula) tri) tri {
	switch f.Kind {
	case theory.KTrue:
		return vTrue
	case theory.KFalse:
		return vFalse
	case theory.KNot:
		switch eval3(f.Args[0], atom) {
		case vTrue:
			return vFalse
		case vFalse:
			return vTrue
		}
		return vUnknown
	case theory.KAnd:
		r := vTrue
		for _, g := range f.Args {
			switch eval3(g, atom) {
			case vFalse:
				return vFalse
			case vUnknown:
				r = vUnknown
			}
		}
		return r
	case theory.KOr:
		r := vFalse
		for _, g := range f.Args {
			switch eval3(g, atom) {
			case vTrue:
				return vTrue
			case vUnknown:
				r = vUnknown
			}
		}
		return r
	case theory.KImplies:
		return eval3(theory.Or(theory.Not(f.Args[0]), f.Args[1]), atom)
	case theory.KIff, theory.KXor:
		return vUnknown
	}
	return atom(f)
}

// futureValue evaluates f, three-valued, when variable fut is an operation
// called after every universally bound one (variables < nf) returned:
// b(x, fut) is true and b(fut, x) false for those; all else is unknown.
func futureValue(f *theory.Formula, nf, fut int) tri {
	return eval3(f, func(a *theory.Formula) tri {
		if a.Kind == theory.KB {
			if a.X < nf && a.Y == fut {
				return vTrue
			}
			if a.X == fut && a.Y < nf {
				return vFalse
			}
		}
		return vUnknown
	})
}

// lazyMatchAtoms returns the antecedent's match atoms if the axiom can
// wait for them: universal only, match atoms only as antecedent
// conjuncts, and every universal variable bound by one of them (so that
// the instances of a new match variable are found among partners).
func lazyMatchAtoms(p *axiom) []*theory.Formula {
	if len(p.Exists) > 0 || p.shape != shapeGeneric && p.shape != shapeFunction && p.shape != shapeInjective {
		return nil
	}
	var atoms []*theory.Formula
	covered := make([]bool, len(p.Forall))
	for _, c := range p.ante {
		if c.Kind == theory.KMatch {
			atoms = append(atoms, c)
			covered[c.X], covered[c.Y] = true, true
		} else if mentionsMatch(c) {
			return nil
		}
	}
	for _, c := range p.rest {
		if mentionsMatch(c) {
			return nil
		}
	}
	for _, ok := range covered {
		if !ok {
			return nil
		}
	}
	return atoms
}

func mentionsMatch(f *theory.Formula) bool {
	if f.Kind == theory.KMatch {
		return true
	}
	for _, g := range f.Args {
		if mentionsMatch(g) {
			return true
		}
	}
	return false
}

// The compiled templates' types (template.go compiles them, compiled.go
// grounds by them), beside the axiom's: an axiom holds its template, and
// a template's levels name the axiom's sources and cuts.

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

// noLit stands for no literal, next to a constant kind.
const noLit = z.LitNull

// maxWit bounds the atoms of a compiled witness, which cwitness folds
// into an array (every kernel's have at most 3).
const maxWit = 8

// maxChecks bounds the checks of a compiled plan, whose literals cbind
// keeps in arrays (every kernel's have at most 5).
const maxChecks = 16
