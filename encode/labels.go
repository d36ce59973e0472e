package encode

import (
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// labelRules is what the labels alone decide about operations: which
// values a method may return and which pairs MATCH allows (its
// consequent folded on methods, arguments and the return values known),
// memoized per method. It is fixed at New but for retKinds' memo, and
// reads no other part.
type labelRules struct {
	obj     h.Object
	pair    *theory.Axiom // the kernel's MATCH
	pairRet bool          // Encoder.pairRet

	methPair [memoMethods * memoMethods]bool // methodsMayMatch's table, by method pair
	retKinds [memoMethods]h.RetKind          // retPossible's memo, by method (0: not yet)
	// methAsX[m] and methAsY[m] have bit mo set when methodsMayMatch(m,
	// mo), respectively methodsMayMatch(mo, m) (partnerCands).
	methAsX, methAsY [memoMethods]uint16
}

// retPossible rules out return values of the wrong kind for the method.
func (lr *labelRules) retPossible(o *Op, v h.Value) bool {
	var kind h.RetKind
	if m := o.Label.Method; int(m) < len(lr.retKinds) {
		// Memoized: Call asks this for a pending operation and each
		// operation of the window.
		if kind = lr.retKinds[m]; kind == 0 {
			kind = retKindOf(lr.obj, m)
			lr.retKinds[m] = kind
		}
	} else {
		kind = retKindOf(lr.obj, m)
	}
	switch kind {
	case noRetKind:
		return false
	case h.RetNone:
		return v == h.Void
	case h.RetBool:
		return v == h.True || v == h.False
	case h.RetValue:
		return v != h.Void
	case h.RetStatus:
		return v == h.OK || v == h.Fail
	}
	return true
}

// noRetKind stands for a method the object does not have.
const noRetKind h.RetKind = 255

func retKindOf(obj h.Object, m h.Method) h.RetKind {
	sig, ok := h.SignatureOf(obj, m)
	if !ok {
		return noRetKind
	}
	return sig.Ret
}

// matchPossible folds the kernel's MATCH axiom for the pair: false when
// the labels alone forbid match(x,y).
func (lr *labelRules) matchPossible(x, y *Op) bool {
	if !lr.methodsMayMatch(x.Label.Method, y.Label.Method) {
		return false
	}
	if lr.pairRet && x.Label.Method < memoMethods && y.Label.Method < memoMethods {
		// The methods allow the pair (memoized); arg(x) = ret(y) is all
		// that is left. Call asks this of every pair of the window.
		if !y.pending() {
			return x.argID == y.retID
		}
		return lr.retPossible(y, x.Label.Arg)
	}
	return lr.possible(lr.pair.Body.Args[1], x, y) != vFalse
}

// methodsMayMatch is MATCH folded on the methods alone, read from the
// table New fills: most pairs of a window (two adds, two removes) fail
// on their methods, and Call tries every operation of the window both
// ways. Methods past the table are not folded (the full fold decides).
// Small enough to be inlined at its call sites.
func (lr *labelRules) methodsMayMatch(mx, my h.Method) bool {
	return mx|my >= memoMethods || lr.methPair[(uint(mx)*memoMethods+uint(my))%(memoMethods*memoMethods)]
}

// foldMethods fills methPair: MATCH's consequent folded for each pair of
// methods below memoMethods, false where the methods alone rule the pair
// out.
func (lr *labelRules) foldMethods() {
	if len(lr.pair.Body.Args) < 2 {
		// No consequent to fold (no kernel has such a MATCH): nothing is
		// ruled out.
		for i := range lr.methPair {
			lr.methPair[i] = true
		}
		lr.masks()
		return
	}
	f := lr.pair.Body.Args[1]
	for mx := range h.Method(memoMethods) {
		for my := range h.Method(memoMethods) {
			r := eval3(f, func(a *theory.Formula) tri {
				if a.Kind != theory.KMeth {
					return vUnknown
				}
				m := mx
				if a.X == 1 {
					m = my
				}
				return triOf(m == a.M)
			})
			lr.methPair[int(mx)*memoMethods+int(my)] = r != vFalse
		}
	}
	lr.masks()
}

// masks fills methAsX and methAsY from methPair.
func (lr *labelRules) masks() {
	for mx := range memoMethods {
		for my := range memoMethods {
			if lr.methPair[mx*memoMethods+my] {
				lr.methAsX[mx] |= 1 << my
				lr.methAsY[my] |= 1 << mx
			}
		}
	}
}

// possible evaluates a MATCH consequent for the pair (x,y), three-valued:
// the return value of a pending operation is unknown. It creates no
// variable, because it runs for every pair of the window.
func (lr *labelRules) possible(f *theory.Formula, x, y *Op) tri {
	atom := func(a *theory.Formula) tri { return lr.possibleAtom(a, x, y) }
	if f.Kind != theory.KAnd {
		return eval3(f, atom)
	}
	// The usual MATCH consequent is a conjunction of atoms: evaluated
	// here without the interpreter, as Call does it for every pair of the
	// window.
	r := vTrue
	for _, g := range f.Args {
		var t tri
		if g.Kind >= theory.KMeth && g.Kind <= theory.KUsed { // an atom
			t = lr.possibleAtom(g, x, y)
		} else {
			t = eval3(g, atom)
		}
		switch t {
		case vFalse:
			return vFalse
		case vUnknown:
			r = vUnknown
		}
	}
	return r
}

// possibleAtom is possible's value of one atom.
func (lr *labelRules) possibleAtom(a *theory.Formula, x, y *Op) tri {
	op := func(i int) *Op {
		if i == 0 {
			return x
		}
		return y
	}
	switch a.Kind {
	case theory.KMeth:
		return triOf(op(a.X).Label.Method == a.M)
	case theory.KRet:
		o := op(a.X)
		if !o.pending() {
			return triOf(o.Label.Ret == a.V)
		}
		if a.V == theory.Bottom || lr.retPossible(o, a.V) {
			return vUnknown
		}
		return vFalse
	case theory.KArgEq:
		return triOf(op(a.X).Label.Arg == op(a.Y).Label.Arg)
	case theory.KArgRet:
		o := op(a.Y)
		if !o.pending() {
			return triOf(op(a.X).Label.Arg == o.Label.Ret)
		}
		if lr.retPossible(o, op(a.X).Label.Arg) {
			return vUnknown
		}
		return vFalse
	case theory.KArgLess:
		return triOf(op(a.X).Label.Prio < op(a.Y).Label.Prio)
	case theory.KEq:
		return triOf(x == y || a.X == a.Y)
	case theory.KRel:
		return relValue(a, func(i int) *Op { return op(i) })
	}
	return vUnknown // b, match, used: not label facts
}

// relValue is the three-valued value of a KRel atom, op giving the
// operation bound to each variable.
func relValue(f *theory.Formula, op func(int) *Op) tri {
	var ls [3]*h.Label
	for i, v := range f.Vars() {
		ls[i] = &op(v).Label
	}
	switch f.R.Eval(ls[:f.R.Arity]) {
	case theory.RelTrue:
		return vTrue
	case theory.RelFalse:
		return vFalse
	}
	return vUnknown
}
