package impls

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Lock is a tagged lock as the driver sees it: Lock(t) acquires it on
// behalf of the tag t, and Unlock releases it and returns the holder's
// tag.
type Lock interface {
	Lock(t string)
	Unlock() string
}

// Mutex is a tagged lock on sync.Mutex. The holder's tag is written after
// acquiring and read before releasing, so the lock protects it.
type Mutex struct {
	mu     sync.Mutex
	holder string
	noise  Noise
}

// NewMutex returns an unlocked lock.
func NewMutex(n Noise) *Mutex { return &Mutex{noise: n} }

// Lock acquires the lock for tag t.
func (m *Mutex) Lock(t string) {
	m.mu.Lock()
	m.noise.Point()
	m.holder = t
}

// Unlock releases the lock and returns the tag it was held for.
func (m *Mutex) Unlock() string {
	t := m.holder
	m.noise.Point()
	m.mu.Unlock()
	return t
}

// RacyLock is a spin lock whose acquisition tests the flag and then sets
// it in two separate steps instead of one test-and-set: two goroutines can
// both see the lock free and both enter.
type RacyLock struct {
	locked atomic.Bool
	holder atomic.Pointer[string]
	noise  Noise
}

// NewRacyLock returns an unlocked lock.
func NewRacyLock(n Noise) *RacyLock { return &RacyLock{noise: n} }

// Lock waits until the flag is clear, then sets it.
func (l *RacyLock) Lock(t string) {
	for l.locked.Load() {
		runtime.Gosched()
	}
	l.noise.Point()
	l.locked.Store(true)
	l.holder.Store(&t)
}

// Unlock clears the flag and returns the holder's tag.
func (l *RacyLock) Unlock() string {
	t := l.holder.Load()
	l.locked.Store(false)
	return *t
}
