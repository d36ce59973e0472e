package impls

import (
	"runtime"
	"sync/atomic"
)

// Exchanger pairs up concurrent exchanges: Exchange(v) returns the value
// of another exchange that overlaps it, or false when none turned up
// within its patience. It is the lock-free single-slot exchanger of
// Herlihy and Shavit (The Art of Multiprocessor Programming, §11.4), with
// patience counted in scheduler yields instead of time.
type Exchanger struct {
	slot     atomic.Pointer[xNode]
	patience int
	noise    Noise
}

type xNode struct {
	val   string
	match atomic.Pointer[string] // the partner's value, set by the partner
}

// NewExchanger returns an exchanger whose waiting exchanges give up after
// patience yields (at least 1).
func NewExchanger(patience int, n Noise) *Exchanger {
	return &Exchanger{patience: max(patience, 1), noise: n}
}

// Exchange offers v; it returns the partner's value, or false if no
// partner came.
func (x *Exchanger) Exchange(v string) (string, bool) {
	me := &xNode{val: v}
	for range x.patience {
		cur := x.slot.Load()
		if cur != nil {
			// Someone waits: take them out of the slot and hand over v.
			x.noise.Point()
			if x.slot.CompareAndSwap(cur, nil) {
				cur.match.Store(&v)
				return cur.val, true
			}
			continue
		}
		x.noise.Point()
		if !x.slot.CompareAndSwap(nil, me) {
			continue
		}
		// Wait in the slot for a partner.
		for range x.patience {
			if m := me.match.Load(); m != nil {
				return *m, true
			}
			runtime.Gosched()
		}
		if x.slot.CompareAndSwap(me, nil) {
			return "", false // withdrawn, nobody came
		}
		// A partner took us out of the slot just now and is about to
		// hand over its value.
		for {
			if m := me.match.Load(); m != nil {
				return *m, true
			}
			runtime.Gosched()
		}
	}
	return "", false
}
