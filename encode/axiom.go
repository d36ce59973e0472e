package encode

import (
	"slices"

	h "github.com/satmon/satmon/internal/history"
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

func prepare(a *theory.Axiom) *axiom {
	p := &axiom{Axiom: a}
	body := a.Body
	var cons *theory.Formula
	switch {
	case body.Kind == theory.KImplies:
		p.ante = conjuncts(body.Args[0])
		cons = body.Args[1]
	case body.Kind == theory.KOr && len(body.Args) > 0 && body.Args[0].Kind == theory.KNot:
		p.ante = conjuncts(body.Args[0].Args[0])
		cons = theory.Or(body.Args[1:]...)
	default:
		cons = body
	}
	nf := len(a.Forall)
	var wit []*theory.Formula
	for _, d := range disjuncts(cons) {
		if maxVar(d) >= nf {
			wit = append(wit, d)
		} else {
			p.rest = append(p.rest, d)
		}
	}
	// Two shapes fold to true on every operation: ATOMIC's ∀x. ret(x) ≠ ⊥
	// (a pending operation's ret = ⊥ is ¬used, so its instance is
	// used(x) ⇒ used(x)) and irreflexivity, ∀x. ¬b(x,x) (b(x,x) is false
	// by real time).
	p.valid = nf == 1 && body.Kind == theory.KNot &&
		(body.Args[0].Kind == theory.KRet && body.Args[0].V == theory.Bottom ||
			body.Args[0].Kind == theory.KB && body.Args[0].X == body.Args[0].Y)
	p.shape = shapeOf(a)
	if p.shape == shapeLimit {
		// Grounded by counting (limit.go): no tuples, no plans.
		p.closable = true
		return p
	}
	p.plan = p.planOrder(-1)
	for f := range a.Forall {
		p.fixedPlans = append(p.fixedPlans, p.planOrder(f))
	}
	p.guarded = make([]bool, nf)
	for _, c := range p.ante {
		if c.Kind == theory.KMatch {
			if c.X < nf {
				p.guarded[c.X] = true
			}
			if c.Y < nf {
				p.guarded[c.Y] = true
			}
		}
	}
	switch len(wit) {
	case 0:
	case 1:
		// Not wrapped in a one-disjunct Or: witGen below looks for the
		// match atom that names the witness's candidates.
		p.wit = wit[0]
	default:
		p.wit = theory.Or(wit...)
	}
	if len(a.Exists) == 1 && p.wit != nil && p.wit.Kind != theory.KOr {
		p.witGen = matchSource(conjuncts(p.wit), nf, func(u int) bool { return u < nf })
	}
	p.matchAtoms = lazyMatchAtoms(p)
	if len(a.Exists) > 0 {
		p.closable = true
		for j := range a.Exists {
			if futureValue(p.wit, nf, nf+j) != vFalse {
				p.closable = false
			}
		}
	}
	p.tmpl = compile(p)
	return p
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
