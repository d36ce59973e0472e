package impls

import (
	"sync"
	"sync/atomic"
)

// Register is a read/write register of strings as the driver sees it.
type Register interface {
	Write(v string)
	Read() string
}

// LockRegister is a register guarded by a mutex.
type LockRegister struct {
	mu    sync.Mutex
	v     string
	noise Noise
}

// NewLockRegister returns a register holding init.
func NewLockRegister(init string, n Noise) *LockRegister {
	return &LockRegister{v: init, noise: n}
}

// Write stores v.
func (r *LockRegister) Write(v string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noise.Point()
	r.v = v
}

// Read returns the value stored last.
func (r *LockRegister) Read() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noise.Point()
	return r.v
}

// LossyRegister is a write-combining register: a write stores its value
// in a staging buffer, and one writer at a time (the flusher) publishes
// the buffer to the word that readers read. A write that finds a flush in
// progress returns at once, trusting the flusher to publish its value.
// But the flusher read the buffer before that value arrived, so the write
// is lost, and a read after it returned sees an older value.
type LossyRegister struct {
	staged   atomic.Pointer[string]
	pub      atomic.Pointer[string]
	flushing atomic.Bool
	noise    Noise
}

// NewLossyRegister returns a register holding init.
func NewLossyRegister(init string, n Noise) *LossyRegister {
	r := &LossyRegister{noise: n}
	r.staged.Store(&init)
	r.pub.Store(&init)
	return r
}

// Write stages v and publishes it unless another write is publishing.
func (r *LossyRegister) Write(v string) {
	r.staged.Store(&v)
	if !r.flushing.CompareAndSwap(false, true) {
		return // the flusher will publish it (it may not)
	}
	p := r.staged.Load()
	r.noise.Point()
	r.pub.Store(p)
	r.flushing.Store(false)
}

// Read returns the published value.
func (r *LossyRegister) Read() string { return *r.pub.Load() }
