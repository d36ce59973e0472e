package encode

import (
	"github.com/satmon/satmon/theory"
)

// axiom is a kernel axiom split for grounding: ∀x̄. ante(x̄) ⇒ rest(x̄) ∨
// ∃ȳ. wit(x̄,ȳ). Pulling the ȳ-free disjuncts out of ∃ȳ is sound because
// the domain is never empty when the guard holds.
type axiom struct {
	*theory.Axiom
	ante    []*theory.Formula
	anteMax []int // highest variable of each antecedent conjunct
	rest    *theory.Formula
	wit     *theory.Formula
	// closable: once the universally bound operations have all returned,
	// no later operation can be a witness (it would have to be ordered
	// before one of them), so the instance can be emitted for good.
	closable bool
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
	for _, c := range p.ante {
		p.anteMax = append(p.anteMax, maxVar(c))
	}
	nf := len(a.Forall)
	var rest, wit []*theory.Formula
	for _, d := range disjuncts(cons) {
		if maxVar(d) >= nf {
			wit = append(wit, d)
		} else {
			rest = append(rest, d)
		}
	}
	if len(rest) > 0 {
		p.rest = theory.Or(rest...)
	}
	if len(wit) > 0 {
		p.wit = theory.Or(wit...)
	}
	if len(a.Exists) > 0 {
		p.closable = true
		for j := range a.Exists {
			if futureValue(p.wit, nf, nf+j) != vFalse {
				p.closable = false
			}
		}
	}
	return p
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

// futureValue evaluates f, three-valued, when variable fut is an operation
// called after every universally bound one (variables < nf) returned:
// b(x, fut) is true and b(fut, x) false for those; all else is unknown.
func futureValue(f *theory.Formula, nf, fut int) tri {
	switch f.Kind {
	case theory.KTrue:
		return vTrue
	case theory.KFalse:
		return vFalse
	case theory.KB:
		if f.X < nf && f.Y == fut {
			return vTrue
		}
		if f.X == fut && f.Y < nf {
			return vFalse
		}
		return vUnknown
	case theory.KNot:
		switch futureValue(f.Args[0], nf, fut) {
		case vTrue:
			return vFalse
		case vFalse:
			return vTrue
		}
		return vUnknown
	case theory.KAnd:
		r := vTrue
		for _, g := range f.Args {
			switch futureValue(g, nf, fut) {
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
			switch futureValue(g, nf, fut) {
			case vTrue:
				return vTrue
			case vUnknown:
				r = vUnknown
			}
		}
		return r
	case theory.KImplies:
		return futureValue(theory.Or(theory.Not(f.Args[0]), f.Args[1]), nf, fut)
	}
	return vUnknown
}

// instances grounds axiom a. With must set, only tuples binding must to
// some universal variable; with closed, only tuples whose universal
// operations have all returned; otherwise (EmitOpen) every tuple not
// already emitted for good. extra literals are added to every clause.
func (e *Encoder) instances(a *axiom, must *Op, closed bool, extra []Lit) {
	win := e.Ops()
	nf := len(a.Forall)
	if cap(e.env) < a.Vars() {
		e.env = make([]*Op, a.Vars())
	}
	e.env = e.env[:a.Vars()]
	ante := make([]*node, 0, len(a.ante))
	var rec func(i int, seenMust bool)
	rec = func(i int, seenMust bool) {
		if i == nf {
			if must != nil && !seenMust {
				return
			}
			allDone := true
			for _, o := range e.env[:nf] {
				if o.pending() {
					allDone = false
				}
			}
			if closed && !allDone {
				return
			}
			if must == nil && allDone && a.closable {
				return // emitted for good when its last operation returned
			}
			e.leaf(a, win, ante, extra)
			return
		}
		for _, o := range win {
			isMust := o == must
			// Each tuple once: must's first occurrence is at the first
			// variable bound to it.
			if must != nil && !seenMust && !isMust && i == nf-1 {
				continue
			}
			e.env[i] = o
			mark := len(ante)
			ok := true
			for c, f := range a.ante {
				if a.anteMax[c] != i {
					continue
				}
				n := e.fold(f, false)
				if n.kind == nFalse {
					ok = false
					break
				}
				ante = append(ante, n)
			}
			if ok {
				rec(i+1, seenMust || isMust)
			}
			ante = ante[:mark]
		}
	}
	rec(0, false)
}

func (e *Encoder) leaf(a *axiom, win []*Op, ante []*node, extra []Lit) {
	nf := len(a.Forall)
	var parts []*node
	// ¬(used(x̄) ∧ ante)
	for j, o := range e.env[:nf] {
		dup := false
		for _, p := range e.env[:j] {
			if p == o {
				dup = true
			}
		}
		if !dup {
			parts = append(parts, not(e.usedNode(o)))
		}
	}
	for _, n := range ante {
		parts = append(parts, not(n))
	}
	if a.rest != nil {
		parts = append(parts, e.fold(a.rest, false))
	}
	if a.wit != nil {
		e.witnesses(a, win, nf, &parts)
	}
	n := or(parts...)
	if n.kind == nTrue {
		return
	}
	e.assert(n, extra)
}

// witnesses appends ∨ȳ used(ȳ) ∧ wit(x̄,ȳ) over the window.
func (e *Encoder) witnesses(a *axiom, win []*Op, j int, parts *[]*node) {
	if j == a.Vars() {
		conj := []*node{}
		for _, o := range e.env[len(a.Forall):] {
			conj = append(conj, e.usedNode(o))
		}
		conj = append(conj, e.fold(a.wit, false))
		*parts = append(*parts, and(conj...))
		return
	}
	for _, o := range win {
		e.env[j] = o
		e.witnesses(a, win, j+1, parts)
	}
}
