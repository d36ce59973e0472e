package oracle

import (
	"sort"

	"github.com/satmon/satmon/internal/history"
)

// entry is the subhistory H_v of one value of a queue, stack or priority
// queue after the paper's preprocessing: exactly one add and one removal.
type entry struct {
	add, rem span
	prio     int64
}

// minRes and maxInv bound the value's critical interval CI_v = [minRes,
// maxInv]: a linearization point inside it would split H_v, some of its
// operations necessarily before and some necessarily after.
func (e *entry) minRes() int { return min(e.add.res, e.rem.res) }
func (e *entry) maxInv() int { return max(e.add.inv, e.rem.inv) }

// ciSlots returns the slots covered by CI_v as an inclusive range; lo > hi
// when the critical interval is empty.
func (e *entry) ciSlots() (lo, hi int) { return e.minRes(), e.maxInv() - 1 }

// checkCollection preprocesses a queue, stack or priority-queue history as
// the paper's §3 does and runs the object's algorithm.
func checkCollection(h *history.History, spans []span) (bool, error) {
	index := map[history.Value]int{}
	var vals []entry
	var removed []bool
	// Adds first, so that removals can be matched whatever their order.
	for i := range h.Ops {
		l := &h.Ops[i].Label
		switch l.Method {
		case history.Add:
			if l.Arg == history.Void || l.Arg == history.Empty || l.Ret != history.Void {
				return false, ErrUnsupported
			}
			if _, dup := index[l.Arg]; dup {
				return false, ErrUnsupported
			}
			index[l.Arg] = len(vals)
			vals = append(vals, entry{add: spans[i], prio: l.Prio})
			removed = append(removed, false)
		case history.Rem:
			if l.Arg != history.Void || l.Ret == history.Void {
				return false, ErrUnsupported
			}
		default:
			return false, ErrUnsupported
		}
	}
	if h.Object == history.PQueue {
		// The paper totally orders values by priority; equal priorities
		// would make a removal's result a nondeterministic choice.
		seen := map[int64]bool{}
		for _, e := range vals {
			if seen[e.prio] {
				return false, ErrUnsupported
			}
			seen[e.prio] = true
		}
	}
	var empties []span
	for i := range h.Ops {
		l := &h.Ops[i].Label
		if l.Method != history.Rem {
			continue
		}
		if l.Ret == history.Empty {
			empties = append(empties, spans[i])
			continue
		}
		j, ok := index[l.Ret]
		if !ok || removed[j] {
			// A value never added, or removed twice though added once.
			return false, nil
		}
		removed[j] = true
		vals[j].rem = spans[i]
	}
	// Extension (Lemma 3.3): values still present at the end get removals
	// that are called after every event and mutually concurrent, so that the
	// history becomes well-matched.
	end := 2 * len(h.Ops)
	var unremoved []int
	for j := range vals {
		if !removed[j] {
			unremoved = append(unremoved, j)
		}
	}
	for k, j := range unremoved {
		vals[j].rem = span{inv: end + k, res: end + len(unremoved) + k}
	}
	slots := end + 2*len(unremoved) - 1
	if slots < 1 {
		return true, nil
	}
	// Non-trivial histories (Proposition 3.2): a removal that precedes its
	// add can never be linearized after it.
	for j := range vals {
		if vals[j].rem.res < vals[j].add.inv {
			return false, nil
		}
	}
	if !emptyCheck(vals, empties, slots) {
		return false, nil
	}
	switch h.Object {
	case history.Stack:
		return stackLin(vals, slots), nil
	case history.Queue:
		return queueLin(vals), nil
	default:
		return pqLin(vals, slots), nil
	}
}

// emptyCheck is Lemma 3.4: an empty removal needs a point in its interval
// outside every value's critical interval, where the object can be empty
// with all values wholly before or wholly after it. Given that, the empty
// removals can be dropped without changing the verdict.
func emptyCheck(vals []entry, empties []span, slots int) bool {
	if len(empties) == 0 {
		return true
	}
	cover := coverage(vals, nil, slots)
	// free[k] counts uncovered slots below k.
	free := make([]int, slots+1)
	for k := range slots {
		free[k+1] = free[k]
		if cover[k] == 0 {
			free[k+1]++
		}
	}
	for _, e := range empties {
		if free[e.res]-free[e.inv] == 0 {
			return false
		}
	}
	return true
}

// coverage counts, per slot, the critical intervals of the live values
// (all values when alive is nil) that contain it.
func coverage(vals []entry, alive []bool, slots int) []int {
	diff := make([]int, slots+1)
	for j := range vals {
		if alive != nil && !alive[j] {
			continue
		}
		lo, hi := vals[j].ciSlots()
		if lo <= hi {
			diff[lo]++
			diff[hi+1]--
		}
	}
	cover := make([]int, slots)
	c := 0
	for k := range slots {
		c += diff[k]
		cover[k] = c
	}
	return cover
}

