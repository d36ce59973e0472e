package engine

import (
	"cmp"
	"slices"
)

// A configuration's crashed operations used, as a disjunction
// (fconf.terms). Crashed compare-and-sets chain: a crashed write of a,
// a crashed compare-and-set a→b, another b→a, … reach the same state,
// with the same open operations taken and the same marks, by many
// different multisets of crashed operations. Kept apart, those
// configurations multiply with every crashed operation and never cover
// one another (neither used fewer than the other); so they are kept as
// one: used, the labels common to all, and terms, the alternative
// multisets of the rest. c stands for the configurations {used ⊎ t : t
// in terms} (just used when terms is empty), which share everything
// else. Every rule below keeps that set exactly, or drops only
// configurations that another kept covers (one that used at most the
// same crashed operations, everything else equal: it can take, later,
// every crashed operation the other could, covers' argument).
//
// A reduced list of terms (reduceTerms) is
//   - an antichain: no term contains another (multiset inclusion): the
//     one that contains another used more, all else equal, and is
//     covered by it;
//   - factored: no label is in every term (their multiset
//     intersection is moved into used), so that for every label x some
//     term holds no x; hence a configuration's used is contained in every
//     configuration it stands for, and what holds for used alone
//     (normalize's common labels, gentOf's summary, covers' first test)
//     holds for all of them;
//   - of two or more terms: a single term folds into used.
//
// The lists are shared between clones and never written in place: a
// change makes a new list (clone stays cheap).

// maxTerms bounds the terms of one configuration: merge keeps the
// configurations of one key apart past it (exact still: each stands for
// its own multisets), so that covers, which compares terms pairwise,
// stays cheap.
const maxTerms = 32

// union is the sorted multiset a ⊎ b, new.
func union(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// count is how many times x is in the sorted multiset a.
func count(a []uint32, x uint32) int {
	lo, _ := slices.BinarySearch(a, x)
	hi, _ := slices.BinarySearch(a, x+1)
	return hi - lo
}

// antichain is the terms of ts that contain no other (of equal ones,
// one), shortest first: each a configuration that used the fewest
// crashed operations among those of ts it is comparable to. ts's order
// is changed, its terms are not.
func antichain(ts [][]uint32) [][]uint32 {
	slices.SortFunc(ts, func(a, b []uint32) int {
		return cmp.Or(cmp.Compare(len(a), len(b)), slices.Compare(a, b))
	})
	out := ts[:0]
	for _, t := range ts {
		dominated := false
		for _, k := range out {
			// k is no longer than t: k ⊆ t or neither.
			if subset(k, t) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, t)
		}
	}
	return out
}

// factor is the disjunction {used ⊎ t : t in ts}, ts an antichain, as a
// new used and reduced terms: the labels common to all terms join used,
// a single term folds into it. used and ts's terms are not written.
func factor(used []uint32, ts [][]uint32) ([]uint32, [][]uint32) {
	switch len(ts) {
	case 0:
		return slices.Clone(used), nil
	case 1:
		return union(used, ts[0]), nil
	}
	common := slices.Clone(ts[0])
	for _, t := range ts[1:] {
		if common = intersect(common, t); len(common) == 0 {
			break
		}
	}
	if len(common) == 0 {
		return slices.Clone(used), ts
	}
	out := make([][]uint32, len(ts))
	for k, t := range ts {
		out[k] = minus(slices.Clone(t), common)
	}
	return union(used, common), out
}

// reduceTerms is {used ⊎ t : t in ts} as a reduced disjunction (see
// above): the terms that contain another dropped (covered), the common
// labels factored into used. Its lists are new or ts's own; ts's order
// changes.
func reduceTerms(used []uint32, ts [][]uint32) ([]uint32, [][]uint32) {
	return factor(used, antichain(ts))
}

// avail is how many more times every configuration c stands for may
// use pool label li (free: always).
func (f *frontier) avail(c *fconf, li int) int {
	if f.pool[li].free {
		return 1
	}
	most := 0
	for _, t := range c.terms {
		most = max(most, count(t, uint32(li)))
	}
	return f.pool[li].n - count(c.used, uint32(li)) - most
}

// use is c extended by one crashed operation of label li, standing for
// the configurations c stands for that have one left: c's terms in
// which li is still available (used ⊎ t holds it fewer times than the
// pool counts), each with li added. Those in which every crashed
// operation of li was used cannot take it, and are the only ones left
// out: nothing is invented (each is a configuration c stands for, plus
// a transition it may take) and nothing lost (every configuration c
// stands for that may take li is there). false: none may.
func (f *frontier) use(c *fconf, li int) (fconf, bool) {
	pl := &f.pool[li]
	if pl.free {
		// Not counted in used (frontfall.go).
		return c.clone(), true
	}
	n := pl.n - count(c.used, uint32(li))
	if len(c.terms) == 0 && n <= 0 {
		return fconf{}, false
	}
	// kept: the terms in which li is left, nil when it is in all.
	var kept [][]uint32
	for k, t := range c.terms {
		if count(t, uint32(li)) < n {
			continue
		}
		kept = make([][]uint32, 0, len(c.terms)-1)
		for _, t2 := range c.terms[k+1:] {
			if count(t2, uint32(li)) < n {
				kept = append(kept, t2)
			}
		}
		kept = append(kept, c.terms[:k]...)
		if len(kept) == 0 {
			return fconf{}, false
		}
		break
	}
	c2 := c.clone()
	if kept != nil {
		// Some terms left out: a subset of an antichain is one, but its
		// common labels may be more.
		c2.used, c2.terms = factor(c2.used, kept)
	}
	i, _ := slices.BinarySearch(c2.used, uint32(li))
	c2.used = slices.Insert(c2.used, i, uint32(li))
	return c2, true
}

