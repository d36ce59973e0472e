package impls

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Semaphore is a counting semaphore with tagged permits as the driver sees
// it: Acquire(t) takes a permit for tag t and returns a handle, and
// Release(handle) gives that permit back and returns its tag. The handle
// is how the releasing goroutine names the permit it acquired.
type Semaphore interface {
	Acquire(t string) int
	Release(h int) string
}

// CountingSemaphore is a semaphore of capacity n: a channel holds the
// numbers of the free permits, and each permit slot keeps its holder's
// tag.
type CountingSemaphore struct {
	free  chan int
	tags  []atomic.Pointer[string]
	noise Noise
}

// NewSemaphore returns a semaphore with capacity permits (at least 1).
func NewSemaphore(capacity int, n Noise) *CountingSemaphore {
	capacity = max(capacity, 1)
	s := &CountingSemaphore{free: make(chan int, capacity), tags: make([]atomic.Pointer[string], capacity), noise: n}
	for i := range capacity {
		s.free <- i
	}
	return s
}

// Acquire waits for a free permit and takes it for tag t.
func (s *CountingSemaphore) Acquire(t string) int {
	i := <-s.free
	s.noise.Point()
	s.tags[i].Store(&t)
	return i
}

// Release frees permit h and returns the tag it was taken for.
func (s *CountingSemaphore) Release(h int) string {
	t := s.tags[h].Load()
	s.noise.Point()
	s.free <- h
	return *t
}

// OverAdmitSemaphore counts its holders, but Acquire checks the count and
// then increments it in two steps instead of one compare-and-swap, so
// several goroutines can see the last free permit and all take it.
type OverAdmitSemaphore struct {
	capacity int32
	count    atomic.Int32

	mu   sync.Mutex // guards the tags, which are bookkeeping only
	tags map[int]string
	next int

	noise Noise
}

// NewOverAdmitSemaphore returns a semaphore meant to have capacity permits.
func NewOverAdmitSemaphore(capacity int, n Noise) *OverAdmitSemaphore {
	return &OverAdmitSemaphore{capacity: int32(max(capacity, 1)), tags: map[int]string{}, noise: n}
}

// Acquire waits until fewer than capacity permits look taken, then takes
// one for tag t.
func (s *OverAdmitSemaphore) Acquire(t string) int {
	for s.count.Load() >= s.capacity {
		runtime.Gosched()
	}
	s.noise.Point()
	s.count.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	s.tags[s.next] = t
	return s.next
}

// Release gives permit h back and returns its tag.
func (s *OverAdmitSemaphore) Release(h int) string {
	s.mu.Lock()
	t := s.tags[h]
	delete(s.tags, h)
	s.mu.Unlock()
	s.count.Add(-1)
	return t
}
