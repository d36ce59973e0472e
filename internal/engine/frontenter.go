package engine

import (
	"math/bits"

	h "github.com/satmon/satmon/internal/history"
)

// enterMasks is the open operations as enter reads them, by kind, made
// once a return (enterPrep) instead of looked up slot by slot for every
// configuration the search creates: the slots do not change during one
// return's search, and enter runs for each configuration created, most
// of which cover then drops.
type enterMasks struct {
	writes  uint64 // open writes
	unknown uint64 // open reads whose result is not known
	casAll  uint64 // open compare-and-sets
	// known reads (fslot.known) and open compare-and-sets that may
	// fail (not known to succeed), with the state each looks for: a
	// read's result, a compare-and-set's old value.
	knownR, cas []slotState
	// openW: the open writes, with their states (openWriteOf)
	openW []slotState
	// pastR: the known reads whose result the pool has crashed writes
	// of, which a write marks (frontpast.go)
	pastR uint64
}

// slotState is an open operation's slot and a state id.
type slotState struct {
	p  int
	st uint32
}

// enterPrep makes f.em from the open operations.
func (f *frontier) enterPrep() {
	em := &f.em
	em.writes, em.unknown, em.casAll, em.pastR = 0, 0, 0, 0
	em.knownR, em.cas, em.openW = em.knownR[:0], em.cas[:0], em.openW[:0]
	for p := range f.slots[:f.hi] {
		sl := &f.slots[p]
		if !sl.inUse {
			continue
		}
		switch sl.l.Method {
		case h.Write:
			em.writes |= 1 << p
			em.openW = append(em.openW, slotState{p, sl.arg})
		case h.Read:
			if sl.known {
				em.knownR = append(em.knownR, slotState{p, sl.target})
				if _, ok := f.crashedWrite(sl.target); ok {
					em.pastR |= 1 << p
				}
			} else {
				em.unknown |= 1 << p
			}
		case h.CAS:
			em.casAll |= 1 << p
			if !(sl.known && sl.ok) {
				em.cas = append(em.cas, slotState{p, sl.old})
			}
		}
	}
}

// enter records, for the open observers of c, that the state is now st,
// set by l; a write hides the open writes (not a compare-and-set: a write
// placed right before it would change the state it finds). It reads the
// open operations from f.em (enterPrep).
//   - An open write not taken is hidden by a write.
//   - An open read sees st: one whose result is known only if st is it
//     (seenK), others in seen; none sees the register without a value.
//     A write marks the known reads that have not seen their result, if
//     the pool has crashed writes of it (pastK, frontpast.go).
//   - An open compare-and-set not taken, unless known to succeed, may
//     fail once the state has a value other than its old one (other).
func (f *frontier) enter(c *fconf, st uint32, l *h.Label) {
	c.st = st
	em := &f.em
	if l.Method == h.Write {
		c.hide |= em.writes &^ c.taken
	}
	if !f.states[st].has {
		return
	}
	for _, r := range em.knownR {
		if r.st == st {
			c.seenK |= 1 << r.p
			c.pastK &^= 1 << r.p
		}
	}
	if l.Method == h.Write {
		c.pastK |= em.pastR &^ c.seenK
	}
	for m := em.unknown; m != 0; m &= m - 1 {
		f.addSeen(c, bits.TrailingZeros64(m), st)
	}
	for _, x := range em.cas {
		if x.st != st && c.taken&(1<<x.p) == 0 {
			c.other |= 1 << x.p
		}
	}
}
