// Package seqmodel holds plain executable sequential specifications of the
// atomic objects, and a brute-force linearizability oracle built on them.
package seqmodel

import (
	"slices"

	"github.com/satmon/satmon/internal/history"
)

// Model is the state of one sequential object. Labels given to it must be
// complete (not Pending); a pending label is never legal.
type Model interface {
	// Step applies l in place and reports whether it is legal in the
	// current state; an illegal label leaves the state unchanged. Where a
	// label has several successor states (an untagged semaphore release
	// while different tags are held), Step picks one of them; use Steps
	// for an exact search.
	Step(l history.Label) bool
	// Steps returns every successor state of l, without changing the
	// receiver; none when l is illegal.
	Steps(l history.Label) []Model
	// Clone returns an independent copy.
	Clone() Model
}

// New returns the initial state of obj; param is the history's parameter
// (the register's initial value, the semaphore's capacity). It returns nil
// for the exchanger, whose specification is not sequential (see
// Linearizable), and for unknown objects.
func New(obj history.Object, param string) Model {
	switch obj {
	case history.Queue, history.Stack, history.PQueue:
		return &collection{obj: obj}
	case history.Set:
		return &set{in: map[history.Value]bool{}}
	case history.Register:
		return &register{val: history.Value(param), written: param != ""}
	case history.CASRegister:
		return &casRegister{val: history.Value(param), present: param != ""}
	case history.StringRegister:
		return &stringRegister{}
	case history.Lock:
		return &lock{}
	case history.Semaphore:
		return &semaphore{capacity: (&history.History{Param: param}).Capacity()}
	}
	return nil
}

// deterministic implements Steps for models whose Step has at most one
// successor.
func deterministic(m Model, l history.Label) []Model {
	c := m.Clone()
	if c.Step(l) {
		return []Model{c}
	}
	return nil
}

type item struct {
	val  history.Value
	prio int64
}

// collection is the queue, the stack and the priority queue: a sequence of
// elements in insertion order, removed from the front, the back, or at a
// maximal priority.
type collection struct {
	obj   history.Object
	items []item
}

func (c *collection) Clone() Model {
	return &collection{obj: c.obj, items: slices.Clone(c.items)}
}

func (c *collection) Steps(l history.Label) []Model { return deterministic(c, l) }

func (c *collection) Step(l history.Label) bool {
	if l.Pending {
		return false
	}
	switch l.Method {
	case history.Add:
		if l.Ret != history.Void {
			return false
		}
		c.items = append(c.items, item{l.Arg, l.Prio})
		return true
	case history.Rem:
		if l.Ret == history.Empty {
			return len(c.items) == 0
		}
		i := c.removable(l.Ret)
		if i < 0 {
			return false
		}
		c.items = slices.Delete(c.items, i, i+1)
		return true
	}
	return false
}

// removable returns the index of an element with value v that a removal
// may take now, or -1.
func (c *collection) removable(v history.Value) int {
	n := len(c.items)
	if n == 0 {
		return -1
	}
	switch c.obj {
	case history.Queue:
		if c.items[0].val == v {
			return 0
		}
	case history.Stack:
		if c.items[n-1].val == v {
			return n - 1
		}
	case history.PQueue:
		top := c.items[0].prio
		for _, it := range c.items {
			top = max(top, it.prio)
		}
		// Elements equal in value and priority are interchangeable, so
		// taking the first one loses no successor state.
		for i, it := range c.items {
			if it.prio == top && it.val == v {
				return i
			}
		}
	}
	return -1
}

type set struct {
	in map[history.Value]bool
}

func (s *set) Clone() Model {
	c := &set{in: make(map[history.Value]bool, len(s.in))}
	for v := range s.in {
		c.in[v] = true
	}
	return c
}

func (s *set) Steps(l history.Label) []Model { return deterministic(s, l) }

func (s *set) Step(l history.Label) bool {
	if l.Pending || (l.Ret != history.True && l.Ret != history.False) {
		return false
	}
	present := s.in[l.Arg]
	switch l.Method {
	case history.Add:
		if present != (l.Ret == history.False) {
			return false
		}
		s.in[l.Arg] = true
		return true
	case history.Rem:
		if present != (l.Ret == history.True) {
			return false
		}
		delete(s.in, l.Arg)
		return true
	case history.Contains:
		return present == (l.Ret == history.True)
	}
	return false
}

type register struct {
	val     history.Value
	written bool // false until the first write when there is no initial value
}

func (r *register) Clone() Model                  { c := *r; return &c }
func (r *register) Steps(l history.Label) []Model { return deterministic(r, l) }

func (r *register) Step(l history.Label) bool {
	if l.Pending {
		return false
	}
	switch l.Method {
	case history.Write:
		if l.Ret != history.Void {
			return false
		}
		r.val, r.written = l.Arg, true
		return true
	case history.Read:
		return r.written && l.Ret == r.val
	}
	return false
}

type lock struct {
	held   bool
	holder history.Value // Void when the holder locked without a tag
}

func (k *lock) Clone() Model                  { c := *k; return &c }
func (k *lock) Steps(l history.Label) []Model { return deterministic(k, l) }

func (k *lock) Step(l history.Label) bool {
	if l.Pending {
		return false
	}
	switch l.Method {
	case history.LockM:
		if k.held || l.Ret != history.Void {
			return false
		}
		k.held, k.holder = true, l.Arg
		return true
	case history.Unlock:
		// An untagged unlock (Void) releases whoever holds the lock.
		if !k.held || (l.Ret != history.Void && l.Ret != k.holder) {
			return false
		}
		k.held, k.holder = false, history.Void
		return true
	}
	return false
}

// semaphore keeps the multiset of held tags in acquisition order.
type semaphore struct {
	capacity int
	held     []history.Value
}

func (s *semaphore) Clone() Model {
	return &semaphore{capacity: s.capacity, held: slices.Clone(s.held)}
}

func (s *semaphore) Step(l history.Label) bool {
	if l.Pending {
		return false
	}
	switch l.Method {
	case history.Acquire:
		if len(s.held) >= s.capacity || l.Ret != history.Void {
			return false
		}
		s.held = append(s.held, l.Arg)
		return true
	case history.Release:
		if len(s.held) == 0 {
			return false
		}
		i := 0
		if l.Ret != history.Void {
			if i = slices.Index(s.held, l.Ret); i < 0 {
				return false
			}
		}
		s.held = slices.Delete(s.held, i, i+1)
		return true
	}
	return false
}

// Steps branches on an untagged release: which tag it gives back matters to
// later tagged releases, so each distinct held tag is one successor.
func (s *semaphore) Steps(l history.Label) []Model {
	if l.Pending || l.Method != history.Release || l.Ret != history.Void {
		return deterministic(s, l)
	}
	var out []Model
	seen := map[history.Value]bool{}
	for i, t := range s.held {
		if seen[t] {
			continue
		}
		seen[t] = true
		c := &semaphore{capacity: s.capacity, held: slices.Delete(slices.Clone(s.held), i, i+1)}
		out = append(out, c)
	}
	return out
}
