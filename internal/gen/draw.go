package gen

import (
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/satmon/satmon/internal/history"
)

// drawer is an object's state while a run is drawn. draw returns the next
// op's label x, or with pair set the labels x, y of an exchange pair (only
// when pairOK). When
// mutate is set it may inject one fault, and reports whether it did; a
// fault that needs the second op of a pair to return is allowed only when
// pairMut is set.
type drawer interface {
	draw(mutate, pairOK, pairMut bool) (x, y history.Label, pair, mutated bool)
}

func newDrawer(cfg Config, rng *rand.Rand) drawer {
	t := &tags{}
	switch cfg.Object {
	case history.Queue, history.Stack, history.PQueue:
		return &collection{obj: cfg.Object, capacity: cfg.Capacity, values: cfg.Values, rng: rng, tags: t}
	case history.Set:
		v := cfg.Values
		if v == 0 {
			v = 4
		}
		return &set{in: make([]bool, v), rng: rng}
	case history.Register:
		return &register{values: cfg.Values, cur: history.Value(cfg.Param()), rng: rng, tags: t}
	case history.Lock:
		return &lock{rng: rng, tags: t}
	case history.Semaphore:
		return &semaphore{capacity: max(cfg.Capacity, 1), rng: rng, tags: t}
	case history.CASRegister:
		v := cfg.Values
		if v == 0 {
			v = 5
		}
		return &casRegister{values: v, cur: history.Nil, prev: history.Nil, rng: rng}
	case history.StringRegister:
		return &stringRegister{values: cfg.Values, rng: rng, tags: t}
	}
	return &exchanger{rng: rng, tags: t}
}

// tags hands out the unique values "1", "2", ...
type tags struct{ n int }

func (t *tags) next() history.Value {
	t.n++
	return history.Value(strconv.Itoa(t.n))
}

// ghost is a value no generated operation ever uses as an argument.
const ghost history.Value = "ghost"

// none is the absent second label of a single op.
var none history.Label

type element struct {
	val  history.Value
	prio int64
}

// collection draws queue, stack and priority-queue runs. Elements are kept
// in insertion order.
type collection struct {
	obj      history.Object
	capacity int
	values   int // > 0: elements drawn from "1".."values", so they repeat
	rng      *rand.Rand
	tags     *tags
	items    []element
	removed  history.Value // the last value removed, for a double removal
}

func (c *collection) draw(mutate, _, _ bool) (x, y history.Label, pair, mutated bool) {
	n := len(c.items)
	var add bool
	switch {
	case c.capacity > 0 && n >= c.capacity:
		add = false
	case n == 0:
		add = c.rng.IntN(10) != 0 // now and then remove from empty
	default:
		add = c.rng.IntN(2) == 0
	}
	if add {
		l := history.Label{Method: history.Add, Arg: c.tags.next()}
		if c.values > 0 {
			l.Arg = history.Value(strconv.Itoa(1 + c.rng.IntN(c.values)))
		}
		if c.obj == history.PQueue {
			l.Prio = int64(1 + c.rng.IntN(4)) // few priorities, so ties occur
		}
		if mutate && c.rng.IntN(4) == 0 {
			return l, none, false, true // lost: the element never arrives
		}
		c.items = append(c.items, element{l.Arg, l.Prio})
		return l, none, false, false
	}
	l := history.Label{Method: history.Rem}
	if mutate {
		if ret, ok := c.fault(); ok {
			l.Ret = ret
			return l, none, false, true
		}
	}
	l.Ret = c.remove(c.next())
	return l, none, false, false
}

// next is the index of the element a removal takes now, or -1 when empty.
func (c *collection) next() int {
	n := len(c.items)
	if n == 0 {
		return -1
	}
	switch c.obj {
	case history.Queue:
		return 0
	case history.Stack:
		return n - 1
	}
	top := slices.MaxFunc(c.items, func(a, b element) int { return int(a.prio - b.prio) }).prio
	var tied []int
	for i, e := range c.items {
		if e.prio == top {
			tied = append(tied, i)
		}
	}
	return tied[c.rng.IntN(len(tied))]
}

func (c *collection) remove(i int) history.Value {
	if i < 0 {
		return history.Empty
	}
	v := c.items[i].val
	c.items = slices.Delete(c.items, i, i+1)
	c.removed = v
	return v
}

