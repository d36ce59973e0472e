package impls

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// Collection is a queue or a stack as the driver sees it; Rem reports
// false when the collection is empty.
type Collection interface {
	Add(v string)
	Rem() (string, bool)
}

// MSQueue is the lock-free queue of Michael and Scott (PODC 1996). The
// garbage collector keeps a node alive while any goroutine still holds it,
// so the ABA problem of the original's manual memory management cannot
// occur and no counted pointers are needed.
type MSQueue struct {
	head, tail atomic.Pointer[msNode]
	noise      Noise
}

type msNode struct {
	val  string
	next atomic.Pointer[msNode]
}

// NewMSQueue returns an empty queue.
func NewMSQueue(n Noise) *MSQueue {
	q := &MSQueue{noise: n}
	s := &msNode{} // sentinel
	q.head.Store(s)
	q.tail.Store(s)
	return q
}

// Add enqueues v.
func (q *MSQueue) Add(v string) {
	nd := &msNode{val: v}
	for {
		t := q.tail.Load()
		next := t.next.Load()
		q.noise.Point()
		if t != q.tail.Load() {
			continue
		}
		if next != nil { // tail lags behind: help it along
			q.tail.CompareAndSwap(t, next)
			continue
		}
		if t.next.CompareAndSwap(nil, nd) {
			q.noise.Point()
			q.tail.CompareAndSwap(t, nd)
			return
		}
	}
}

// Rem dequeues the oldest value.
func (q *MSQueue) Rem() (string, bool) {
	for {
		h := q.head.Load()
		t := q.tail.Load()
		next := h.next.Load()
		q.noise.Point()
		if h != q.head.Load() {
			continue
		}
		if h == t {
			if next == nil {
				return "", false
			}
			q.tail.CompareAndSwap(t, next)
			continue
		}
		v := next.val
		if q.head.CompareAndSwap(h, next) {
			return v, true
		}
	}
}

// LockQueue is a FIFO queue guarded by one mutex.
type LockQueue struct {
	mu    sync.Mutex
	items []string
	noise Noise
}

// NewLockQueue returns an empty queue.
func NewLockQueue(n Noise) *LockQueue { return &LockQueue{noise: n} }

// Add enqueues v.
func (q *LockQueue) Add(v string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.noise.Point() // holding the lock: others pile up, yet stay out
	q.items = append(q.items, v)
}

// Rem dequeues the oldest value.
func (q *LockQueue) Rem() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.noise.Point()
	if len(q.items) == 0 {
		return "", false
	}
	v := q.items[0]
	q.items[0] = ""
	q.items = q.items[1:]
	return v, true
}

// RandomDequeue is a relaxed queue: Rem removes a random one of the first
// Window elements instead of the first. It is not linearizable as a queue.
type RandomDequeue struct {
	mu     sync.Mutex
	items  []string
	window int
	noise  Noise
}

// NewRandomDequeue returns an empty queue whose removals pick among the
// first window elements (at least 1; 1 makes it a plain FIFO queue).
func NewRandomDequeue(window int, n Noise) *RandomDequeue {
	return &RandomDequeue{window: max(window, 1), noise: n}
}

// Add enqueues v.
func (q *RandomDequeue) Add(v string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = append(q.items, v)
}

// Rem removes a random one of the first elements.
func (q *RandomDequeue) Rem() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return "", false
	}
	i := rand.IntN(min(q.window, len(q.items)))
	v := q.items[i]
	q.items = append(q.items[:i], q.items[i+1:]...)
	return v, true
}

// KFIFO is the segment queue of Kirsch, Lippautz and Payer ("Fast and
// scalable, lock-free k-FIFO queues", PaCT 2013): a list of segments of k
// slots; Add fills any free slot of the tail segment and Rem empties any
// full slot of the head segment, so values within a segment leave in any
// order. It is linearizable with respect to a k-relaxed queue, not to a
// queue. Slots go from free to full to used and never back, so a segment
// with a free slot is the tail, and a used-up head segment is dropped.
type KFIFO struct {
	head, tail atomic.Pointer[segment]
	k          int
	noise      Noise
}

type segment struct {
	slots []atomic.Pointer[string]
	next  atomic.Pointer[segment]
}

// used marks an emptied slot.
var used = new(string)

// NewKFIFO returns an empty queue with segments of k slots (at least 1; 1
// makes it a plain FIFO queue).
func NewKFIFO(k int, n Noise) *KFIFO {
	q := &KFIFO{k: max(k, 1), noise: n}
	s := q.newSegment()
	q.head.Store(s)
	q.tail.Store(s)
	return q
}

func (q *KFIFO) newSegment() *segment {
	return &segment{slots: make([]atomic.Pointer[string], q.k)}
}

// Add puts v in a free slot of the tail segment, appending a segment when
// the tail has none.
func (q *KFIFO) Add(v string) {
	p := &v
	for {
		t := q.tail.Load()
		start := rand.IntN(q.k)
		for i := range q.k {
			s := &t.slots[(start+i)%q.k]
			if s.Load() == nil {
				q.noise.Point()
				if s.CompareAndSwap(nil, p) {
					return
				}
			}
		}
		next := t.next.Load()
		if next == nil {
			q.noise.Point()
			t.next.CompareAndSwap(nil, q.newSegment())
			next = t.next.Load()
		}
		q.tail.CompareAndSwap(t, next)
	}
}

// Rem takes a value from a full slot of the head segment.
func (q *KFIFO) Rem() (string, bool) {
	for {
		h := q.head.Load()
		start := rand.IntN(q.k)
		free := false
		for i := range q.k {
			s := &h.slots[(start+i)%q.k]
			p := s.Load()
			switch {
			case p == nil:
				free = true
			case p != used:
				q.noise.Point()
				if s.CompareAndSwap(p, used) {
					return *p, true
				}
			}
		}
		if free {
			// A free slot makes h the tail segment, and it holds no
			// value; this is Kirsch et al.'s emptiness check.
			return "", false
		}
		next := h.next.Load()
		if next == nil {
			return "", false
		}
		q.head.CompareAndSwap(h, next)
	}
}
