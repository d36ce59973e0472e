package impls

import (
	"container/heap"
	"sync"
)

// LockPQ is a max-priority queue on container/heap guarded by one mutex.
type LockPQ struct {
	mu    sync.Mutex
	h     pqHeap
	noise Noise
}

type pqItem struct {
	val  string
	prio int64
}

type pqHeap []pqItem

func (h pqHeap) Len() int           { return len(h) }
func (h pqHeap) Less(i, j int) bool { return h[i].prio > h[j].prio }
func (h pqHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pqHeap) Push(x any)        { *h = append(*h, x.(pqItem)) }
func (h *pqHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// NewLockPQ returns an empty priority queue.
func NewLockPQ(n Noise) *LockPQ { return &LockPQ{noise: n} }

// Add inserts v with priority prio.
func (q *LockPQ) Add(v string, prio int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.noise.Point()
	heap.Push(&q.h, pqItem{v, prio})
}

// Rem removes a value of maximal priority.
func (q *LockPQ) Rem() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.noise.Point()
	if q.h.Len() == 0 {
		return "", false
	}
	return heap.Pop(&q.h).(pqItem).val, true
}
