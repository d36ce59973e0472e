package encode

import (
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

// atomLit grounds atom c under e.env as fold does: a literal (kind nLit)
// or a constant (nTrue, nFalse), creating the same variables.
func (gr *folder) atomLit(c *catom) (Lit, nodeKind) {
	e := gr.e
	env := e.scr.env
	var l Lit
	k := nLit
	switch c.kind {
	case theory.KMeth:
		k = constKind(env[c.x].Label.Method == c.m)
	case theory.KRet:
		l, k = gr.retLit(env[c.x], c.v)
	case theory.KArgEq:
		k = constKind(env[c.x].Label.Arg == env[c.y].Label.Arg)
	case theory.KArgRet:
		l, k = gr.retLit(env[c.y], env[c.x].Label.Arg)
	case theory.KArgLess:
		k = constKind(env[c.x].Label.Prio < env[c.y].Label.Prio)
	case theory.KEq:
		k = constKind(env[c.x] == env[c.y])
	case theory.KB:
		l, k = gr.bLitKind(env[c.x], env[c.y])
	case theory.KMatch:
		l, k = gr.matchLit(env[c.x], env[c.y])
	case theory.KUsed:
		if o := env[c.x]; o.pending() {
			l = e.used(o)
		} else {
			k = nTrue
		}
	}
	if c.neg {
		l, k = negLit(l, k)
	}
	return l, k
}

// retLit is retNode without the node.
func (gr *folder) retLit(o *Op, v h.Value) (Lit, nodeKind) {
	e := gr.e
	if !o.pending() {
		return noLit, constKind(o.Label.Ret == v)
	}
	if v == theory.Bottom {
		return e.used(o).Not(), nLit
	}
	if l, ok := o.rets.get(v); ok {
		return l, nLit
	}
	if !e.lab.retPossible(o, v) {
		return noLit, nFalse
	}
	return e.variable(varKey{kind: vRet, x: o.Serial, v: v, xo: o}), nLit
}

// bLitKind is bNode without the node.
func (gr *folder) bLitKind(x, y *Op) (Lit, nodeKind) {
	switch realTime(x, y) {
	case vTrue:
		return noLit, nTrue
	case vFalse:
		return noLit, nFalse
	}
	e := gr.e // here, not above: loaded where it is used, it needs no nil check of its own
	if e.k.Sequential {
		if x.Serial < y.Serial {
			return e.pairVar(vB, x, y), nLit
		}
		return e.pairVar(vB, y, x).Not(), nLit
	}
	return e.pairVar(vB, x, y), nLit
}

// matchLit is matchNode without the node.
func (gr *folder) matchLit(x, y *Op) (Lit, nodeKind) {
	e := gr.e
	if x == y && e.k.Object != h.Exchanger {
		return noLit, nFalse
	}
	if v, ok := e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key()); ok {
		return v, nLit
	}
	if !e.lab.matchPossible(x, y) {
		return noLit, nFalse
	}
	return e.makeVar(&varKey{kind: vMatch, x: x.Serial, y: y.Serial, xo: x, yo: y}), nLit // not found above
}

// absentLit is atomLit for a b or match atom that knownAtom found
// undecided with no variable: it makes the variable without looking it
// up again (real time, which knownAtom read, leaves a b atom open).
// partner says that the atom is the match atom between a witness and
// the operation whose partner it is (template.witSrc): the pair is
// possible.
func (gr *folder) absentLit(c *catom, partner bool) (Lit, nodeKind) {
	e := gr.e
	x, y := e.scr.env[c.x], e.scr.env[c.y]
	var l Lit
	if c.kind == theory.KMatch {
		if x == y && e.k.Object != h.Exchanger || !partner && !e.lab.matchPossible(x, y) {
			if c.neg {
				return noLit, nTrue
			}
			return noLit, nFalse
		}
		l = e.makeVar(&varKey{kind: vMatch, x: x.Serial, y: y.Serial, xo: x, yo: y})
	} else if !e.k.Sequential || x.Serial < y.Serial {
		l = e.makeVar(&varKey{kind: vB, x: x.Serial, y: y.Serial, xo: x, yo: y})
	} else {
		l = e.makeVar(&varKey{kind: vB, x: y.Serial, y: x.Serial, xo: y, yo: x}).Not()
	}
	if c.neg {
		l = l.Not()
	}
	return l, nLit
}

