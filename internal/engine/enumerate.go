package engine

import (
	"errors"

	"github.com/satmon/satmon/internal/sat"
	"github.com/satmon/satmon/internal/z"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// errStopped reports that an exact check was cut short by its deadline.
var errStopped = errors.New("stopped")

// enumerateMember decides h ∈ H̄ exactly, as the paper's ENUMERATE -c: it
// enumerates every completion of hist (each pending operation dropped or
// completed with each candidate value), every linearization of each
// completion (the real-time order itself for the non-sequential
// exchanger), and every matching that the kernel's MATCH axiom allows, and
// evaluates the kernel's axioms on each. It is the project's oracle: kept
// simple on purpose, exponential, for small histories. stop is polled and
// may be nil; when it returns true Enumerate gives up with errStopped.
func enumerateMember(k *theory.Kernel, hist *h.History, stop func() bool) (bool, error) {
	e := &enumerator{k: k, stop: stop, axioms: k.Axioms()}
	member := false
	err := forCompletions(k, hist, func(comp *h.History) (bool, error) {
		if e.stopped() {
			return false, errStopped
		}
		ok, err := e.completion(k.Prepare(comp).Ops)
		member = ok
		return ok, err
	})
	return member, err
}

type enumerator struct {
	k      *theory.Kernel
	axioms []*theory.Axiom
	stop   func() bool
	polls  int

	ops      []h.Op
	pos      []int // pos[i] = place of op i in the linearization
	match    []int // match[y] = M(y) or -1
	cands    [][]int
	required []bool
}

func (e *enumerator) stopped() bool {
	e.polls++
	return e.stop != nil && e.polls%64 == 0 && e.stop()
}

// completion checks one complete history (all ops used).
func (e *enumerator) completion(ops []h.Op) (bool, error) {
	n := len(ops)
	e.ops = ops
	e.pos = make([]int, n)
	e.match = make([]int, n)
	e.cands = make([][]int, n)
	e.required = make([]bool, n)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if x != y && e.k.PairAllowed(&ops[x].Label, &ops[y].Label) {
				e.cands[y] = append(e.cands[y], x)
			}
		}
		e.required[y] = e.mustMatch(&ops[y].Label)
		if e.required[y] && len(e.cands[y]) == 0 {
			return false, nil
		}
	}
	if !e.k.Sequential {
		for i := range ops {
			e.pos[i] = i
		}
		return e.matchings(0)
	}
	return linearizations(n, func(a, b int) bool { return h.Before(&ops[a], &ops[b]) }, func(pos []int) (bool, error) {
		if e.stopped() {
			return false, errStopped
		}
		copy(e.pos, pos)
		return e.matchings(0)
	})
}

// linearizations calls f with every total order of n operations that
// extends before (pos[i] is operation i's place), depth first, until f
// returns true or an error.
func linearizations(n int, before func(a, b int) bool, f func(pos []int) (bool, error)) (bool, error) {
	preds := make([]int, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if before(j, i) {
				preds[i]++
			}
		}
	}
	pos := make([]int, n)
	placed := make([]bool, n)
	var dfs func(depth int) (bool, error)
	dfs = func(depth int) (bool, error) {
		if depth == n {
			return f(pos)
		}
		for i := 0; i < n; i++ {
			if placed[i] || preds[i] > 0 {
				continue
			}
			placed[i], pos[i] = true, depth
			for j := 0; j < n; j++ {
				if before(i, j) {
					preds[j]--
				}
			}
			ok, err := dfs(depth + 1)
			for j := 0; j < n; j++ {
				if before(i, j) {
					preds[j]++
				}
			}
			placed[i] = false
			if ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	}
	return dfs(0)
}

// matchings tries every matching for operations y.. and evaluates the
// axioms on each.
func (e *enumerator) matchings(y int) (bool, error) {
	if y == len(e.ops) {
		if e.stopped() {
			return false, errStopped
		}
		for _, a := range e.axioms {
			if !theory.Holds(a, e) {
				return false, nil
			}
		}
		return true, nil
	}
	for _, x := range e.cands[y] {
		e.match[y] = x
		if ok, err := e.matchings(y + 1); ok || err != nil {
			return ok, err
		}
	}
	if e.required[y] {
		return false, nil
	}
	e.match[y] = -1
	return e.matchings(y + 1)
}

