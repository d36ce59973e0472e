package engine

import h "github.com/satmon/satmon/internal/history"

// failMask is the open compare-and-sets known to fail (fslot.known), by
// slot. One of them taken as a success is no advantage to a
// configuration: the history so far allows it, so it may explain a
// return before its own by the state it left, but at its own return
// the configuration dies (ret: it cannot fail once taken). So where a
// and b are alike but b took such a compare-and-set that a did not, a
// covers b (covers): the state and what the observers saw are b's or
// more, every open operation b may take a may take too (and that one
// as well), every return before that compare-and-set's that b explains
// a explains (taken differs in it alone), and at its return b is gone.
func (f *frontier) failMask() uint64 {
	var m uint64
	for p := range f.slots[:f.hi] {
		if sl := &f.slots[p]; sl.inUse && sl.l.Method == h.CAS && sl.known && !sl.ok {
			m |= 1 << p
		}
	}
	return m
}
