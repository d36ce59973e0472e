package engine

import h "github.com/satmon/satmon/internal/history"

// poolIdle reports whether the search need not use the crashed
// operation pl from c, to state ns:
//   - a crashed write of a state of which c has an open write left
//     (openWriteOf, below);
//   - one to c's own state that hides nothing and marks nothing: a
//     crashed write of the state c is at shows no observer anything new,
//     but places, unseen, right before it every open write not taken
//     (hide), each then explained at its return, and marks the known
//     reads whose result the pool has crashed writes of (pastK: one of
//     those may go right before it, frontpast.go); where every open
//     write is taken or hidden already and every such read marked or
//     seen, it changes nothing but what it used. (A read of 2 open
//     across a crashed write of 1 used at 1, then a crashed
//     compare-and-set from 1 to 4, is explained by a crashed write of 2
//     right before the write of 1; skipping that write, the default
//     reported a violation on a linearizable history,
//     TestFrontierPastIdleWrite.)
//   - a compare-and-set to c's own state: it shows no observer anything
//     new, and hides nothing.
func (f *frontier) poolIdle(c *fconf, pl *poolLabel, ns uint32) bool {
	if pl.l.Method == h.Write {
		return f.openWriteOf(c, ns) || ns == c.st && f.em.writes&^c.taken&^c.hide == 0 && f.marksNone(c, ns)
	}
	return ns == c.st
}

// openWriteOf reports whether an open write of state st that c has not
// taken exists: then the search does not use a crashed write of st from
// c (ret), as the configuration B that would make is covered by the one
// A it makes by taking the open write instead.
//
// Why no linearization is lost. Let p be the open write of st, li the
// crashed one; A = c + p, B = c + li (B: the configurations use makes
// of c with li, each standing for some of c's multisets of crashed
// operations plus li). Both enter st at the same point, so their
// observers record the same (seen, seenK, other), and both hide the same
// open writes but p, which A took. Every continuation of B is mirrored
// by one of A with p and li swapped: where B later takes p, A uses li
// (A has it left: it used c's crashed operations only, and a crashed
// write may take effect at any later time), to the same state; where B
// never takes p, A has it taken already, so p's return is explained in
// A whenever it is in B (taken, or hidden by a later write). Every state
// entered is the same on both, at the same points, so every return B's
// continuation explains A's explains. A itself is made by the search
// from c whenever B would be: the search takes every open write of a
// state it would use a crashed write of (both when all, else both only
// of a wanted state; ns = c's state skips only the crashed one, and A
// then enters what c is at already); and A, once made, is kept, or
// covered by one kept, or, explaining the return, kept in place of its
// extensions (ret), which stand for the mirrored continuations of B as
// for A's own. The extensions that retro adds to B (c extended by y,
// then li) are mirrored by those it adds to A (c + y + p), or, y being
// p, covered by A (c + p + li saw what A saw and used more). In
// writesOnly's returns, A and B both forget their state when neither
// took the returning write, and when p is it, B is one hiddenOnly keeps
// out, whose extensions are mirrored as above.
//
// TestFrontierOpenWriteFirst (frontdupw_test.go) checks it against
// ENUMERATE -c and Porcupine on small histories with open and crashed
// writes of the same values.
func (f *frontier) openWriteOf(c *fconf, st uint32) bool {
	for _, w := range f.em.openW {
		if w.st == st && c.taken&(1<<w.p) == 0 {
			f.openFirst++
			return true
		}
	}
	return false
}

// marksNone reports whether a write of state ns, entered from c, would
// mark no known read that c has not marked or seen (enter's pastK): a
// mark stands for a crashed write of the read's result put right before
// that write (frontpast.go), so a crashed write of the state c is at
// that marks one is not idle.
func (f *frontier) marksNone(c *fconf, ns uint32) bool {
	seenK := c.seenK
	for _, r := range f.em.knownR {
		if r.st == ns {
			seenK |= 1 << r.p
		}
	}
	return f.em.pastR&^seenK&^c.pastK == 0
}