// mustMatch reports whether some axiom ∀y. P(y) ⇒ ∃x. match(x,y) ∧ …,
// with P about labels only, demands that y be matched. Skipping the
// unmatched choice for such y only prunes matchings that would fail that
// axiom anyway.
func (e *enumerator) mustMatch(l *h.Label) bool {
	for _, a := range e.axioms {
		if len(a.Forall) != 1 || len(a.Exists) != 1 || a.Body.Kind != theory.KImplies {
			continue
		}
		pre, post := a.Body.Args[0], a.Body.Args[1]
		if !labelOnly(pre) || !conjunctHas(post, theory.KMatch, 1, 0) {
			continue
		}
		if theory.Eval(pre, oneOp{l}, []int{0, 0}) {
			return true
		}
	}
	return false
}

func labelOnly(f *theory.Formula) bool {
	switch f.Kind {
	case theory.KB, theory.KMatch, theory.KUsed, theory.KEq:
		return false
	}
	for _, g := range f.Args {
		if !labelOnly(g) {
			return false
		}
	}
	return true
}

func conjunctHas(f *theory.Formula, k theory.Kind, x, y int) bool {
	if f.Kind == k && f.X == x && f.Y == y {
		return true
	}
	if f.Kind == theory.KAnd {
		for _, g := range f.Args {
			if conjunctHas(g, k, x, y) {
				return true
			}
		}
	}
	return false
}

// The enumerator is the theory.Model of the current candidate.
func (e *enumerator) N() int               { return len(e.ops) }
func (e *enumerator) Label(i int) *h.Label { return &e.ops[i].Label }
func (e *enumerator) Used(int) bool        { return true }
func (e *enumerator) Match(x, y int) bool  { return e.match[y] == x }
func (e *enumerator) Before(i, j int) bool {
	if e.k.Sequential {
		return e.pos[i] < e.pos[j]
	}
	return h.Before(&e.ops[i], &e.ops[j])
}

type oneOp [1]*h.Label

func (o oneOp) N() int               { return 1 }
func (o oneOp) Label(int) *h.Label   { return o[0] }
func (o oneOp) Before(int, int) bool { return false }
func (o oneOp) Match(int, int) bool  { return false }
func (o oneOp) Used(int) bool        { return true }

// enumerateLinearizations is ENUMERATE without -c: it enumerates the
// linearizations of all of hist's operations (pending ones included) and
// leaves the completions to the SAT solver, which is told the order by
// assumptions. For the exchanger, whose kernel is not sequential, the one
// order tried is real time itself.
// stop is polled and may be nil; when it returns true the enumeration,
// the grounding and the solver give up with errStopped.
func enumerateLinearizations(k *theory.Kernel, hist *h.History, solver string, stop func() bool) (bool, error) {
	s, err := sat.New(solver)
	if err != nil {
		return false, err
	}
	e, err := encodeHistory(k, hist, s, stop)
	if err != nil {
		return false, err
	}
	ops := e.Ops()
	n := len(ops)
	try := func(pos []int) (bool, error) {
		var assume []z.Lit
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i == j {
					continue
				}
				l, _ := e.BLit(ops[i].Serial, ops[j].Serial)
				if l == z.LitNull {
					continue
				}
				if k.Sequential && pos[i] < pos[j] {
					assume = append(assume, l)
				} else {
					assume = append(assume, l.Not())
				}
			}
		}
		r := s.Solve(stop, assume...)
		if r == sat.Unknown && stop != nil && stop() {
			return false, errStopped
		}
		return r != sat.Unsat, nil
	}
	pos := make([]int, n)
	if !k.Sequential {
		return try(pos)
	}
	polls := 0
	return linearizations(n, func(a, b int) bool { return ops[a].Return >= 0 && ops[a].Return < ops[b].Call }, func(pos []int) (bool, error) {
		polls++
		if stop != nil && polls%16 == 0 && stop() {
			return false, errStopped
		}
		return try(pos)
	})
}
