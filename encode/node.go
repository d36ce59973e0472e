package encode

import (
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

func (gr *folder) litNode(l Lit) *node { return gr.e.scr.nodes.new(nLit, l, nil) }

func constNode(b bool) *node {
	if b {
		return trueNode
	}
	return falseNode
}

// and folds constants and flattens nested conjunctions.
func (gr *folder) and(args ...*node) *node {
	e := gr.e
	n := 0
	for _, a := range args {
		n += len(a.args) + 1
	}
	out := e.scr.nodes.list(n)
	for _, a := range args {
		switch gr.settled(a) {
		case nFalse:
			return falseNode
		case nTrue:
			continue
		case nAnd:
			out = append(out, a.args...)
		default:
			out = append(out, a)
		}
	}
	switch len(out) {
	case 0:
		return trueNode
	case 1:
		return out[0]
	}
	return e.scr.nodes.new(nAnd, z.LitNull, out)
}

// or folds constants and flattens nested disjunctions.
func (gr *folder) or(args ...*node) *node {
	e := gr.e
	n := 0
	for _, a := range args {
		n += len(a.args) + 1
	}
	out := e.scr.nodes.list(n)
	for _, a := range args {
		switch gr.settled(a) {
		case nTrue:
			return trueNode
		case nFalse:
			continue
		case nOr:
			out = append(out, a.args...)
		default:
			out = append(out, a)
		}
	}
	switch len(out) {
	case 0:
		return falseNode
	case 1:
		return out[0]
	}
	return e.scr.nodes.new(nOr, z.LitNull, out)
}

// settled is n's kind, except that a literal the saturator has already
// assigned counts as the constant it is (SATURATE only): as for isTrue,
// nothing is ever unassigned, so in a clause the literal is dead weight,
// and a conjunction with it needs no helper.
func (gr *folder) settled(n *node) nodeKind {
	e := gr.e
	if n.kind == nLit {
		switch e.val(n.lit) {
		case 1:
			return nTrue
		case -1:
			return nFalse
		}
	}
	return n.kind
}

func (gr *folder) not(n *node) *node {
	e := gr.e
	switch n.kind {
	case nFalse:
		return trueNode
	case nTrue:
		return falseNode
	case nLit:
		return gr.litNode(n.lit.Not())
	case nAnd:
		out := e.scr.nodes.list(len(n.args))
		for _, a := range n.args {
			out = append(out, gr.not(a))
		}
		return gr.or(out...)
	default:
		out := e.scr.nodes.list(len(n.args))
		for _, a := range n.args {
			out = append(out, gr.not(a))
		}
		return gr.and(out...)
	}
}

// assert emits clauses making n true. Disjunctions of compound formulas
// get one fresh variable per compound disjunct that implies it
// (Plaisted–Greenbaum: only the needed polarity), which keeps the clause
// set equisatisfiable and linear in the formula's size.
func (gr *folder) assert(n *node, extra []Lit) {
	e := gr.e
	switch n.kind {
	case nTrue:
		return
	case nFalse:
		e.emit(extra)
	case nLit:
		if gr.isTrue(n) {
			return
		}
		start := len(e.scr.stack)
		e.scr.stack = append(append(e.scr.stack, extra...), n.lit)
		e.emit(e.scr.stack[start:])
		e.scr.stack = e.scr.stack[:start]
	case nAnd:
		for _, a := range n.args {
			gr.assert(a, extra)
		}
	case nOr:
		for _, a := range n.args {
			if gr.isTrue(a) {
				return // see isTrue
			}
		}
		// The clause grows on the stack; litFor builds the helpers'
		// clauses above it and leaves the stack as it found it.
		start := len(e.scr.stack)
		e.scr.stack = append(e.scr.stack, extra...)
		for _, a := range n.args {
			l := gr.litFor(a)
			e.scr.stack = append(e.scr.stack, l)
		}
		e.emit(e.scr.stack[start:])
		e.scr.stack = e.scr.stack[:start]
	}
}

// litFor returns a literal that implies n.
func (gr *folder) litFor(n *node) Lit {
	e := gr.e
	if n.kind == nLit {
		return n.lit
	}
	t := e.fo.aux()
	start := len(e.scr.stack)
	e.scr.stack = append(e.scr.stack, t.Not())
	gr.assert(n, e.scr.stack[start:start+1:start+1])
	e.scr.stack = e.scr.stack[:start]
	return t
}

// isTrue reports whether n is a literal the saturator already holds true
// (SATURATE only). A clause containing it need not be emitted: nothing is
// ever unassigned while the clause would live (forgetting the literal's
// variable would remove the clause too), so it would never be watched and
// never propagate. Its Tseitin helpers occur positively only in it, so
// they could never propagate anything either. Pruning such instances
// keeps unit propagation's result exactly as it was, and a third of the
// clauses of a long-running window are of this kind.
func (gr *folder) isTrue(n *node) bool {
	e := gr.e
	return n.kind == nLit && e.val(n.lit) == 1
}

// isFalse is isTrue for ¬n.
func (gr *folder) isFalse(n *node) bool {
	e := gr.e
	return n.kind == nLit && e.val(n.lit) == -1
}

// fold grounds f under e.env. With noMatch, match atoms are true (used
// when folding the MATCH axiom's own consequent).
func (gr *folder) fold(f *theory.Formula, noMatch bool) *node {
	e := gr.e
	env := e.scr.env
	switch f.Kind {
	case theory.KTrue:
		return trueNode
	case theory.KFalse:
		return falseNode
	case theory.KMeth:
		return constNode(env[f.X].Label.Method == f.M)
	case theory.KRet:
		return e.fo.retNode(env[f.X], f.V)
	case theory.KArgEq:
		return constNode(env[f.X].Label.Arg == env[f.Y].Label.Arg)
	case theory.KArgRet:
		return e.fo.retNode(env[f.Y], env[f.X].Label.Arg)
	case theory.KArgLess:
		return constNode(env[f.X].Label.Prio < env[f.Y].Label.Prio)
	case theory.KEq:
		return constNode(env[f.X] == env[f.Y])
	case theory.KB:
		return e.fo.bNode(env[f.X], env[f.Y])
	case theory.KMatch:
		if noMatch {
			return trueNode
		}
		return e.fo.matchNode(env[f.X], env[f.Y])
	case theory.KUsed:
		return e.fo.usedNode(env[f.X])
	case theory.KRel:
		return gr.relNode(f)
	case theory.KNot:
		return gr.not(gr.fold(f.Args[0], noMatch))
	case theory.KAnd:
		out := e.scr.nodes.list(len(f.Args))
		for _, g := range f.Args {
			n := gr.fold(g, noMatch)
			if n.kind == nFalse {
				return falseNode
			}
			out = append(out, n)
		}
		return gr.and(out...)
	case theory.KOr:
		out := e.scr.nodes.list(len(f.Args))
		for _, g := range f.Args {
			n := gr.fold(g, noMatch)
			if n.kind == nTrue {
				return trueNode
			}
			out = append(out, n)
		}
		return gr.or(out...)
	case theory.KImplies:
		a := gr.fold(f.Args[0], noMatch)
		if a.kind == nFalse {
			return trueNode
		}
		return gr.or(gr.not(a), gr.fold(f.Args[1], noMatch))
	case theory.KIff:
		a, b := gr.fold(f.Args[0], noMatch), gr.fold(f.Args[1], noMatch)
		return gr.and(gr.or(gr.not(a), b), gr.or(a, gr.not(b)))
	case theory.KXor:
		a, b := gr.fold(f.Args[0], noMatch), gr.fold(f.Args[1], noMatch)
		return gr.and(gr.or(a, b), gr.or(gr.not(a), gr.not(b)))
	}
	panic("encode: unknown formula kind")
}

func (gr *folder) aux() Lit {
	e := gr.e
	v := e.newVar(func() string { return "aux" })
	ov := e.reg.ownedOf(v)
	for _, o := range e.gr.curOps() {
		e.own(o, ov)
	}
	return v.Pos()
}

func (gr *folder) usedNode(o *Op) *node {
	e := gr.e
	if !o.pending() {
		return trueNode
	}
	return e.fo.litNode(e.used(o))
}

func (gr *folder) bNode(x, y *Op) *node {
	e := gr.e
	if t := realTime(x, y); t != vUnknown {
		return constNode(t == vTrue)
	}
	if e.k.Sequential {
		// In a linearization b(y,x) = ¬b(x,y); identifying the two keeps
		// totality implicit. Unused operations are outside the model, so
		// their order is irrelevant.
		if x.Serial < y.Serial {
			return e.fo.litNode(e.variable(varKey{kind: vB, x: x.Serial, y: y.Serial, xo: x, yo: y}))
		}
		return e.fo.litNode(e.variable(varKey{kind: vB, x: y.Serial, y: x.Serial, xo: y, yo: x}).Not())
	}
	return e.fo.litNode(e.variable(varKey{kind: vB, x: x.Serial, y: y.Serial, xo: x, yo: y}))
}

// retNode is ret(o) = v. A pending operation's ⊥ stands for "not used"; a
// used pending operation with every ret variable false returns a value
// seen nowhere in the window (docs/encoding.md shows this never helps).
func (gr *folder) retNode(o *Op, v h.Value) *node {
	e := gr.e
	if !o.pending() {
		return constNode(o.Label.Ret == v)
	}
	if v == theory.Bottom {
		return e.fo.litNode(e.used(o).Not())
	}
	if l, ok := o.rets.get(v); ok {
		return e.fo.litNode(l)
	}
	if !e.lab.retPossible(o, v) {
		return falseNode
	}
	return e.fo.litNode(e.variable(varKey{kind: vRet, x: o.Serial, v: v, xo: o}))
}

func (gr *folder) matchNode(x, y *Op) *node {
	e := gr.e
	if x == y && e.k.Object != h.Exchanger {
		return falseNode
	}
	// A match variable is known only while its pair is possible (see
	// ruleOut), so an existing one needs no new check.
	if l, ok := e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key()); ok {
		return e.fo.litNode(l)
	}
	if !e.lab.matchPossible(x, y) {
		return falseNode
	}
	return e.fo.litNode(e.variable(varKey{kind: vMatch, x: x.Serial, y: y.Serial, xo: x, yo: y}))
}

// bLit is b(x,y) as a literal, or z.LitNull and its constant value.
func (gr *folder) bLit(x, y *Op) (Lit, bool) {
	switch {
	case x == y:
		return z.LitNull, false
	case before(x, y):
		return z.LitNull, true
	case before(y, x):
		return z.LitNull, false
	}
	n := gr.bNode(x, y)
	return n.lit, false
}

// relNode grounds a KRel atom under e.env. Derived relations
// (theory.Rel) are label facts, like arg(x) = ret(y): they fold to
// constants once the return values they read are known. The kernels that read a
// pending operation's return value in a relation (the string register's
// get) leave that operation out of every instance while it is pending
// (dropped), so the value is known here; should it not be, the atom
// becomes a fresh unconstrained variable, which can only admit more.
func (gr *folder) relNode(f *theory.Formula) *node {
	e := gr.e
	switch relValue(f, func(i int) *Op { return e.scr.env[i] }) {
	case vTrue:
		return trueNode
	case vFalse:
		return falseNode
	}
	return gr.litNode(e.fo.aux())
}
