package encode

import (
	"github.com/satmon/satmon/internal/z"
)

// lazyGround is SATURATE's lazy grounding: the clauses it generates only
// when the saturator's assignment makes them unit or false, rather than
// at the call or return that completes them. It owns
//
//   - the watched ∀∃ instances (watched.go, with Config.Watch),
//   - transitivity on demand (order.go),
//   - the side clauses of pending operations' return and match variables
//     (lazyret.go) and MATCH's clauses (lazypair.go),
//
// An encoder has one when it is made with Config.Lazy and a sequential
// kernel (New), and none for SYMBOLIC and DIMACS, which ground
// everything: each phase of the encoder (step.go) asks once whether
// there is one. It reaches the window, the variables and the clause sink
// through the encoder it belongs to (e); the encoder's grounder reads the
// same assignment (Encoder.assign) to fold literals.
type lazyGround struct {
	e *Encoder
	w watchState // watched ∀∃ instances (watched.go)
	// lazyOrder is transitivity's state, declared in order.go, so that
	// order.go needs nothing of this file.
	lazyOrder
}

// newLazy makes e's lazy grounding; watch and closed are Config.Watch
// and, with it, Config.ClosedRemoval.
func newLazy(e *Encoder, watch, closed bool) *lazyGround {
	g := &lazyGround{e: e}
	g.w.e = e
	g.w.on, g.w.closed = watch, closed
	return g
}

// assigned is Assigned: it visits the watched ∀∃ instances that watch the
// literals (with Config.Watch) and emits the instances, transitivity and
// side clauses that they made unit or false.
//
// Not inlined: its loop inlines the per-literal checks (watchAssigned),
// which its caller, inlining it under profile-guided optimisation, ran
// out of budget for.
//
//go:noinline
func (g *lazyGround) assigned(lits []Lit) {
	e := g.e
	e.scr.nodes.reset()
	for _, o := range e.usedFacts { // see Return
		g.usedAssigned(o)
	}
	e.usedFacts = e.usedFacts[:0]
	for _, l := range lits {
		if e.poll() {
			return
		}
		v := l.Var()
		if g.w.on {
			g.w.watchAssigned(l)
		}
		if int(v) >= len(e.reg.meaning) {
			continue
		}
		m := e.reg.meaning[v]
		switch m.kind {
		case vB:
			x, y := e.reg.varOps[v][0], e.reg.varOps[v][1]
			if l.IsNeg() {
				x, y = y, x
			}
			g.edgeAssigned(x, y, l)
		case vUsed:
			if o := e.reg.varOps[v][0]; l.IsPos() {
				g.usedAssigned(o)
			} else if o.pending() {
				g.usedFalse(o)
			}
		case vRet:
			switch o := e.reg.varOps[v][0]; {
			case !o.pending():
			case l.IsPos():
				g.retTrue(o, l)
			case e.lazyPairs:
				g.retFalse(o, l.Not())
			}
		case vMatch:
			if l.IsPos() {
				x, y := e.reg.varOps[v][0], e.reg.varOps[v][1]
				g.usedBy(x, l)
				g.usedBy(y, l)
				if e.lazyPairs {
					g.pairTrue(x, y, l)
				}
				e.match.matchTrue(x, y, l)
			}
		}
	}
}

// called makes no used variable: SATURATE makes used(op) only when a
// clause needs it while op is pending (a pending witness, a match's side
// clause, a cycle through op). Once op has returned, used(op) is true and
// every atom about it folds to a constant, so most operations never need
// one, nor the unit clause, the owner entry and the forgetting that come
// with a variable.
func (g *lazyGround) called(*Op) {}

// The other phases of the grounding interface (grounding.go).

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
