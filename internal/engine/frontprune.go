package engine

import (
	"cmp"
	"slices"
)

// prunePart is the size of a state's group of configurations from which
// prune sorts it into parts (pruneGroup) before comparing pairs: fewer,
// sorting costs more than the pairs it saves.
const prunePart = 32

// ppart is a part of a state's group (pruneGroup): the configurations
// g[lo:hi], which share fixed, seenK (gent's: the known reads seen or
// marked) and other.
type ppart struct {
	fixed, seenK, other uint64
	lo, hi              int
}

// pruneGroup marks in keep the configurations of g (one state's, in the
// order of their index i) that another of g covers, as the comparison of
// every pair would: b goes if some a ≠ b passes mayCover and covers,
// unless b also covers a and comes first (b.i < a.i). Whether b goes does
// not depend on the order in which its candidates a are tried.
//
// A large group is sorted into parts of equal fixed, seenK and other,
// where fixed(c) = c.taken &^ writes &^ fails: the operations c took that
// are neither open writes nor compare-and-sets known to fail. b is
// compared only with the configurations of the parts where a may cover
// it, which mayCover(a, b) limits to those where
//   - a.seenK ⊇ b.seenK and a.other ⊇ b.other: mayCover tests both;
//   - fixed(a) = fixed(b): mayCover demands dA = a.taken &^ b.taken ⊆
//     writes, so fixed(a) ⊆ b.taken, hence fixed(a) ⊆ fixed(b); and dB =
//     b.taken &^ a.taken ⊆ a.hide | fails, where a.hide holds open writes
//     only (enter sets it for writes' slots, dropSlot clears a slot when
//     it closes), so fixed(b) ⊆ a.taken, hence fixed(b) ⊆ fixed(a).
//     Should some configuration hide a slot that is not an open write,
//     fixed is left out of the parts (taken as 0 for all).
//
// No pair that may pass mayCover is skipped, and the marks are those of
// the comparison of every pair: exactly the same configurations are kept
// (TestFrontierPruneParts checks it against prunePairs). The parts cut
// the pairs compared to a fourth on a compare-and-set register with
// crashed operations at 20 clients, where a return keeps hundreds of
// configurations of one state.
func (f *frontier) pruneGroup(cs []fconf, g []gent, keep []bool, writes, fails uint64) {
	if len(g) < prunePart {
		f.prunePairs(cs, g, keep, writes, fails)
		return
	}
	f.pruneParts(cs, g, keep, writes, fails)
}

// pruneParts is pruneGroup by parts, whatever g's size.
func (f *frontier) pruneParts(cs []fconf, g []gent, keep []bool, writes, fails uint64) {
	n := ^writes &^ fails
	for x := range g {
		if g[x].hide&^writes != 0 {
			n = 0
			break
		}
	}
	slices.SortFunc(g, func(a, b gent) int {
		return cmp.Or(cmp.Compare(a.taken&n, b.taken&n), cmp.Compare(a.seenK, b.seenK),
			cmp.Compare(a.other, b.other), cmp.Compare(a.i, b.i))
	})
	parts := f.parts[:0]
	for lo := 0; lo < len(g); {
		p := ppart{fixed: g[lo].taken & n, seenK: g[lo].seenK, other: g[lo].other, lo: lo, hi: lo + 1}
		for p.hi < len(g) && g[p.hi].taken&n == p.fixed && g[p.hi].seenK == p.seenK && g[p.hi].other == p.other {
			p.hi++
		}
		parts = append(parts, p)
		lo = p.hi
	}
	f.parts = parts
	for pb := range parts {
		bp := &parts[pb]
		for x := bp.lo; x < bp.hi; x++ {
			b := &g[x]
		search:
			for pa := range parts {
				ap := &parts[pa]
				if ap.fixed != bp.fixed || ap.seenK&bp.seenK != bp.seenK || ap.other&bp.other != bp.other {
					continue
				}
				for y := ap.lo; y < ap.hi; y++ {
					a := &g[y]
					if y != x && f.coversFirst(cs, a, b, writes, fails) {
						keep[b.i] = false
						break search
					}
				}
			}
		}
	}
}

// coversFirst reports whether a covers b, and b does not also cover a
// while coming later (of two that cover each other, the earlier stays).
func (f *frontier) coversFirst(cs []fconf, a, b *gent, writes, fails uint64) bool {
	return mayCover(a, b, writes, fails) && f.covers(&cs[a.i], &cs[b.i]) &&
		!(a.i > b.i && mayCover(b, a, writes, fails) && f.covers(&cs[b.i], &cs[a.i]))
}

// prunePairs compares every pair of g (see pruneGroup).
func (f *frontier) prunePairs(cs []fconf, g []gent, keep []bool, writes, fails uint64) {
	for x := range g {
		b := &g[x]
		for y := range g {
			if y != x && f.coversFirst(cs, &g[y], b, writes, fails) {
				keep[b.i] = false
				break
			}
		}
	}
}