// settledLit is settled for a literal: nTrue or nFalse when the saturator
// has assigned it (SATURATE only), else nLit.
func (gr *folder) settledLit(l Lit) nodeKind {
	switch gr.e.val(l) {
	case 1:
		return nTrue
	case -1:
		return nFalse
	}
	return nLit
}

// knownAtom is known for a coded atom. It also returns the atom's
// literal when it found the variable (z.LitNull otherwise): the atom
// folds to that literal (see witLits). Each kind either decides the atom
// by labels and real time or finds its variable, whose value is then
// read in one place.
func (gr *folder) knownAtom(c *catom) (tri, Lit) {
	e := gr.e
	env := e.scr.env
	t := vUnknown
	var l Lit // the atom's variable (positive), if it exists
	switch c.kind {
	case theory.KMeth:
		t = triOf(env[c.x].Label.Method == c.m)
	case theory.KRet:
		if c.v == theory.Bottom {
			return vUnknown, noLit
		}
		if o := env[c.x]; !o.pending() {
			t = triOf(o.Label.Ret == c.v)
		} else {
			l, _ = o.rets.get(c.v) // z.LitNull when missing
		}
	case theory.KArgEq:
		t = triOf(env[c.x].Label.Arg == env[c.y].Label.Arg)
	case theory.KArgRet:
		if o, v := env[c.y], env[c.x].Label.Arg; !o.pending() {
			t = triOf(o.Label.Ret == v)
		} else {
			l, _ = o.rets.get(v)
		}
	case theory.KArgLess:
		t = triOf(env[c.x].Label.Prio < env[c.y].Label.Prio)
	case theory.KEq:
		t = triOf(env[c.x] == env[c.y])
	case theory.KB:
		x, y := env[c.x], env[c.y]
		if t = realTime(x, y); t == vUnknown {
			// As bExisting: in a sequential kernel b(y,x) is ¬b(x,y).
			if !e.k.Sequential || x.Serial < y.Serial {
				l, _ = e.reg.vars.get(varPair{vB, int32(x.Serial), int32(y.Serial)}.key())
			} else if r, ok := e.reg.vars.get(varPair{vB, int32(y.Serial), int32(x.Serial)}.key()); ok {
				l = r.Not()
			}
		}
	case theory.KMatch:
		x, y := env[c.x], env[c.y]
		var ok bool
		// excluded needs a true match variable in x's row or y's column.
		if l, ok = e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key()); !ok &&
			(x.trueAsX != noLit || y.trueAsY != noLit) && e.match.excluded(x, y) {
			t = vFalse
		}
	case theory.KUsed:
		if o := env[c.x]; !o.pending() {
			t = vTrue
		} else {
			l = o.usedVar
		}
	}
	if l != noLit {
		switch e.val(l) {
		case 1:
			t = vTrue
		case -1:
			t = vFalse
		}
	}
	if c.neg {
		if l != noLit {
			l = l.Not()
		}
		switch t {
		case vTrue:
			return vFalse, l
		case vFalse:
			return vTrue, l
		}
	}
	return t, l
}

func (gr *folder) isTrueLit(l Lit) bool { return gr.e.val(l) == 1 }

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

// folder folds atoms and formulas under the bound operations to
// constants, literals (making the variables they need) and ground
// nodes, and turns nodes into clauses (Plaisted–Greenbaum, node.go).
type folder struct {
	e *Encoder
	// drop is the kernel's DropPending method (dropped), kept here so
	// that the test, made at every binding, reads one field.
	drop h.Method
}

// negLit negates a literal or constant as atomLit returns it.
func negLit(l Lit, k nodeKind) (Lit, nodeKind) {
	switch k {
	case nTrue:
		return l, nFalse
	case nFalse:
		return l, nTrue
	}
	return l.Not(), k
}

func constKind(b bool) nodeKind {
	if b {
		return nTrue
	}
	return nFalse
}

// dropped reports whether o is a pending operation of the kernel's
// DropPending method: it is bound in no instance until it returns.
func (gr *folder) dropped(o *Op) bool {
	return gr.drop != h.NoMethod && o.Label.Method == gr.drop && o.pending()
}