// fault picks one wrong outcome for a removal and returns the value it
// reports.
func (c *collection) fault() (history.Value, bool) {
	n := len(c.items)
	switch c.rng.IntN(5) {
	case 0: // a value removed before, again
		if c.removed != history.Void {
			return c.removed, true
		}
		return ghost, true
	case 1: // a value never added
		return ghost, true
	case 2: // empty while non-empty
		if n > 0 {
			return history.Empty, true
		}
	case 3: // out of order: the value a later removal should return
		if i := c.wrongNext(); i >= 0 {
			return c.remove(i), true
		}
	case 4: // lost: an element vanishes, the removal takes the next one
		if n > 0 {
			i := c.rng.IntN(n)
			c.items = slices.Delete(c.items, i, i+1)
			return c.remove(c.next()), true
		}
	}
	return history.Void, false
}

// wrongNext picks an element that must not be removed now, or -1.
func (c *collection) wrongNext() int {
	n := len(c.items)
	if n < 2 {
		return -1
	}
	switch c.obj {
	case history.Queue:
		return 1 + c.rng.IntN(n-1)
	case history.Stack:
		return c.rng.IntN(n - 1)
	}
	top := slices.MaxFunc(c.items, func(a, b element) int { return int(a.prio - b.prio) }).prio
	var lower []int
	for i, e := range c.items {
		if e.prio < top {
			lower = append(lower, i)
		}
	}
	if len(lower) == 0 {
		return -1
	}
	return lower[c.rng.IntN(len(lower))]
}

// set draws set runs over the elements "1".."V"; in[i] is element i+1.
type set struct {
	in  []bool
	rng *rand.Rand
}

func (s *set) draw(mutate, _, _ bool) (x, y history.Label, pair, mutated bool) {
	i := s.rng.IntN(len(s.in))
	l := history.Label{Method: setMethods[s.rng.IntN(3)], Arg: history.Value(strconv.Itoa(i + 1))}
	lost := false
	if mutate && s.rng.IntN(3) == 0 {
		// lost: an element vanishes from the set unannounced.
		var present []int
		for j, p := range s.in {
			if p {
				present = append(present, j)
			}
		}
		if len(present) > 0 {
			s.in[present[s.rng.IntN(len(present))]] = false
			lost = true
		}
	}
	was := s.in[i]
	switch l.Method {
	case history.Add:
		s.in[i] = true
		l.Ret = boolValue(!was)
	case history.Rem:
		s.in[i] = false
		l.Ret = boolValue(was)
	default:
		l.Ret = boolValue(was)
	}
	if mutate && !lost {
		// The wrong answer; the state still changes as the right one says.
		l.Ret = boolValue(l.Ret == history.False)
	}
	return l, none, false, mutate
}

var setMethods = [3]history.Method{history.Add, history.Rem, history.Contains}

func boolValue(b bool) history.Value {
	if b {
		return history.True
	}
	return history.False
}

// register draws register runs; it starts at Config.Param's "0".
type register struct {
	values    int // pool size, 0 for unique values
	cur, prev history.Value
	rng       *rand.Rand
	tags      *tags
}

func (r *register) draw(mutate, _, _ bool) (x, y history.Label, pair, mutated bool) {
	if r.rng.IntN(5) < 2 {
		l := history.Label{Method: history.Write}
		if r.values > 0 {
			l.Arg = history.Value(strconv.Itoa(1 + r.rng.IntN(r.values)))
		} else {
			l.Arg = r.tags.next()
		}
		if mutate && l.Arg != r.cur {
			return l, none, false, true // lost write: the value never lands
		}
		r.prev, r.cur = r.cur, l.Arg
		return l, none, false, false
	}
	l := history.Label{Method: history.Read, Ret: r.cur}
	if mutate {
		l.Ret = ghost
		if r.prev != history.Void && r.prev != r.cur && r.rng.IntN(3) != 0 {
			l.Ret = r.prev // a stale read
		}
		return l, none, false, true
	}
	return l, none, false, false
}

// lock draws runs of lock(t) and unlock ⇒ t.
type lock struct {
	held         bool
	holder, last history.Value // last: the previous holder
	rng          *rand.Rand
	tags         *tags
}

