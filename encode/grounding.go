package encode

import "github.com/satmon/satmon/internal/z"

// grounding is what SATURATE's lazy grounding and the complete encoding
// of SYMBOLIC and DIMACS do differently at the phases of the entry points
// (step.go) and when a pending operation gets a ret or match variable
// (makeVar). New chooses it once, a *lazyGround or an eagerGround, so
// that no phase asks which encoder it is in.
type grounding interface {
	// called is Call's phase for op, which has joined the window.
	called(op *Op)
	// assigned is Assigned.
	assigned(lits []Lit)
	// pendingRet and pendingMatch are the side clauses of a new ret
	// variable l of o, o pending, respectively of a new match variable
	// l = match(x,y), x or y pending.
	pendingRet(o *Op, l Lit)
	pendingMatch(x, y *Op, l Lit)
	// forgotten is told of the variables of one operation Remove
	// forgets; revisit is Remove's phase after the operations have left
	// the window.
	forgotten(vars []z.Var)
	revisit()
	// stats adds the grounding's own counts.
	stats(s *GroundingStats)
}

// eagerGround is the complete encoding's grounding (SYMBOLIC, DIMACS):
// every clause is emitted when the call or return that completes it
// happens, and there is no assignment to wait for.
type eagerGround struct{ e *Encoder }

// called makes op's used variable at once: with only one operation it
// might otherwise never be made, and callers assume on it.
func (g eagerGround) called(op *Op) { g.e.used(op) }

func (eagerGround) assigned([]Lit)        {}
func (eagerGround) forgotten([]z.Var)     {}
func (eagerGround) revisit()              {}
func (eagerGround) stats(*GroundingStats) {}

// pendingRet builds the at-most-one of o's return values as the values
// arrive, and ties l to used(o).
//
// A pending operation returns at most one value, and returning one puts
// it in the stronger history (USED). At most one is a ladder (Sinz's
// sequential counter): t_i means "one of the first i variables is true".
// It is linear where pairwise exclusion is quadratic in the values seen
// while the operation is pending, and unit propagation derives from it
// exactly what it derives from the pairwise clauses.
func (g eagerGround) pendingRet(o *Op, l Lit) {
	e := g.e
	if o.retTail == z.LitNull {
		o.retTail = l
	} else {
		t := e.newVar(func() string { return e.reg.names[l.Var()] + " ladder" })
		e.own(o, e.reg.ownedOf(t))
		e.emit2(l.Not(), t.Pos())
		e.emit2(o.retTail.Not(), t.Pos())
		e.emit2(o.retTail.Not(), l.Not())
		o.retTail = t.Pos()
	}
	e.emit2(l.Not(), e.used(o))
}

// pendingMatch says that only used operations are matched (WLOG: no
// axiom needs a match with an unused one), which lets instances whose
// antecedent contains match(x,y) drop the guards used(x), used(y).
func (g eagerGround) pendingMatch(x, y *Op, l Lit) {
	for _, o := range [2]*Op{x, y} {
		if o.pending() {
			g.e.emit2(l.Not(), g.e.used(o))
		}
	}
}

// The lazy grounding's phases (lazy.go has assigned).

// called makes no used variable: SATURATE makes used(op) only when a
// clause needs it while op is pending (a pending witness, a match's side
// clause, a cycle through op). Once op has returned, used(op) is true and
// every atom about it folds to a constant, so most operations never need
// one, nor the unit clause, the owner entry and the forgetting that come
// with a variable.
func (g *lazyGround) called(*Op) {}

func (g *lazyGround) pendingRet(o *Op, l Lit) { g.pendingVarMade(o, l, true) }
func (g *lazyGround) pendingMatch(x, y *Op, l Lit) {
	if x.pending() {
		g.pendingVarMade(x, l, false)
	}
	if y.pending() {
		g.pendingVarMade(y, l, false)
	}
}
func (g *lazyGround) forgotten(vars []z.Var) { g.w.watchForgotten(vars) }
func (g *lazyGround) revisit()               { g.w.revisitForgotten() }

func (g *lazyGround) stats(s *GroundingStats) {
	s.Watched, s.Materialised = g.w.watched, g.w.materialised
}

// zeroSink is the complete encoding's sink: it keeps Encoder.noAssign,
// the assignment read without a saturator, as long as the variables, so
// that val reads every literal as unassigned without a test of its own.
type zeroSink struct {
	Sink
	vals *[]z.Value
}

func (s zeroSink) NewVar() z.Var {
	v := s.Sink.NewVar()
	if n := int(v.Neg()) + 1; n > len(*s.vals) {
		*s.vals = append(*s.vals, make([]z.Value, max(n, 2*len(*s.vals))-len(*s.vals))...)
	}
	return v
}
