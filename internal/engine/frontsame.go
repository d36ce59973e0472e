package engine

import (
	"slices"

	h "github.com/satmon/satmon/internal/history"
)

// Covering by a crashed write of the state itself (docs/removal.md,
// "Keeping it small").
//
// A crashed write of the value the register holds changes no state: in
// a configuration a at state v with one left, using it now leaves a'
// that differs from a only in that a' used it and hides every open
// write a has not taken (enter: each may be placed right before it).
// The search never makes a' (ret skips a crashed operation that leaves
// the state as it is): the crashed write may take effect at any later
// time, so a stands for a', as it stands for its other extensions. So a
// covers every configuration that a' covers: b, at state v, that used
// such a crashed write where a did not and hides writes a does not,
// which covers alone cannot drop (neither covers the other). Such pairs
// come where a read open over a crashed write of the state saw it
// through the crashed write in one configuration and through an
// operation that returned in the other.
//
// Along covers, b's crashed operations contain a's (each choice of b's
// contains one of a's), so b used at least as many as a; through a', one
// more. A chain of configurations each dropped for the next therefore
// cannot close on itself but through configurations that cover one
// another by covers alone, which prune breaks by their order: what it
// drops stays covered by what it keeps.

// sameWrite is the pool label of the crashed writes of state st, -1 if
// none.
func (f *frontier) sameWrite(st uint32) int {
	if int(st) < len(f.poolWriteBy) {
		return int(f.poolWriteBy[st])
	}
	return -1
}

// coversSame reports whether a, extended by a crashed write of its own
// state, covers b (writes: the open writes).
func (f *frontier) coversSame(a, b *fconf, writes uint64) bool {
	li := f.sameWrite(a.st)
	if li < 0 || a.st != b.st {
		return false
	}
	x := fconf{st: a.st, taken: a.taken, other: a.other, hide: a.hide | writes&^a.taken, seenK: a.seenK, seen: a.seen, used: a.used, alts: a.alts}
	if x.hide == a.hide {
		return false // a' hides no more than a: covers said all
	}
	if !f.pool[li].free {
		u := append(f.sameUsed[:0], a.used...)
		i, _ := slices.BinarySearch(u, uint32(li))
		x.used = slices.Insert(u, i, uint32(li))
		f.sameUsed = x.used
	}
	return f.covers(&x, b)
}

// setSameWrite records that pool label li is the crashed writes of
// state st.
func (f *frontier) setSameWrite(st uint32, li int) {
	for int(st) >= len(f.poolWriteBy) {
		f.poolWriteBy = append(f.poolWriteBy, -1)
	}
	f.poolWriteBy[st] = int32(li)
}

// coversPrune is prune's test: a covers b, or a extended by a crashed
// write of its state does.
func (f *frontier) coversPrune(cs []fconf, a, b *gent, writes uint64) bool {
	if mayCover(a, b, writes) && f.covers(&cs[a.i], &cs[b.i]) {
		return true
	}
	return f.coversSame(&cs[a.i], &cs[b.i], writes)
}

// writeFirst reports whether, at the return of the operation with label
// l, the search takes no write but the returning one (ret): l is a
// write's.
//
// Why no linearization is lost. The search extends a configuration c in
// which the returning write o has not taken effect (one that took it
// explains the return and is not extended). Say it takes another write w
// (open, or a crashed one) from c, giving c+w, and goes on from there;
// every configuration so made lies on a path c, w, …, and o, not taken,
// is explained by hide at best. The search also makes c+o (o is always
// taken), which explains the return and is kept (or is covered by one
// kept). Put o right before w: c+o+w is at w's state, as c+w is (a write
// sets the state whatever it finds); took the same operations, o aside,
// which its return forgets; used the same crashed ones; and its
// observers saw what c+w's saw and o's value besides (seen, seenK,
// other: more states seen is more ways to explain a return), and it
// hides every open write c+w hides (enter hides, at each write, every
// open write not taken). So c+o+w covers c+w, and likewise each
// configuration on from c+w is covered by the same path on from c+o+w.
// And c+o+w is an extension of c+o by w, which is still open after o's
// return (or crashed): the next returns' searches take it from c+o
// where it matters, as they take every extension of a configuration
// kept (ret: a configuration that explains a return covers its
// extensions). A compare-and-set or an append is no such move: what it
// leaves depends on the state it finds, and o's value would change it;
// the search still takes those.
func writeFirst(l *h.Label) bool {
	return l.Method == h.Write
}
