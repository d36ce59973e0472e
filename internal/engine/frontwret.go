package engine

import h "github.com/satmon/satmon/internal/history"

// hiddenOnly reports whether configuration c, made by the search at the
// return of the operation in slot j with label l (searched: c is no
// configuration of before but an extension of one), explains that
// return only as hidden: l is a write's, and c has not taken it. ret
// keeps no such configuration, but still extends it (taking the write
// after others, say).
//
// Why no linearization is lost. The return is o's, a write. c is
// c0 + m1 + … + mk (k ≥ 1), c0 a configuration of before, each mi a
// transition of an open operation or of a crashed one, and o, not taken
// in c, is hidden in c: some write w = mi was taken after o's call
// (enter hides, at each write, every open write not taken), or o was
// hidden in c0 already.
//   - o hidden in c0: c0 explains the return and is kept (or one that
//     covers it is), and c is c0 extended by m1 … mk, which stay open
//     or crashed after o's return: the next returns' searches take them
//     from c0 where it matters, as they take every extension of a
//     configuration kept (ret: a configuration that explains a return
//     covers its extensions).
//   - Else let w = mi be the first write on the path after which o is
//     hidden, p = c0 + m1 + … + m(i-1) (p is made by the search, or
//     covered by one it made, by the same path). The search takes o from
//     p (o is always taken), and p+o explains the return and is kept (or
//     one that covers it is, with o taken: cover compares only
//     configurations that took the same operations). Put o right before
//     w: p+o+w is at w's state, as p+w is (a write sets the state,
//     whatever it finds); it took the same operations, o aside, which
//     its return forgets, and used the same crashed ones; its observers
//     saw what p+w's saw and o's value besides (seen, seenK, other: more
//     states seen, more ways to explain a later return); and it hides
//     every open write p+w hides (enter hides, at o and again at w,
//     every open write not taken). So p+o+w covers p+w, and
//     p+o+w+m(i+1)+…+mk covers c. It is p+o extended by transitions
//     still open or crashed after o's return, which the next returns'
//     searches take where it matters.
//
// Only a write: a compare-and-set or an append from p (in place of w)
// would find o's value instead of p's state. And only a configuration
// that has not taken o: one that took o after others (p+w+o: others'
// values seen before o's) is no such extension, and is kept.
func hiddenOnly(c *fconf, j int, l *h.Label, searched bool) bool {
	return searched && l.Method == h.Write && c.taken&(1<<j) == 0
}

// writesOnly reports whether every operation the search may take is a
// write: no compare-and-set open or crashed, no append. Then, at a
// write's return, the state of a configuration that hiddenOnly keeps
// out matters to nothing that follows it: it is never kept, and every
// transition the search takes from it is a write, which sets the state
// whatever it finds, or the returning write itself (the reads it lets
// see a state saw it on the way, in seen and seenK). ret sets that
// state to 0, no value: configurations that differ only in the order in
// which they took writes for the open reads to see, and so in their
// last state, become one, and their extensions are made once.
func (f *frontier) writesOnly() bool {
	if f.obj == h.StringRegister || len(f.poolCASAll)+len(f.poolOther) > 0 {
		return false
	}
	for p := range f.slots[:f.hi] {
		if sl := &f.slots[p]; sl.inUse && sl.l.Method == h.CAS {
			return false
		}
	}
	return true
}
