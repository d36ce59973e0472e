package impls

import (
	"sync"
	"sync/atomic"
)

// Treiber is Treiber's lock-free stack (IBM RJ 5118, 1986). Popped nodes
// are left to the garbage collector, which never reuses a node another
// goroutine still points to; that is what keeps the ABA problem of
// TreiberABA away.
type Treiber struct {
	top   atomic.Pointer[tNode]
	noise Noise
}

type tNode struct {
	val  string
	next *tNode // immutable once the node is published
}

// NewTreiber returns an empty stack.
func NewTreiber(n Noise) *Treiber { return &Treiber{noise: n} }

// Add pushes v.
func (s *Treiber) Add(v string) {
	nd := &tNode{val: v}
	for {
		t := s.top.Load()
		nd.next = t
		s.noise.Point()
		if s.top.CompareAndSwap(t, nd) {
			return
		}
	}
}

// Rem pops the newest value.
func (s *Treiber) Rem() (string, bool) {
	for {
		t := s.top.Load()
		if t == nil {
			return "", false
		}
		next := t.next
		s.noise.Point()
		if s.top.CompareAndSwap(t, next) {
			return t.val, true
		}
	}
}

// LockStack is a LIFO stack guarded by one mutex.
type LockStack struct {
	mu    sync.Mutex
	items []string
	noise Noise
}

// NewLockStack returns an empty stack.
func NewLockStack(n Noise) *LockStack { return &LockStack{noise: n} }

// Add pushes v.
func (s *LockStack) Add(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noise.Point()
	s.items = append(s.items, v)
}

// Rem pops the newest value.
func (s *LockStack) Rem() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noise.Point()
	if len(s.items) == 0 {
		return "", false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}

// TreiberABA is Treiber's stack with manual memory reuse, as in C: nodes
// live in a fixed pool and are named by their index, a popped node goes
// back to a free list at once, and a push takes the most recently freed
// node. The top is a bare index, with no version counter, so the pop's
// CAS suffers from the ABA problem of the paper's Figure 1: a pop reads
// top = A and A.next = B and is delayed; meanwhile another goroutine pops
// A (freeing it) and pushes a new value, which reuses node A on top of B.
// The delayed CAS finds top = A again and succeeds: the pop returns A's
// old value a second time and the new value is lost. With more steps in
// between, B itself may have been freed and reused, and the stack's links
// are corrupted.
type TreiberABA struct {
	top   atomic.Int64 // index of the top node, -1 when empty
	nodes []abaNode

	mu    sync.Mutex // guards the free list, which is not the point here
	free  []int64
	fresh int64 // nodes[fresh:] have never been used

	noise Noise
}

type abaNode struct {
	val  atomic.Pointer[string]
	next atomic.Int64
}

// NewTreiberABA returns an empty stack with a pool of capacity nodes; more
// than capacity values on the stack at once make Add panic.
func NewTreiberABA(capacity int, n Noise) *TreiberABA {
	s := &TreiberABA{nodes: make([]abaNode, capacity), noise: n}
	s.top.Store(-1)
	return s
}

func (s *TreiberABA) alloc() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := len(s.free); k > 0 {
		i := s.free[k-1]
		s.free = s.free[:k-1]
		return i
	}
	if s.fresh == int64(len(s.nodes)) {
		panic("impls: TreiberABA node pool exhausted")
	}
	s.fresh++
	return s.fresh - 1
}

func (s *TreiberABA) release(i int64) {
	s.mu.Lock()
	s.free = append(s.free, i)
	s.mu.Unlock()
}

// Add pushes v into a recycled node.
func (s *TreiberABA) Add(v string) {
	i := s.alloc()
	nd := &s.nodes[i]
	nd.val.Store(&v)
	for {
		t := s.top.Load()
		nd.next.Store(t)
		s.noise.Point()
		if s.top.CompareAndSwap(t, i) {
			return
		}
	}
}

// Rem pops the top node and frees it at once.
func (s *TreiberABA) Rem() (string, bool) {
	for {
		t := s.top.Load()
		if t < 0 {
			return "", false
		}
		nd := &s.nodes[t]
		next := nd.next.Load()
		v := nd.val.Load()
		s.noise.Point() // the window of Figure 1
		if s.top.CompareAndSwap(t, next) {
			s.release(t)
			return *v, true
		}
	}
}
