package encode

import (
	"github.com/satmon/satmon/internal/z"
)

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
