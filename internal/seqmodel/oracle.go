package seqmodel

import (
	"math"
	"slices"
	"sort"

	"github.com/satmon/satmon/internal/history"
)

// Linearizable decides exactly, by brute force, whether h is linearizable
// with respect to its atomic object: some completion of h (each pending
// operation dropped, or completed with a candidate return value) has a
// linearization (a total order extending the real-time order) that the
// sequential model accepts. For the exchanger it instead looks for a
// completion whose non-null exchanges pair up as overlapping swaps.
//
// It is written to be obviously correct, not fast: exponential, meant for
// histories of a dozen operations or so. It is independent of the
// first-order theories on purpose, so the two can check each other.
func Linearizable(h *history.History) bool {
	if h.Object == history.Exchanger {
		return anyCompletion(h, exchangePairable)
	}
	if New(h.Object, h.Param) == nil {
		return false
	}
	return anyCompletion(h, func(ops []history.Op) bool {
		done := make([]bool, len(ops))
		return linearize(ops, done, len(ops), New(h.Object, h.Param))
	})
}

// CheckPrefixes returns the smallest action index k such that the history
// as it stood after action k, h.Prefix(k+1), is not linearizable, or -1
// when every prefix is. Only return actions are checked: a call never turns
// a linearizable prefix into a non-linearizable one, since the new pending
// operation may be dropped.
func CheckPrefixes(h *history.History) int {
	var returns []int
	for i := range h.Ops {
		if !h.Ops[i].Pending() {
			returns = append(returns, h.Ops[i].Return)
		}
	}
	sort.Ints(returns)
	for _, k := range returns {
		if !Linearizable(h.Prefix(k + 1)) {
			return k
		}
	}
	return -1
}

// anyCompletion reports whether check accepts some completion of h. A
// completed pending operation returns after every other action, which is
// the weakest real-time constraint it can have.
func anyCompletion(h *history.History, check func([]history.Op) bool) bool {
	var complete func(i int, ops []history.Op) bool
	complete = func(i int, ops []history.Op) bool {
		if i == len(h.Ops) {
			return check(ops)
		}
		o := h.Ops[i]
		if !o.Pending() {
			return complete(i+1, append(ops, o))
		}
		if complete(i+1, ops) { // dropped
			return true
		}
		for _, v := range candidates(h, &o) {
			c := o
			c.Label.Pending, c.Label.Ret, c.Return = false, v, math.MaxInt
			if complete(i+1, append(ops, c)) {
				return true
			}
		}
		return false
	}
	return complete(0, make([]history.Op, 0, len(h.Ops)))
}

// candidates lists every return value a pending operation could be given
// that some replay might accept: for a removal any value added in h or
// empty, for a read any value written in h or the initial one, and so on.
func candidates(h *history.History, o *history.Op) []history.Value {
	var out []history.Value
	addArgs := func(m history.Method) {
		for i := range h.Ops {
			l := &h.Ops[i].Label
			if l.Method == m && l.Arg != history.Void && !slices.Contains(out, l.Arg) {
				out = append(out, l.Arg)
			}
		}
	}
	switch o.Label.Method {
	case history.Add, history.Rem, history.Contains:
		if h.Object == history.Set {
			return []history.Value{history.True, history.False}
		}
		if o.Label.Method == history.Add {
			return []history.Value{history.Void}
		}
		out = append(out, history.Empty)
		addArgs(history.Add)
	case history.Read:
		switch h.Object {
		case history.StringRegister:
			// A get leaves the string alone: dropping it admits whatever
			// completing it does.
			return nil
		case history.CASRegister:
			if h.Param == "" {
				out = append(out, history.Nil)
			}
			addArgs(history.CAS)
		}
		if h.Param != "" {
			out = append(out, history.Value(h.Param))
		}
		addArgs(history.Write)
	case history.CAS:
		return []history.Value{history.OK, history.Fail}
	case history.Unlock:
		out = append(out, history.Void)
		addArgs(history.LockM)
	case history.Release:
		out = append(out, history.Void)
		addArgs(history.Acquire)
	case history.Exchange:
		out = append(out, history.Null)
		addArgs(history.Exchange)
	default: // write, lock, acquire
		out = append(out, history.Void)
	}
	return out
}

// linearize reports whether the operations not yet done, left of them,
// can be replayed on m in some order that extends the real-time order.
// An operation may go next when every operation before it in real time is
// done; a replay that fails cuts off every order with that prefix.
func linearize(ops []history.Op, done []bool, left int, m Model) bool {
	if left == 0 {
		return true
	}
	for i := range ops {
		if done[i] || !minimal(ops, done, i) {
			continue
		}
		for _, next := range m.Steps(ops[i].Label) {
			done[i] = true
			ok := linearize(ops, done, left-1, next)
			done[i] = false
			if ok {
				return true
			}
		}
	}
	return false
}

func minimal(ops []history.Op, done []bool, i int) bool {
	for j := range ops {
		if !done[j] && j != i && history.Before(&ops[j], &ops[i]) {
			return false
		}
	}
	return true
}

// exchangePairable reports whether the exchanges of a complete history
// that return a non-null value can be split into disjoint pairs {x, y} of
// distinct, real-time overlapping operations that swap their arguments.
func exchangePairable(ops []history.Op) bool {
	paired := make([]bool, len(ops))
	var pair func() bool
	pair = func() bool {
		x := -1
		for i := range ops {
			if !paired[i] && ops[i].Label.Ret != history.Null {
				x = i
				break
			}
		}
		if x < 0 {
			return true
		}
		paired[x] = true
		defer func() { paired[x] = false }()
		for y := range ops {
			if paired[y] || !swaps(&ops[x], &ops[y]) {
				continue
			}
			paired[y] = true
			ok := pair()
			paired[y] = false
			if ok {
				return true
			}
		}
		return false
	}
	return pair()
}

func swaps(x, y *history.Op) bool {
	return x.Label.Method == history.Exchange && y.Label.Method == history.Exchange &&
		x.Label.Ret == y.Label.Arg && y.Label.Ret == x.Label.Arg &&
		!history.Before(x, y) && !history.Before(y, x)
}