func (k *lock) draw(mutate, _, _ bool) (x, y history.Label, pair, mutated bool) {
	if !k.held {
		if mutate && k.last != history.Void {
			// unlock of a free lock
			return history.Label{Method: history.Unlock, Ret: k.last}, none, false, true
		}
		t := k.tags.next()
		k.held, k.holder = true, t
		return history.Label{Method: history.LockM, Arg: t}, none, false, false
	}
	if mutate {
		if k.rng.IntN(2) == 0 {
			// a second lock while held
			t := k.tags.next()
			k.last, k.holder = k.holder, t
			return history.Label{Method: history.LockM, Arg: t}, none, false, true
		}
		wrong := ghost
		if k.last != history.Void {
			wrong = k.last
		}
		k.last, k.held, k.holder = k.holder, false, history.Void
		return history.Label{Method: history.Unlock, Ret: wrong}, none, false, true
	}
	l := history.Label{Method: history.Unlock, Ret: k.holder}
	k.last, k.held, k.holder = k.holder, false, history.Void
	return l, none, false, false
}

// semaphore draws runs of acquire(t) and release ⇒ t.
type semaphore struct {
	capacity int
	held     []history.Value
	released history.Value // the last tag released
	rng      *rand.Rand
	tags     *tags
}

func (s *semaphore) draw(mutate, _, _ bool) (x, y history.Label, pair, mutated bool) {
	n := len(s.held)
	acquire := n == 0 || (n < s.capacity && s.rng.IntN(2) == 0)
	if mutate && n == s.capacity {
		acquire = true // one acquire too many
	} else if mutate {
		acquire = false
	}
	if acquire {
		t := s.tags.next()
		s.held = append(s.held, t)
		return history.Label{Method: history.Acquire, Arg: t}, none, false, mutate
	}
	if mutate {
		// release of a tag not held: released before, or never acquired
		wrong := ghost
		if s.released != history.Void && s.rng.IntN(2) == 0 {
			wrong = s.released
		}
		return history.Label{Method: history.Release, Ret: wrong}, none, false, true
	}
	i := s.rng.IntN(n)
	t := s.held[i]
	s.held = slices.Delete(s.held, i, i+1)
	s.released = t
	return history.Label{Method: history.Release, Ret: t}, none, false, false
}

// exchanger draws pairs of swapping exchanges and lone ones returning null.
type exchanger struct {
	rng  *rand.Rand
	tags *tags
}

func (e *exchanger) draw(mutate, pairOK, pairMut bool) (_, _ history.Label, pair, mutated bool) {
	x := history.Label{Method: history.Exchange, Arg: e.tags.next()}
	if !pairOK || e.rng.IntN(10) < 3 {
		x.Ret = history.Null
		if mutate {
			// a lone exchange that claims a partner
			x.Ret = ghost
			if e.rng.IntN(2) == 0 {
				x.Ret = x.Arg
			}
			return x, none, false, true
		}
		return x, none, false, false
	}
	y := history.Label{Method: history.Exchange, Arg: e.tags.next()}
	x.Ret, y.Ret = y.Arg, x.Arg
	if mutate && pairMut {
		// asymmetric: x got y's value but y saw nobody, or something else
		y.Ret = history.Null
		if e.rng.IntN(2) == 0 {
			y.Ret = ghost
		}
		return x, y, true, true
	}
	return x, y, true, false
}

// drainer is a drawer that can end a run in a state a fresh monitor
// starts from (Config.Drain): it returns the sequential operations that
// get there.
type drainer interface {
	drain() []history.Label
}

func (c *collection) drain() []history.Label {
	var out []history.Label
	for len(c.items) > 0 {
		out = append(out, history.Label{Method: history.Rem, Ret: c.remove(c.next())})
	}
	return out
}

func (s *set) drain() []history.Label {
	var out []history.Label
	for i, in := range s.in {
		if in {
			s.in[i] = false
			out = append(out, history.Label{Method: history.Rem, Arg: history.Value(strconv.Itoa(i + 1)), Ret: history.True})
		}
	}
	return out
}

// drain writes once more, alone: that write is the last of every
// linearization.
func (r *register) drain() []history.Label {
	l, _, _, _ := r.draw(false, false, false)
	for l.Method != history.Write {
		l, _, _, _ = r.draw(false, false, false)
	}
	return []history.Label{l}
}

func (k *lock) drain() []history.Label {
	if !k.held {
		return nil
	}
	l := history.Label{Method: history.Unlock, Ret: k.holder}
	k.last, k.held, k.holder = k.holder, false, history.Void
	return []history.Label{l}
}

func (s *semaphore) drain() []history.Label {
	var out []history.Label
	for _, t := range s.held {
		out = append(out, history.Label{Method: history.Release, Ret: t})
		s.released = t
	}
	s.held = nil
	return out
}
