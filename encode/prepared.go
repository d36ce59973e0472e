package encode

import (
	"sync"

	"github.com/satmon/satmon/theory"
)

// Prepared axioms are shared between the encoders of one kernel. Preparing
// a kernel (splitting its axioms, choosing the binding plans, compiling the
// templates) makes a few hundred small objects, and SATURATE's summaries
// replay a fresh encoder every few steps (encode.Replay), so at low
// concurrency preparing would dominate the allocations per step.
// An axiom is read-only once prepared (New copies what EagerMatching
// changes), so encoders on any goroutine may share it.
//
// The cache holds the last few kernels, by pointer, and checks that the
// kernel's axioms are still the ones it prepared.
var prepared struct {
	sync.Mutex
	entries [preparedKernels]preparedEntry
	next    int
}

type preparedEntry struct {
	k  *theory.Kernel
	ax []*axiom
}

// preparedKernels is how many kernels the cache keeps: a multi-object
// monitor checks a handful side by side.
const preparedKernels = 8

// preparedAxioms returns k's axioms prepared for grounding, theory first.
func preparedAxioms(k *theory.Kernel) []*axiom {
	prepared.Lock()
	defer prepared.Unlock()
	for i := range prepared.entries {
		if en := &prepared.entries[i]; en.k == k && sameAxioms(k, en.ax) {
			return en.ax
		}
	}
	var ax []*axiom
	for _, a := range k.Axioms() {
		ax = append(ax, prepare(a))
	}
	prepared.entries[prepared.next] = preparedEntry{k, ax}
	prepared.next = (prepared.next + 1) % preparedKernels
	return ax
}

// sameAxioms reports whether ax was prepared from k's axioms as they are.
func sameAxioms(k *theory.Kernel, ax []*axiom) bool {
	i := 0
	for _, ds := range [2][]*theory.Def{k.Theory, k.Sanity} {
		for _, d := range ds {
			for _, a := range d.Parts {
				if i >= len(ax) || ax[i].Axiom != a {
					return false
				}
				i++
			}
		}
	}
	return i == len(ax)
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