// stackLin is Algorithm 3 restated on slots. A value v is a bottom value
// (Corollary 5.2, Lemma 5.1) when its push and pop can be placed, push no
// later than pop, at points outside the critical interval of every other
// live value; then H is linearizable iff H minus H_v is. Without peeks v's
// own critical interval, [push returns, pop is called], never meets its
// operations' intervals, so it may be counted along with the others'.
// Removing values only shrinks the other values' constraints, so every
// bottom value of a round stays one after the others go, and all of them
// are peeled at once.
func stackLin(vals []entry, slots int) bool {
	alive := make([]bool, len(vals))
	for j := range alive {
		alive[j] = true
	}
	left := len(vals)
	var peel []int
	for left > 0 {
		cover := coverage(vals, alive, slots)
		next, prev := freeSlots(cover)
		peel = peel[:0]
		for j := range vals {
			if !alive[j] {
				continue
			}
			e := &vals[j]
			first, last := next[e.add.inv], prev[e.rem.res-1]
			if first >= 0 && first < e.add.res && last >= e.rem.inv && first <= last {
				peel = append(peel, j)
			}
		}
		if len(peel) == 0 {
			return false
		}
		for _, j := range peel {
			alive[j] = false
		}
		left -= len(peel)
	}
	return true
}

// freeSlots returns, for every slot k, the nearest uncovered slot at or
// after k and at or before k (-1 if none).
func freeSlots(cover []int) (next, prev []int) {
	n := len(cover)
	next = make([]int, n+1)
	prev = make([]int, n)
	next[n] = -1
	for k := n - 1; k >= 0; k-- {
		next[k] = next[k+1]
		if cover[k] == 0 {
			next[k] = k
		}
	}
	p := -1
	for k := range n {
		if cover[k] == 0 {
			p = k
		}
		prev[k] = p
	}
	return next, prev
}

// queueLin is Algorithm 4 restated. A value v is in MaxPermVals
// (Definition 6.2) when its enqueue can be the last enqueue and its dequeue
// the last operation: every other live enqueue is called before v's
// enqueue or dequeue returns (the non-trivialized enqueue returns at the
// earlier of the two), and every other live operation is called before v's
// dequeue returns. Lemma 6.1 says such a value exists when H is
// linearizable, Lemma 6.2 that removing it keeps the verdict. The
// conditions are maxima over the other values, so they survive the removal
// of others and a whole round is peeled at once.
func queueLin(vals []entry) bool {
	alive := make([]bool, len(vals))
	for j := range alive {
		alive[j] = true
	}
	left := len(vals)
	var peel []int
	for left > 0 {
		addInv := top2{}
		allInv := top2{}
		for j := range vals {
			if alive[j] {
				addInv.push(vals[j].add.inv, j)
				allInv.push(vals[j].maxInv(), j)
			}
		}
		peel = peel[:0]
		for j := range vals {
			if !alive[j] {
				continue
			}
			e := &vals[j]
			if addInv.without(j) < e.minRes() && allInv.without(j) < e.rem.res {
				peel = append(peel, j)
			}
		}
		if len(peel) == 0 {
			return false
		}
		for _, j := range peel {
			alive[j] = false
		}
		left -= len(peel)
	}
	return true
}

// top2 keeps the two largest keys of a set, so that the maximum over all
// members but one is available in constant time.
type top2 struct {
	k1, k2 int
	j1     int
	n      int
}

func (t *top2) push(k, j int) {
	switch {
	case t.n == 0 || k > t.k1:
		t.k2 = t.k1
		t.k1, t.j1 = k, j
	case t.n == 1 || k > t.k2:
		t.k2 = k
	}
	t.n++
}

// without is the largest key of a member other than j, or -1.
func (t *top2) without(j int) int {
	switch {
	case t.n == 0:
		return -1
	case t.j1 != j:
		return t.k1
	case t.n == 1:
		return -1
	}
	return t.k2
}

// pqLin is Algorithm 5 restated through Corollary 7.3: H is linearizable
// iff every value's removal fits, after the earliest point of its add, at a
// point outside the critical interval of every value of higher priority.
// Values are visited from the highest priority down, so the critical
// intervals seen so far are exactly those of higher priority; covered slots
// are linked to their successor so a query skips them.
func pqLin(vals []entry, slots int) bool {
	order := make([]int, len(vals))
	for j := range order {
		order[j] = j
	}
	sort.Slice(order, func(a, b int) bool { return vals[order[a]].prio > vals[order[b]].prio })
	// next[k] leads towards the first uncovered slot at or after k; slot
	// slots is a sentinel that is never covered.
	next := make([]int, slots+1)
	for k := range next {
		next[k] = k
	}
	find := func(k int) int {
		for next[k] != k {
			next[k] = next[next[k]]
			k = next[k]
		}
		return k
	}
	for _, j := range order {
		e := &vals[j]
		a := max(e.rem.inv, e.add.inv)
		b := e.rem.res - 1
		if a > b || find(a) > b {
			return false
		}
		lo, hi := e.ciSlots()
		for k := find(max(lo, 0)); k <= hi; k = find(k) {
			next[k] = k + 1
		}
	}
	return true
}
