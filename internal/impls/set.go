package impls

import (
	"maps"
	"sync"
	"sync/atomic"
)

// Set is a set of strings as the driver sees it: each method reports
// whether x was inserted, removed, or present.
type Set interface {
	Add(x string) bool
	Remove(x string) bool
	Contains(x string) bool
}

// LockSet is a set guarded by one mutex.
type LockSet struct {
	mu    sync.Mutex
	m     map[string]struct{}
	noise Noise
}

// NewLockSet returns an empty set.
func NewLockSet(n Noise) *LockSet { return &LockSet{m: map[string]struct{}{}, noise: n} }

// Add inserts x; it reports whether x was absent.
func (s *LockSet) Add(x string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noise.Point()
	if _, ok := s.m[x]; ok {
		return false
	}
	s.m[x] = struct{}{}
	return true
}

// Remove deletes x; it reports whether x was present.
func (s *LockSet) Remove(x string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noise.Point()
	if _, ok := s.m[x]; !ok {
		return false
	}
	delete(s.m, x)
	return true
}

// Contains reports whether x is present.
func (s *LockSet) Contains(x string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noise.Point()
	_, ok := s.m[x]
	return ok
}

// RacySet is a set whose updates run under a mutex and publish an
// immutable snapshot for Contains to read without locking. Add publishes
// its snapshot under the lock, but Remove, to keep its critical section
// short, publishes after unlocking. That is two steps that are not atomic:
// a Remove can publish its snapshot after a later Add has published a
// newer one, and Contains then misses a value whose Add completed and that
// nobody removed. Contains is not atomic with respect to Remove.
type RacySet struct {
	mu    sync.Mutex
	m     map[string]struct{}
	snap  atomic.Pointer[map[string]struct{}]
	noise Noise
}

// NewRacySet returns an empty set.
func NewRacySet(n Noise) *RacySet {
	s := &RacySet{m: map[string]struct{}{}, noise: n}
	s.publish()
	return s
}

// snapshot returns a copy of the map for readers; mu is held.
func (s *RacySet) snapshot() *map[string]struct{} {
	c := maps.Clone(s.m)
	return &c
}

func (s *RacySet) publish() { s.snap.Store(s.snapshot()) }

// Add inserts x; it reports whether x was absent.
func (s *RacySet) Add(x string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[x]; ok {
		return false
	}
	s.m[x] = struct{}{}
	s.publish()
	return true
}

// Remove deletes x; it reports whether x was present.
func (s *RacySet) Remove(x string) bool {
	s.mu.Lock()
	if _, ok := s.m[x]; !ok {
		s.mu.Unlock()
		return false
	}
	delete(s.m, x)
	c := s.snapshot()
	s.mu.Unlock()
	s.noise.Point() // a later Add may publish here
	s.snap.Store(c)
	return true
}

// Contains reads the last published snapshot, without the lock.
func (s *RacySet) Contains(x string) bool {
	_, ok := (*s.snap.Load())[x]
	return ok
}
