package theory

import h "github.com/satmon/satmon/internal/history"

// Model is a finite interpretation of the language: operations 0..N-1
// with labels, an order b, a matching, and the used predicate.
type Model interface {
	N() int
	Label(i int) *h.Label
	Before(i, j int) bool // b(i, j)
	Match(i, j int) bool  // i = M(j)
	Used(i int) bool
}

// Holds evaluates the prenex axiom on m with the quantifiers ranging over
// all N operations (no used guards: callers evaluate on the used
// operations only).
func Holds(a *Axiom, m Model) bool {
	if a.Capacity > 0 {
		return limitCounterexample(a.Capacity, m) == nil
	}
	return HoldsLiterally(a, m)
}

// HoldsLiterally is Holds by enumerating every tuple of the universal
// variables, whatever the axiom (Holds counts for LIMIT; tests compare
// the two).
func HoldsLiterally(a *Axiom, m Model) bool {
	env := make([]int, a.Vars())
	return holdsForall(a, m, env, 0)
}

// limitCounterexample evaluates LIMIT(n),
//
//	∀x0…xn. ⋀ meth(xi) = acquire ∧ ⋀i<n b(xi,xn) ∧ ⋀i<j<n xi ≠ xj
//	        ⇒ ∃r. b(r,xn) ∧ ⋁i≤n match(xi,r),
//
// by counting, in O(N³) instead of O(N^(n+2)). The witness distributes
// over the disjunction, so an instance fails iff no r with b(r,xn)
// releases xn itself and none releases any xi. For a fixed xn an instance
// fails iff xn is an acquire that no such r releases and n distinct
// acquires before xn are each released by no such r ("held at xn"): the
// counterexample is xn with the first n of them.
func limitCounterexample(n int, m Model) []int {
	releasedBefore := func(a, x int) bool {
		for r := 0; r < m.N(); r++ {
			if m.Before(r, x) && m.Match(a, r) {
				return true
			}
		}
		return false
	}
	for x := 0; x < m.N(); x++ {
		if m.Label(x).Method != h.Acquire || releasedBefore(x, x) {
			continue
		}
		var held []int
		for a := 0; a < m.N() && len(held) < n; a++ {
			if m.Label(a).Method == h.Acquire && m.Before(a, x) && !releasedBefore(a, x) {
				held = append(held, a)
			}
		}
		if len(held) == n {
			return append(held, x)
		}
	}
	return nil
}

func holdsForall(a *Axiom, m Model, env []int, i int) bool {
	if i == len(a.Forall) {
		return holdsExists(a, m, env, i)
	}
	for o := 0; o < m.N(); o++ {
		env[i] = o
		if !holdsForall(a, m, env, i+1) {
			return false
		}
	}
	return true
}

func holdsExists(a *Axiom, m Model, env []int, i int) bool {
	if i == len(env) {
		return Eval(a.Body, m, env)
	}
	for o := 0; o < m.N(); o++ {
		env[i] = o
		if holdsExists(a, m, env, i+1) {
			return true
		}
	}
	return false
}

// Counterexample returns an assignment of the universal variables under
// which a fails on m, or nil if a holds.
func Counterexample(a *Axiom, m Model) []int {
	if a.Capacity > 0 {
		return limitCounterexample(a.Capacity, m)
	}
	env := make([]int, a.Vars())
	var found []int
	var walk func(i int) bool
	walk = func(i int) bool {
		if i == len(a.Forall) {
			if !holdsExists(a, m, env, i) {
				found = append([]int(nil), env[:i]...)
				return false
			}
			return true
		}
		for o := 0; o < m.N(); o++ {
			env[i] = o
			if !walk(i + 1) {
				return false
			}
		}
		return true
	}
	walk(0)
	return found
}

// Eval evaluates a quantifier-free formula under the assignment env.
func Eval(f *Formula, m Model, env []int) bool {
	switch f.Kind {
	case KTrue:
		return true
	case KFalse:
		return false
	case KMeth:
		return m.Label(env[f.X]).Method == f.M
	case KRet:
		return RetOf(m.Label(env[f.X])) == f.V
	case KArgEq:
		return m.Label(env[f.X]).Arg == m.Label(env[f.Y]).Arg
	case KArgRet:
		return m.Label(env[f.X]).Arg == RetOf(m.Label(env[f.Y]))
	case KArgLess:
		return m.Label(env[f.X]).Prio < m.Label(env[f.Y]).Prio
	case KEq:
		return env[f.X] == env[f.Y]
	case KB:
		return m.Before(env[f.X], env[f.Y])
	case KMatch:
		return m.Match(env[f.X], env[f.Y])
	case KUsed:
		return m.Used(env[f.X])
	case KRel:
		var ls [3]*h.Label
		for i, v := range f.Vars() {
			ls[i] = m.Label(env[v])
		}
		return f.R.Eval(ls[:f.R.Arity]) == RelTrue
	case KNot:
		return !Eval(f.Args[0], m, env)
	case KAnd:
		for _, g := range f.Args {
			if !Eval(g, m, env) {
				return false
			}
		}
		return true
	case KOr:
		for _, g := range f.Args {
			if Eval(g, m, env) {
				return true
			}
		}
		return false
	case KImplies:
		return !Eval(f.Args[0], m, env) || Eval(f.Args[1], m, env)
	case KIff:
		return Eval(f.Args[0], m, env) == Eval(f.Args[1], m, env)
	case KXor:
		return Eval(f.Args[0], m, env) != Eval(f.Args[1], m, env)
	}
	panic("theory: unknown formula kind")
}

// RetOf is the interpretation of ret: ⊥ for a pending operation.
func RetOf(l *h.Label) h.Value {
	if l.Pending {
		return Bottom
	}
	return l.Ret
}

// PairAllowed reports whether the kernel's MATCH axiom lets x = M(y),
// judging by labels alone.
func (k *Kernel) PairAllowed(x, y *h.Label) bool {
	m := pairModel{x, y}
	return Eval(k.Pair.Body, m, []int{0, 1})
}

// pairModel interprets a two-operation world where match(0,1) holds.
type pairModel [2]*h.Label

func (p pairModel) N() int               { return 2 }
func (p pairModel) Label(i int) *h.Label { return p[i] }
func (p pairModel) Before(i, j int) bool { return false }
func (p pairModel) Match(i, j int) bool  { return i == 0 && j == 1 }
func (p pairModel) Used(i int) bool      { return true }
