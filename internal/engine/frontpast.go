package engine

import (
	"math/bits"
	"slices"
)

// Known reads explained in the past (fconf.pastK). Let r be an open read
// whose result v is known (fslot.known) and which c has not seen v yet,
// and x a write that c takes after r's call (the search takes it at a
// return, so after every open operation's call). If a crashed write w of
// v was called before that point, c with w and then r put right before x
// is a linearization too: r reads v there, and x leaves the state it
// left, so nothing after x changes. Without the mark, the search made
// that configuration explicitly (w used as a wanted state's, then x
// taken), and it stayed beside c's: it saw r, c used fewer crashed
// operations, neither covered the other, and both were extended at every
// return until r's. With the mark, c stands for it.
//
// So the search no longer uses a crashed write of v for r before r's
// return (wanted marks v with wantSoft: open writes of v are still
// taken for it, crashed ones not). A crashed write w of v used for r at
// an earlier point p of a linearization is followed, up to now, by
//   - a write x (the first after p): w and r may go right before x
//     instead, and c, which took x, marked r: it stands for that;
//   - a compare-and-set from v: its old value v is then wanted (want,
//     not wantSoft: an open compare-and-set's old value, or, by wanted's
//     closure, a crashed one's or one known to fail's leading to a
//     wanted state), and w is used for it, r seeing v on the way;
//   - nothing that changes the state: w is last, and as good as used at
//     r's return, where r's own result is wanted (want) and the search
//     uses w; or at the return of another read of v, which wants v
//     then, and w makes every open read of v see it (enter). What else
//     is open sees no difference: a read whose result is not known, or
//     a compare-and-set that may still need another state, makes
//     wanted say all states (every crashed write is used, as before),
//     and one known to fail that has seen only its old value is left to
//     retro (frontretro.go), which does not look at wanted's states.
//
// enter marks r in c.pastK when c takes a write, r open, known, not
// seen, the pool holding crashed writes of v. c stands for itself and,
// for every set V of the targets of its marks, the configuration with
// the marked reads of those targets seen and one more crashed write of
// each target of V used, where the crashed operations c used leave one
// (one crashed write of v, put right before the latest write that
// marked one of them, lies within every marked read of v: each was
// called before that write, and is still open). What c stands for saw
// less than the linearization it is taken from (the other open
// observers may have seen v there too), never more: nothing is invented.
// Nothing is lost either: a configuration is dropped only where covers
// finds it covered by one c stands for, with those marks.
//
//   - At r's return (pastUse) the configurations that explain r so are
//     added beside c: beside each configuration of before the return,
//     not beside the search's extensions of them (pastUse's comment).
//   - covers(a, b): the known reads b saw that a did not are marked in a,
//     and a counts, for each target of those, one crashed write of it
//     used more (pastNeed); b's marks are a's marks or a's reads seen.
//     Then each configuration b stands for is covered by one a stands
//     for, the one with the same targets resolved.
//   - The crashed write must have been called before the marking write:
//     enter marks only when the pool holds crashed writes of v, all
//     called before, and before a crashed write of v joins the pool
//     (toPool) settlePast turns every mark on a read of v into the
//     configurations it stands for, so that every mark left is later
//     than the call of every crashed write of v in the pool.

// pastUse appends to out the configurations c stands for in which its
// marked read j saw its result: every read c marked with j's result
// seen, one more crashed write of it used (none where every one is).
//
// ret calls it on the configurations of before j's return only, not on
// those its search makes of them: let c be one the search extends, by
// a step s (an open operation other than j taken, a crashed one used,
// or retro's two), and v j's result; where c + s has j marked, c had j
// marked or s (a write) marked it. pastUse(c + s) is c + s with one
// crashed write w of v more used, put right before the latest write
// that marked the reads it makes see v.
//   - c had j marked and s marked no read of v: pastUse(c) + s is the
//     same configuration, s entering alike, the same reads of v seen.
//     pastUse(c) was made (by induction: at the start, or this case or
//     the next one for c), explains j, and covers its extension by s,
//     which stays open (or crashed) after j's return: the next
//     return's search can take it to the same effect, and an operation
//     called meanwhile sees more states, not fewer (as ret's explained
//     configurations cover their extensions).
//   - s marked a read of v: pastUse(c + s) is c + w + s. The search,
//     extending c (j not seen: r's result is want's, so its crashed
//     writes are used), makes c + w, or, where c has an open write of v
//     left, c + that write, which covers it (openWriteOf), each for the
//     configurations of c with a w left, as pastUse's use; c + w sees
//     v, so every open read of v, explains j, and covers c + w + s as
//     above.
//
// s never enters v (j would be seen, not marked), nor uses w. So every
// configuration pastUse would make of an extension is covered by one
// made. Resolving marks on the extensions too would make one
// configuration for each extension by crashed compare-and-sets with j
// marked, each kept apart by the crashed operations it used: work for
// nothing. TestFrontierPastExtDifferential checks it against Porcupine and
// ENUMERATE -c.
func (f *frontier) pastUse(c *fconf, j int, out []fconf) []fconf {
	st := f.slots[j].target
	li, ok := f.crashedWrite(st)
	if !ok {
		return out
	}
	r := c.pastK & f.seenBy(st)
	n := len(out)
	out = f.use(c, li, out)
	for k := n; k < len(out); k++ {
		out[k].seenK |= r
		out[k].pastK &^= r
	}
	f.pastUsed += len(out) - n
	return out
}

// settlePast comes before a crashed write of state st joins the pool: it
// may have been called after the marks on reads of st were made, so
// each configuration with such marks is replaced by the two it stands
// for, with the marks on reads of st resolved: without them, and with
// them seen and one crashed write of st used (of those in the pool).
// The caller prunes.
func (f *frontier) settlePast(st uint32) {
	li, ok := f.crashedWrite(st)
	if !ok {
		return
	}
	reads := f.seenBy(st)
	if reads == 0 {
		return
	}
	for i, n := 0, len(f.confs); i < n; i++ {
		r := f.confs[i].pastK & reads
		if r == 0 {
			continue
		}
		f.confs[i].pastK &^= r
		c := f.confs[i]
		k := len(f.confs)
		f.confs = f.use(&c, li, f.confs)
		for ; k < len(f.confs); k++ {
			f.confs[k].seenK |= r
		}
	}
}

// pastCovers is covers' test on the known reads: every read b saw, a saw
// or marked; every read b marked, a saw or marked.
func pastCovers(a, b *fconf) bool {
	k := a.seenK | a.pastK
	return (b.seenK|b.pastK)&^k == 0
}

// pastNeed adds to need (sorted) one crashed write of each result of the
// reads of ks (marked in a, seen in b: covers), and reports false if the
// pool has none of one.
func (f *frontier) pastNeed(need []uint32, ks uint64) ([]uint32, bool) {
	for m := ks; m != 0; m &= m - 1 {
		p := bits.TrailingZeros64(m)
		st := f.slots[p].target
		// One for each result, not each read.
		dup := false
		for m2 := ks & (1<<p - 1); m2 != 0; m2 &= m2 - 1 {
			if f.slots[bits.TrailingZeros64(m2)].target == st {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		li, ok := f.crashedWrite(st)
		if !ok {
			return need, false
		}
		i, _ := slices.BinarySearch(need, uint32(li))
		need = slices.Insert(need, i, uint32(li))
	}
	return need, true
}
