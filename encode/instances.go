package encode

import (
	"math"
	"math/bits"
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

// grounder grounds the axioms' instances: it enumerates the tuples of
// window operations an axiom's universal variables bind (instances.go,
// with the compiled templates of compiled.go), folds what labels, real
// time and the saturator's assignment decide (fold, known), and turns
// what is left into clauses (node.go) or hands a ∀∃ instance to the
// watched instances (lazyGround.watchInstance). Every encoder has one; it
// reads the window, the variables and the partner lists through the
// encoder it belongs to (e), and emits through it.
type grounder struct {
	e *Encoder
	// curAxiom is the axiom of the instance being emitted (origin.go).
	curAxiom *theory.Axiom
	// curLeaf, when not 0, says that the instance being emitted is a
	// compiled leaf's (cleaf), whose operations are env's first curLeaf-1
	// rather than scr.cur: cleaf stores an int where it would otherwise
	// swap a slice for each leaf (curOps).
	curLeaf int
	// rowExcl: witnessesX passes over the partners a true match variable
	// excludes (an injective kernel, with SATURATE's assignment), fixed
	// by enumerator.setQuick.
	rowExcl bool
	// watch: an instance with a witness, outside EmitOpen, goes to the
	// watched instances (watchInstance) rather than to clauses
	// (Config.Watch with a lazy grounding).
	watch bool
}

// enumerator enumerates the tuples of an axiom's instances: the compiled
// plans (crec, compiled.go) or the interpreter (rec), cut by real time,
// for each tuple handing the instance to the grounder (cleaf, leaf).
type enumerator struct {
	e        *Encoder
	bindings int // GroundingStats
	// quick: crec passes over the candidates quickHolds finds ground
	// nothing (partner lists read on demand, with SATURATE's
	// assignment), fixed by setQuick.
	quick bool
}

// folder folds atoms and formulas under the bound operations to
// constants, literals (making the variables they need) and ground
// nodes, and turns nodes into clauses (Plaisted–Greenbaum, node.go).
type folder struct{ e *Encoder }

// setQuick fixes the grounder's shortcuts, which the tests' noQuick
// turns off, once the encoder's parts are made (New).
func (gr *enumerator) setQuick() {
	e := gr.e
	on := e.lazy != nil && (e.hk == nil || !e.hk.noQuick)
	gr.quick = on && e.ptn.virt
	e.gr.rowExcl = on && e.match.injective
}

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

// transitivity grounds b(x1,x2) ∧ b(x2,x3) ⇒ b(x1,x3) for the triples
// containing the new operation s. An instance can only matter when two
// of its three pairs overlap in real time (b is a constant on the others,
// and real-time order is itself transitive), so only those triples are
// visited: s with two operations pending at its call, or s, a pending u,
// and an operation v that overlaps u. This replaces the generic O(n²)
// enumeration per call by O(p·c), p pending operations, c overlaps.
func (gr *enumerator) transitivity(a *axiom, s *Op) {
	e := gr.e
	pend := s.conc // at s's call, exactly the operations pending then
	// The clause is built directly: its atoms are literals or constants.
	emit := func(x1, x2, x3 *Op) {
		if e.poll() {
			return
		}
		l12, c12 := e.fo.bLit(x1, x2)
		if l12 == z.LitNull && !c12 {
			return
		}
		l23, c23 := e.fo.bLit(x2, x3)
		if l23 == z.LitNull && !c23 {
			return
		}
		l13, c13 := e.fo.bLit(x1, x3)
		if l13 == z.LitNull && c13 {
			return
		}
		cl := e.scr.clauseBuf[:0]
		for i, o := range [3]*Op{x1, x2, x3} {
			if o.pending() && (i == 0 || o != x1) && (i < 2 || o != x2) {
				cl = append(cl, e.used(o).Not())
			}
		}
		for _, l := range [2]Lit{l12, l23} {
			if l != z.LitNull {
				cl = append(cl, l.Not())
			}
		}
		if l13 != z.LitNull {
			cl = append(cl, l13)
		}
		e.scr.cur, e.gr.curAxiom = append(e.scr.cur[:0], x1, x2, x3), a.Axiom
		e.emit(cl)
		e.gr.curAxiom = nil // origin.go
		e.scr.clauseBuf = cl[:0]
	}
	seq := e.k.Sequential
	perms := func(x, y, z *Op) {
		emit(x, y, z)
		emit(x, z, y)
		if seq {
			// With b(y,x) = ¬b(x,y) the instance (x1,x2,x3) says "no cycle
			// x1→x2→x3→x1": its rotations are the same clause.
			return
		}
		emit(y, x, z)
		emit(y, z, x)
		emit(z, x, y)
		emit(z, y, x)
	}
	for i, u := range pend {
		if !seq {
			// Asymmetry comes from x1 = x3: b(s,u) ∧ b(u,s) ⇒ b(s,s); in a
			// sequential kernel it is a tautology.
			emit(s, u, s)
			emit(u, s, u)
		}
		for _, v := range pend[i+1:] {
			perms(s, u, v)
		}
		for _, v := range u.conc {
			if v != s && !v.pending() && v.Serial < s.Serial && !slices.Contains(pend, v) {
				perms(s, u, v)
			}
		}
	}
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

type tri uint8

const (
	vUnknown tri = iota
	vFalse
	vTrue
)

func triOf(b bool) tri {
	if b {
		return vTrue
	}
	return vFalse
}

// litTri is the saturator's current value of l (SATURATE only).
func (gr *folder) litTri(l Lit) tri {
	e := gr.e
	switch e.val(l) {
	case 1:
		return vTrue
	case -1:
		return vFalse
	}
	return vUnknown
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

// instances grounds axiom a. With must set, only tuples binding must to
// some universal variable; with closed, only tuples whose universal
// operations have all returned; otherwise (EmitOpen) every tuple not
// already emitted for good. extra literals are added to every clause.
func (gr *enumerator) instances(a *axiom, must *Op, closed bool, extra []Lit) {
	e := gr.e
	nf := len(a.Forall)
	compiled := a.tmpl != nil && (e.hk == nil || !e.hk.interpret)
	// At a return (must returned, closed), the fixed plans the template
	// enters are known from must's label and partner lists alone, which
	// grounding does not change: the variables whose first level
	// requires another method than must's are left out in bulk
	// (template.fixedFor), and must's label may prune it at the first
	// level (labelPrunes: EMPTY's ret(e) = empty at the return of a
	// dequeue that returned a value, ADDREM's at one that returned
	// empty), or the next level read its partners when it has none that
	// returned (noReturnedPartners). Then the level is not entered only
	// to bind must and prune it; and when no plan is left (ADDREM at an
	// add's return), the state is not even set up.
	//
	// Each of these tests depends on must's label and on whether it has
	// partners, and on the plan: the template keeps, for each plan, the
	// tests that may leave it out (template.fixedMeth), and only the
	// return value is compared here, for the plans whose first level
	// checks it.
	var enter uint32
	fast := compiled && closed && must != nil && !must.pending() && must.Label.Method < memoMethods
	if fast {
		t := a.tmpl
		enter = t.fixedMeth[must.Label.Method]
		if len(must.asX) == 0 {
			enter &^= t.fixedAsX
		}
		if len(must.asY) == 0 {
			enter &^= t.fixedAsY
		}
		for fs := enter & t.fixedRet; fs != 0; fs &= fs - 1 {
			f := bits.TrailingZeros32(fs)
			if labelPrunes(&t.fixedLevels[f][0], must) {
				enter &^= 1 << f
			}
		}
		if enter == 0 {
			return
		}
	}
	win := e.Ops()
	nv := nf + len(a.Exists)
	if cap(e.scr.env) < nv {
		e.scr.env = make([]*Op, nv)
	}
	e.scr.env = e.scr.env[:nv]
	// With must, each tuple containing it is visited once: must is put at
	// variable fixed, and kept out of the variables before fixed (those
	// tuples are visited with must at an earlier variable). Enumerating
	// the rest of the window for every variable and filtering at the end
	// would cost a factor of the window's size.
	//
	// The state is reset field by field: it lives in the encoder, and
	// assigning it whole costs a write barrier check per pointer field at
	// every call (a return grounds several axioms).
	st := &e.scr.inst
	st.a, st.must, st.closed, st.extra, st.win, st.nf, st.fixed = a, must, closed, extra, win, nf, -1
	st.pl, st.clv = &a.plan, nil
	st.ante, st.rest, st.na, st.nr = st.ante[:0], st.rest[:0], 0, 0
	st.one[0] = must
	if must == nil {
		if compiled {
			st.clv = a.tmpl.levels
			gr.crec(st, 0)
		} else {
			gr.rec(st, 0)
		}
		return
	}
	if fast {
		for ; enter != 0; enter &= enter - 1 {
			st.fixed = bits.TrailingZeros32(enter)
			st.clv = a.tmpl.fixedLevels[st.fixed]
			gr.crecFixed(st)
		}
		return
	}
	settled := closed && !must.pending()
	for st.fixed = 0; st.fixed < nf; st.fixed++ {
		if compiled {
			// As above, one variable at a time.
			lvs := a.tmpl.fixedLevels[st.fixed]
			if settled && (lvs[0].meth != h.NoMethod && lvs[0].meth != must.Label.Method ||
				nf > 1 && gr.noReturnedPartners(lvs[1].gen, st.fixed, must) || labelPrunes(&lvs[0], must)) {
				continue
			}
			st.clv = lvs
			gr.crec(st, 0)
			continue
		}
		st.pl = &a.fixedPlans[st.fixed]
		// A returned must whose method the antecedent rules out at this
		// variable binds nothing here: every atom of the first level is
		// about must alone, hence a constant once it has returned, so the
		// tuple would be pruned there without making a variable. A return
		// grounds each ∀∃ axiom at every variable, and most of them
		// require another method (FIFO's two adds, at a dequeue's return).
		if closed && !must.pending() && st.pl.meth[0] != h.NoMethod && st.pl.meth[0] != must.Label.Method {
			continue
		}
		// Likewise when the next level's candidates are must's partners
		// and it has none that returned (the pending ones are not bound
		// in a closed instance): FIFO's a2 and r2 at an add's return.
		if closed && !must.pending() && nf > 1 && gr.noReturnedPartners(st.pl.gen[1], st.fixed, must) {
			continue
		}
		gr.rec(st, 0)
	}
}

// noReturnedPartners reports whether g, a level's candidate source, reads
// the partners of the variable from, bound to o, and o has no stored
// partner on that side. Stored partners include every returned one
// (partners.go), so the level would bind nothing in a closed instance.
func (gr *enumerator) noReturnedPartners(g *source, from int, o *Op) bool {
	if g == nil || g.from != from {
		return false
	}
	if g.asX {
		return len(o.asX) == 0
	}
	return len(o.asY) == 0
}

// noReturnedPartner reports whether a later level of a closed instance
// would bind nothing under o (feeds: the level's plan.feeds): its
// candidates are the partners of o, and none of them has returned. The
// stored partners include every returned one (partners.go), and a
// closed instance binds no pending operation. Then o is not bound:
// folding the level's checks would only make variables (an order
// variable b(a1,a2) for each add a2 at FIFO's a1) that no instance uses.
func (gr *enumerator) noReturnedPartner(feeds []*source, o *Op) bool {
	for _, g := range feeds {
		l := o.asY
		if g.asX {
			l = o.asX
		}
		if !anyReturned(l) {
			return true
		}
	}
	return false
}

func anyReturned(ops []*Op) bool {
	for _, o := range ops {
		if !o.pending() {
			return true
		}
	}
	return false
}

// instState is one run of instances: a struct kept in the encoder rather
// than a recursive closure, which was allocated at every call.
type instState struct {
	a          *axiom
	must       *Op
	closed     bool
	extra      []Lit
	win        []*Op
	nf, fixed  int
	one        [1]*Op
	pl         *plan
	ante, rest []*node // folded atoms of the variables bound so far
	// The template's (compiled.go): its levels for pl, and the literals
	// of the checks folded so far.
	clv          []clevel
	lante, lrest [maxChecks]Lit
	na, nr       int
	// witLits are the literals knownWit found for the witness's atoms,
	// witVals their values.
	witLits [maxWit]Lit
	witVals [maxWit]tri
	// held are knownWit's findings for the first nheld stored partners
	// that cwitnessHolds looked at (heldRes the results), which the
	// witnesses of the same instance take rather than look them up
	// again (see cwitnessHolds).
	nheld    int
	heldLits [maxHeld][maxWit]Lit
	heldVals [maxHeld][maxWit]tri
	heldRes  [maxHeld]tri
	// truePart: cwitness found a witness of the instance true.
	truePart bool
	// feedMeth[sides] is feedMethod's for clevel.feedSides sides, set
	// once per encoder (methsSet), as the kernel's MATCH decides it.
	feedMeth [4]h.Method
	methsSet bool
	// clauseAt is the encoder's clause count when the first level was
	// bound: the checks' literals were settled since, and are current
	// while no clause has been emitted (see cleaf).
	clauseAt int
}

// rec binds the universal variable of the given level to each candidate
// in turn, and emits the instance at the last level.
func (gr *enumerator) rec(st *instState, level int) {
	e := gr.e
	if e.poll() {
		return
	}
	a, nf, pl := st.a, st.nf, st.pl
	if level == nf {
		if st.must == nil && a.closable {
			allDone := true
			for _, o := range e.scr.env[:nf] {
				if o.pending() {
					allDone = false
				}
			}
			if allDone {
				return // emitted for good when its last operation returned
			}
		}
		e.gr.leaf(a, st.win, st.ante, st.rest, st.extra)
		return
	}
	v := pl.order[level]
	cands, full := st.win, true
	m := pl.meth[level]
	mark := len(e.scr.pbuf)
	if g := pl.gen[level]; g != nil {
		cands, full, m = e.ptn.partners(g, e.scr.env), false, h.NoMethod
	} else if m != h.NoMethod {
		cands = e.tab.opsOf(m)
	}
	if a.shape == shapeFunction && e.valueTied && (v == 0 || v == 1) && slices.Contains(pl.order[:level], 1-v) {
		cands, full = e.tab.byArg[e.scr.env[1-v].argID], false // see the skip in bind
	}
	if v == st.fixed {
		cands, full = st.one[:], false
	}
	head, tail, limit, _ := gr.levelRun(pl.cuts[level], cands, full)
	for _, o := range head {
		if m == h.NoMethod || o.Label.Method == m {
			gr.bind(st, level, v, o)
		}
	}
	for _, o := range tail {
		if o.Call > limit {
			break
		}
		gr.bind(st, level, v, o)
	}
	e.scr.pbuf = e.scr.pbuf[:mark]
}

// bind binds variable v of the given level to candidate o, folds the
// level's checks and goes down a level unless one prunes the tuple.
func (gr *enumerator) bind(st *instState, level, v int, o *Op) {
	e := gr.e
	a, pl := st.a, st.pl
	if st.closed && o.pending() {
		return
	}
	if o == st.must && v < st.fixed {
		return
	}
	if e.fo.dropped(o) {
		return
	}
	// FUNCTION for two partners with different values is implied,
	// by unit propagation, by the MATCH axiom (match(x,y) ⇒
	// ret(y) = arg(x)) and the at-most-one on ret(y): skip it.
	if a.shape == shapeFunction && e.valueTied && (v == 0 || v == 1) {
		if other := 1 - v; slices.Contains(pl.order[:level], other) && e.scr.env[other].Label.Arg != o.Label.Arg {
			return
		}
	}
	if !gr.cutsAdmit(pl.cuts[level], o) {
		return
	}
	if st.closed && pl.feeds != nil && gr.noReturnedPartner(pl.feeds[level], o) {
		return
	}
	gr.bindings++
	e.scr.env[v] = o
	na, nr := len(st.ante), len(st.rest)
	ok := true
	for _, c := range pl.checks[level] {
		n := e.fo.fold(c.f, false)
		if c.ante {
			if n.kind == nFalse || e.fo.isFalse(n) {
				ok = false
				break
			}
			st.ante = append(st.ante, n)
		} else {
			if n.kind == nTrue || e.fo.isTrue(n) {
				ok = false
				break
			}
			st.rest = append(st.rest, n)
		}
	}
	if ok {
		gr.rec(st, level+1)
	}
	st.ante, st.rest = st.ante[:na], st.rest[:nr]
}

// levelRun narrows the candidates of a level by its real-time cuts
// (rtCut): the level visits head (to be filtered by the level's method,
// when it has one), then tail up to the first candidate called after
// limit. full says that cands is the window or its operations of the
// level's method, which hold every live operation that cands may: only
// then may candidates be taken from an operation's overlap list. What
// the run leaves out, cutsAdmit rejects; candidates in the run are
// still checked by cutsAdmit, which keeps the result independent of the
// narrowing (and exact when calls are not in order: see unordered),
// except those of the tail when admitted is set: there the run applied
// every cut (below).
func (gr *enumerator) levelRun(cuts []rtCut, cands []*Op, full bool) (head, tail []*Op, limit int, admitted bool) {
	e := gr.e
	limit = math.MaxInt
	if e.tab.unordered {
		return nil, cands, limit, len(cuts) == 0
	}
	var from *Op // of the !after cuts, the operation called last
	befores := false
	for _, c := range cuts {
		u := e.scr.env[c.u]
		switch {
		case c.after:
			if !u.pending() && u.Return < limit {
				limit = u.Return
			}
		case !full:
			befores = true
		case from == nil || u.Call > from.Call:
			from = u
		}
	}
	// In call order, a tail candidate o called no later than limit was
	// not called after an after cut's u returned; and one called no
	// earlier than from did not return before any !after cut's u (called
	// no later than from) was called. So without !after cuts left
	// unapplied, the tail needs no cutsAdmit.
	if from == nil {
		return nil, cands, limit, !befores
	}
	// The candidates called before from that did not return before it
	// was called overlap it: they open from.conc, in call order. Then
	// from itself (if a candidate) and everything called after it.
	lo, hi := 0, len(cands)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if cands[mid].Call < from.Call {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	n := 0
	for n < len(from.conc) && from.conc[n].Call < from.Call {
		n++
	}
	return from.conc[:n], cands[lo:], limit, true
}

// cutsAdmit reports whether no real-time cut of a level prunes o.
func (gr *enumerator) cutsAdmit(cuts []rtCut, o *Op) bool {
	e := gr.e
	for _, c := range cuts {
		u := e.scr.env[c.u]
		if c.after && before(u, o) || !c.after && before(o, u) {
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

// known is the value of an atom under e.env if constants or, in
// SATURATE, the values of existing variables decide it; it creates no
// variable.
func (gr *folder) known(f *theory.Formula) tri {
	e := gr.e
	env := e.scr.env
	val := func(l Lit, ok bool) tri {
		if !ok {
			return vUnknown
		}
		return gr.litTri(l)
	}
	ret := func(o *Op, v h.Value) tri {
		if !o.pending() {
			return triOf(o.Label.Ret == v)
		}
		l, ok := o.rets.get(v)
		return val(l, ok)
	}
	switch f.Kind {
	case theory.KMeth:
		return triOf(env[f.X].Label.Method == f.M)
	case theory.KRet:
		if f.V == theory.Bottom {
			return vUnknown
		}
		return ret(env[f.X], f.V)
	case theory.KArgEq:
		return triOf(env[f.X].Label.Arg == env[f.Y].Label.Arg)
	case theory.KArgRet:
		return ret(env[f.Y], env[f.X].Label.Arg)
	case theory.KArgLess:
		return triOf(env[f.X].Label.Prio < env[f.Y].Label.Prio)
	case theory.KEq:
		return triOf(env[f.X] == env[f.Y])
	case theory.KB:
		x, y := env[f.X], env[f.Y]
		if t := realTime(x, y); t != vUnknown {
			return t
		}
		if !e.k.Sequential {
			l, ok := e.reg.vars.get(varPair{vB, int32(x.Serial), int32(y.Serial)}.key())
			return val(l, ok)
		}
		return val(e.reg.bExisting(x, y))
	case theory.KMatch:
		x, y := env[f.X], env[f.Y]
		l, ok := e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key())
		if !ok && e.match.excluded(x, y) {
			return vFalse
		}
		return val(l, ok)
	case theory.KUsed:
		o := env[f.X]
		if !o.pending() {
			return vTrue
		}
		return val(o.usedVar, o.usedVar != z.LitNull)
	case theory.KRel:
		return relValue(f, func(i int) *Op { return env[i] })
	}
	return vUnknown
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
