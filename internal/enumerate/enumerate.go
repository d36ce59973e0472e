// Package enumerate is the paper's ENUMERATE -c (§6): every completion,
// linearization and matching of a small history, with the kernel's
// axioms evaluated on each. It is the project's oracle, kept simple on
// purpose, and the exact check of the ENUMERATE variants.
package enumerate

import (
	"errors"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// ErrStopped reports that a check was cut short: its stop returned true.
var ErrStopped = errors.New("stopped")

// Member decides h ∈ H̄ exactly, as the paper's ENUMERATE -c: it
// enumerates every completion of hist (each pending operation dropped or
// completed with each candidate value), every linearization of each
// completion (the real-time order itself for the non-sequential
// exchanger), and every matching that the kernel's MATCH axiom allows, and
// evaluates the kernel's axioms on each. It is the project's oracle: kept
// simple on purpose, exponential, for small histories. stop is polled and
// may be nil; when it returns true Member gives up with ErrStopped.
func Member(k *theory.Kernel, hist *h.History, stop func() bool) (bool, error) {
	e := &enumerator{k: k, stop: stop, axioms: k.Axioms()}
	member := false
	err := Completions(k, hist, func(comp *h.History) (bool, error) {
		if e.stopped() {
			return false, ErrStopped
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
	return Linearizations(n, func(a, b int) bool { return h.Before(&ops[a], &ops[b]) }, func(pos []int) (bool, error) {
		if e.stopped() {
			return false, ErrStopped
		}
		copy(e.pos, pos)
		return e.matchings(0)
	})
}

// Linearizations calls f with every total order of n operations that
// extends before (pos[i] is operation i's place), depth first, until f
// returns true or an error.
func Linearizations(n int, before func(a, b int) bool, f func(pos []int) (bool, error)) (bool, error) {
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
			return false, ErrStopped
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

// Completions calls f on every completion of hist: each pending
// operation dropped or completed, after every other action, with each
// candidate value. It stops when f returns true or an error.
func Completions(k *theory.Kernel, hist *h.History, f func(*h.History) (bool, error)) error {
	pending, cands, sizes := PendingCandidates(k, hist)
	end := 0
	for i := range hist.Ops {
		end = max(end, hist.Ops[i].Call+1, hist.Ops[i].Return+1)
	}
	return Odometer(sizes, func(choice []int) (bool, error) {
		comp := &h.History{Object: hist.Object, Param: hist.Param}
		pj := 0
		next := end
		for i := range hist.Ops {
			o := hist.Ops[i]
			if pj < len(pending) && pending[pj] == i {
				c := choice[pj]
				v := cands[pj]
				pj++
				if c < 0 {
					continue
				}
				o.Label.Pending, o.Label.Ret, o.Return = false, v[c], next
				next++
			}
			comp.Ops = append(comp.Ops, o)
		}
		return f(comp)
	})
}

// Odometer calls f on every choice vector with choice[j] in
// [-1, sizes[j]) (-1: the pending operation j is dropped; otherwise the
// index of its return value), until f returns true or an error.
func Odometer(sizes []int, f func(choice []int) (bool, error)) error {
	choice := make([]int, len(sizes))
	for j := range choice {
		choice[j] = -1
	}
	for {
		if stop, err := f(choice); stop || err != nil {
			return err
		}
		j := 0
		for ; j < len(choice); j++ {
			choice[j]++
			if choice[j] < sizes[j] {
				break
			}
			choice[j] = -1
		}
		if j == len(choice) {
			return nil
		}
	}
}

// PendingCandidates lists hist's pending operations (by index) and the
// values each could return if completed.
func PendingCandidates(k *theory.Kernel, hist *h.History) (pending []int, cands [][]h.Value, sizes []int) {
	prepared := k.Prepare(hist)
	off := len(prepared.Ops) - len(hist.Ops)
	for i := range hist.Ops {
		if hist.Ops[i].Pending() {
			pending = append(pending, i)
			c := k.Candidates(prepared, &prepared.Ops[i+off])
			cands = append(cands, c)
			sizes = append(sizes, len(c))
		}
	}
	return pending, cands, sizes
}
