package engine

import (
	"slices"

	h "github.com/satmon/satmon/internal/history"
)

// Retroactive placement, for the open compare-and-sets known to fail that
// have seen no state but their old value yet (wanted: f.wb). Such a k
// needs, before its return, a state other than its old value v. Taking
// every write for it at every return (wanted saying all) multiplied the
// configurations by every crashed write while k was open. Instead:
//
//   - At k's own return wanted says all, as before: a state-changing
//     operation still open or crashed taken then, and left last, gives k
//     its other state.
//   - Before, an operation y that changes the state to u ≠ v helps k only
//     if something follows it before k's return (else it is left last,
//     and as good as taken at k's return or at its own, as wanted's
//     argument has it). If what follows is a write x, y may be placed
//     right before x: the state goes c.st → u → x's, k takes effect at u.
//     So when the search takes a write x from c, for each y open (not
//     taken) or crashed that may change c's state, retro adds c extended
//     by y then x. The state after is x's, as without y; y's only marks
//     are those of entering u (other, seen), which retro records.
//     Crashed operations whose marks are the same are added as one
//     configuration that used one of them (fconf.terms), as merge would
//     make it.
//   - If what follows y is a compare-and-set z from u, z's old value u is
//     wanted (an open z not taken and not known to fail wants its old
//     value; by wanted's closure, one known to fail or crashed to a wanted
//     state does), so y is taken as wanted. A chain of operations to
//     states nothing wants, ended by a write x, is no better than its
//     first step placed right before x: its other states are all ≠ v
//     for the same k (a compare-and-set that has seen only v is not
//     taken, and any state other than v is other for it), and a crashed
//     or known-to-fail operation left out covers one taken.
//   - y placed before x must be callable then: the search takes x at the
//     present return, and y is open or crashed now, so y was called
//     before now. In a linearization where y precedes x, x may have taken
//     effect earlier than the return at which the search takes it; y is
//     then either still open when the search takes x (retro places it
//     there, to the same end), or it returned first and was taken at its
//     return (the search always takes the returning operation), before x.
//
// No linearization is invented: each configuration retro adds is c
// extended by two of the kernel's transitions (regStep), y then x, at
// the present; none is lost by wanted no longer saying all for k, by the
// cases above. The differential tests of frontretro_test.go check it.

// retro adds, for the write x just taken from c (st: c's state; c2: c
// extended by x, open slot p or -1 for a crashed write), c extended by
// y then x, for each open or crashed operation y that may change st to
// a state that is other for one of the compare-and-sets of f.wb that
// c2 leaves without. It reports false when the budget is exceeded.
func (f *frontier) retro(st uint32, c2 *fconf, p int, hid bool, add func(fconf, bool) bool) bool {
	b := f.wb &^ c2.other &^ c2.taken
	if b == 0 {
		return true
	}
	for q := range f.slots[:f.hi] {
		sl := &f.slots[q]
		if !sl.inUse || q == p || c2.taken&(1<<q) != 0 || !stateChanging(&sl.l) ||
			sl.l.Method == h.CAS && sl.l.Ret == h.Fail {
			continue
		}
		u, ok := f.applySlot(st, sl)
		if !ok || f.otherFor(b, u) == 0 {
			continue
		}
		c3 := c2.clone()
		c3.taken |= 1 << q
		c3.hide &^= 1 << q
		f.mark(&c3, u, &sl.l)
		if !add(c3, hid) {
			return false
		}
	}
	if len(f.pool) == 0 {
		return true
	}
	// Crashed operations from st: writes, compare-and-sets from st.
	type group struct {
		other, seenK uint64
		u            uint32 // one of the group's states, for mark
		li           int    // one of its labels, for mark's label
		labels       []uint32
	}
	var groups []group
	try := func(li int) bool {
		pl := &f.pool[li]
		u, ok := f.applyPool(st, pl)
		if !ok {
			return true
		}
		o := f.otherFor(b, u)
		if o == 0 {
			return true
		}
		if f.avail(c2, li) <= 0 {
			// Some of the configurations c2 stands for used every
			// one: only the others use it, as in the search.
			for _, c3 := range f.use(c2, li, nil) {
				f.mark(&c3, u, &pl.l)
				if !add(c3, hid) {
					return false
				}
			}
			return true
		}
		sk := f.seenBy(u)
		for g := range groups {
			if groups[g].other == o && groups[g].seenK == sk && !pl.free && !f.pool[groups[g].li].free {
				groups[g].labels = append(groups[g].labels, uint32(li))
				return true
			}
		}
		groups = append(groups, group{other: o, seenK: sk, u: u, li: li, labels: []uint32{uint32(li)}})
		return true
	}
	for _, li := range f.poolWrites {
		if !try(li) {
			return false
		}
	}
	if s := f.states[st]; s.has {
		for _, li := range f.poolCAS[s.val] {
			if !try(li) {
				return false
			}
		}
	}
	for _, g := range groups {
		var c3s []fconf
		switch {
		case f.pool[g.li].free:
			c3s = []fconf{c2.clone()}
		case len(g.labels) == 1:
			c3s = f.use(c2, int(g.labels[0]), nil)
		default:
			// Every configuration c2 stands for may use each label
			// of the group (avail): a factor of one label a term.
			slices.Sort(g.labels)
			x := make([][]uint32, len(g.labels))
			for k := range g.labels {
				x[k] = g.labels[k : k+1]
			}
			c3 := c2.clone()
			c3.alts = append(slices.Clip(c2.alts), x)
			c3s = []fconf{c3}
		}
		for k := range c3s {
			f.mark(&c3s[k], g.u, &f.pool[g.li].l)
			if !add(c3s[k], hid) {
				return false
			}
		}
	}
	return true
}

// otherFor is the compare-and-sets of b for which state u is other than
// their old value.
func (f *frontier) otherFor(b uint64, u uint32) uint64 {
	if !f.states[u].has {
		return 0
	}
	var o uint64
	for k := range f.slots[:f.hi] {
		if b&(1<<k) != 0 && f.slots[k].old != u {
			o |= 1 << k
		}
	}
	return o
}

// seenBy is the open reads known to return u (fslot.known), which see it
// when it is entered.
func (f *frontier) seenBy(u uint32) uint64 {
	var m uint64
	for r := range f.slots[:f.hi] {
		if sl := &f.slots[r]; sl.inUse && sl.l.Method == h.Read && sl.known && sl.target == u {
			m |= 1 << r
		}
	}
	return m
}

// mark records in c what entering state u by l, right before c's last
// write, showed the open observers: c's state stays.
func (f *frontier) mark(c *fconf, u uint32, l *h.Label) {
	st := c.st
	f.enter(c, u, l)
	c.st = st
}
