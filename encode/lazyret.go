package encode

import (
	"cmp"
	"slices"

	"github.com/satmon/satmon/internal/z"
)

// Lazy side conditions of pending operations' variables, for SATURATE.
//
// A pending operation o has return variables ret(o)=v (at most one true,
// and each implies used(o)) and match variables (each implies used(o)).
// Eagerly that is a ladder of three clauses per return variable plus one
// USED clause per variable: a third of SATURATE's clauses on queue and
// stack logs, and measured, almost none of them ever propagates, because
// SATURATE learns a pending operation's value when it returns, and the
// return's units satisfy them all.
//
// Each of these clauses is binary, ¬r ∨ ¬r' or ¬x ∨ used(o), so it is
// unit or false exactly when one of its literals becomes false: r or r'
// true, x true, or used(o) false. Like the transitivity (order.go) they
// are generated at that moment: Assigned emits them for a new true
// ret/match variable of a pending operation and for a new ¬used(o), and
// a variable created after its partner literal is already set gets its
// clause at once. Unit propagation reaches the same fixpoint as with the
// eager clauses (the ladder derives exactly what the pairwise exclusions
// derive); TestLazyGroundingExact compares the two groundings.

// pendingVarMade emits, for a new ret or match variable v of the pending
// operation o, the side clauses that are already unit.
func (g *lazyGround) pendingVarMade(o *Op, v Lit, ret bool) {
	e := g.e
	if u := e.used(o); e.val(u) == -1 {
		e.emit2(v.Not(), u)
	}
	// Only the variable retTrue has seen needs a look: one made true
	// since is still to be seen by retTrue, which will then find v among
	// o's variables. Scanning them all here made a long pending
	// operation's values cost quadratic time.
	if w := o.retTrue; ret && w != z.LitNull && w != v && e.val(w) == 1 {
		e.emit2(w.Not(), v.Not())
	}
}

// retTrue emits the side clauses made unit by ret(o)=v becoming true.
func (g *lazyGround) retTrue(o *Op, v Lit) {
	e := g.e
	o.retTrue = v
	// In the order of the variables (as Return does), not the order they
	// were made: a recycled variable can be made after a higher one.
	ws := e.scr.retSides[:0]
	for _, r := range o.rets.vs {
		if w := r.l; w != v && e.val(w) != -1 {
			ws = append(ws, w)
		}
	}
	slices.SortFunc(ws, func(a, b Lit) int { return cmp.Compare(a.Var(), b.Var()) })
	for _, w := range ws {
		e.emit2(v.Not(), w.Not())
	}
	e.scr.retSides = ws
	g.usedBy(o, v)
	if e.lazyPairs {
		g.otherValue(o, v)
	}
}

// usedBy emits v ⇒ used(o) for a true v, unless used(o) already holds.
func (g *lazyGround) usedBy(o *Op, v Lit) {
	e := g.e
	if o.pending() {
		if u := e.used(o); e.val(u) != 1 {
			e.emit2(v.Not(), u)
		}
	}
}

// usedFalse emits x ⇒ used(o) for each ret and match variable x of o
// that is not already false, now that used(o) is.
func (g *lazyGround) usedFalse(o *Op) {
	e := g.e
	u := e.used(o)
	for _, ov := range o.owned {
		if e.reg.epoch[ov.v] != ov.epoch {
			continue
		}
		x := ov.v
		if k := e.reg.meaning[x].kind; (k == vRet || k == vMatch) && e.val(x.Pos()) != -1 {
			e.emit2(x.Neg(), u)
		}
	}
}