// expand is every configuration c stands for, its terms resolved.
func (f *frontier) expand(c *fconf) []fconf {
	if len(c.terms) == 0 {
		return []fconf{c.clone()}
	}
	out := make([]fconf, 0, len(c.terms))
	for _, t := range c.terms {
		o := c.clone()
		o.used, o.terms = union(c.used, t), nil
		out = append(out, o)
	}
	return out
}

// usedCovers reports whether a, which used need besides the crashed
// writes covers counts (need: a.used and those), with terms ta, covers
// b's crashed operations used: every configuration b stands for
// contains one a stands for, that is, for every term tb of b some term
// ta of a has need ⊎ ta ⊆ b.used ⊎ tb. Then every configuration b stands
// for is covered by one a stands for (all else being covered, covers).
//
// need ⊆ b.used is tested first: it is necessary, b's terms being
// factored (for each label some term tb of b holds none of it, and need
// ⊆ b.used ⊎ tb for that tb), and it is all when neither has terms.
func (f *frontier) usedCovers(need []uint32, terms [][]uint32, b *fconf) bool {
	if !subset(need, b.used) {
		return false
	}
	if len(terms) == 0 {
		return true
	}
	rest := minus(append(f.rest[:0], b.used...), need)
	f.rest = rest
	if len(b.terms) == 0 {
		return anySubset(terms, rest)
	}
	for _, tb := range b.terms {
		u := unionInto(f.rest2[:0], rest, tb)
		f.rest2 = u
		if !anySubset(terms, u) {
			return false
		}
	}
	return true
}

// anySubset reports whether some term of ts is contained in u.
func anySubset(ts [][]uint32, u []uint32) bool {
	for _, t := range ts {
		if subset(t, u) {
			return true
		}
	}
	return false
}

// unionInto is the sorted multiset a ⊎ b, in out's room.
func unionInto(out, a, b []uint32) []uint32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// withTerm is {used ⊎ t ⊎ x : t in c's terms, x in xs}, xs sorted
// multisets each of which every configuration c stands for may add (the
// caller checked that the crashed operations are left: retro's labels
// available in all of c's terms), as a reduced disjunction in a new
// configuration; false when it would have more than maxTerms terms.
func withTerms(c *fconf, xs [][]uint32) (fconf, bool) {
	tsC := c.terms
	if len(tsC) == 0 {
		tsC = [][]uint32{nil}
	}
	if len(tsC)*len(xs) > maxTerms {
		return fconf{}, false
	}
	ts := make([][]uint32, 0, len(tsC)*len(xs))
	for _, t := range tsC {
		for _, x := range xs {
			ts = append(ts, union(t, x))
		}
	}
	c2 := c.clone()
	c2.used, c2.terms = reduceTerms(c.used, ts)
	return c2, true
}

// mergeGroup merges the configurations cs[g[0]], cs[g[1]], … (of one
// key: the same state, taken, other, hide, seenK and seen, so that they
// differ only in the crashed operations used) into as few as maxTerms
// allows, in order: each joins the one before it while their terms, put
// together and reduced, are at most maxTerms, and starts a new one
// otherwise. The one merged into stands for the union of what both stood
// for, less the multisets that contain another (covered, as prune would
// find). It marks gone the ones merged away and reports whether any was.
func mergeGroup(cs []fconf, g []int, gone []bool) bool {
	merged := false
	acc := g[0]
	var ts [][]uint32 // acc's multisets in full, an antichain
	ts = fullTerms(&cs[acc], nil)
	joined := false
	flush := func() {
		if joined {
			cs[acc].used, cs[acc].terms = factor(nil, ts)
		}
	}
	for _, y := range g[1:] {
		// A new list: ts's terms are kept as they are should y not fit.
		both := antichain(fullTerms(&cs[y], slices.Clone(ts)))
		if len(both) > maxTerms {
			flush()
			acc, ts, joined = y, fullTerms(&cs[y], nil), false
			continue
		}
		ts, joined = both, true
		gone[y] = true
		merged = true
	}
	flush()
	return merged
}

// fullTerms appends to out the multisets c stands for, each new.
func fullTerms(c *fconf, out [][]uint32) [][]uint32 {
	if len(c.terms) == 0 {
		return append(out, slices.Clone(c.used))
	}
	for _, t := range c.terms {
		out = append(out, union(c.used, t))
	}
	return out
}
