package engine

import (
	"cmp"
	"slices"
)

// A configuration's crashed operations used, as a product of
// disjunctions (fconf.alts). Crashed compare-and-sets chain: a crashed
// write of a, a crashed compare-and-set a→b, another b→a, … reach the
// same state, with the same open operations taken and the same marks,
// by many different multisets of crashed operations. Kept apart, those
// configurations multiply with every crashed operation and never cover
// one another (neither used fewer than the other); so they are kept as
// one: used, the labels common to all, and alts, a list of factors, each
// a disjunction of alternative multisets (terms). c stands for the
// configurations that used used ⊎ t1 ⊎ … ⊎ tk, ti a term of the i-th
// factor, and share everything else. Independent choices (a or b, then
// later c or d) stay a product (two factors, not four terms); choices
// that do not factor so (used [1 9] or [54]) are terms of one factor.
// Every rule below keeps that set exactly, or drops only configurations
// that another kept covers (one that used at most the same crashed
// operations, everything else equal: it can take, later, every crashed
// operation the other could; covers' argument).
//
// A factor (reduceTerms) is
//   - an antichain: no term contains another (multiset inclusion): the
//     one that contains another used more, all else equal, and is
//     covered by it;
//   - factored: no label is in every term (their multiset
//     intersection is moved into used), so that for every label x each
//     factor has a term with no x; hence a configuration's used is
//     contained in every configuration it stands for, and what holds for
//     used alone (normalize's common labels, gentOf's summary, covers'
//     first test) holds for all of them;
//   - of two or more terms, sorted (shortest first, then in order): a
//     single term folds into used.
//
// The lists are shared between clones and never written in place: a
// change makes a new list (clone stays cheap).

// maxTerms bounds the terms of one factor: merge keeps two
// configurations of one key apart past it (exact still: each stands for
// its own multisets), so that covers, which compares terms pairwise,
// stays cheap; use splits a configuration rather than make a larger one.
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

// termOrder orders terms shortest first, then by their labels.
func termOrder(a, b []uint32) int {
	return cmp.Or(cmp.Compare(len(a), len(b)), slices.Compare(a, b))
}

// antichain is the terms of ts that contain no other (of equal ones,
// one), shortest first: each a configuration that used the fewest
// crashed operations among those of ts it is comparable to. ts's order
// is changed, its terms are not.
func antichain(ts [][]uint32) [][]uint32 {
	slices.SortFunc(ts, termOrder)
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
	// In antichain's order again, so that equal factors are equal lists
	// (merge's factorsApart).
	slices.SortFunc(out, termOrder)
	return union(used, common), out
}

// reduceTerms is {used ⊎ t : t in ts} as used and a reduced factor (see
// above; nil when it folds into used): the terms that contain another
// dropped (covered), the common labels factored into used. Its lists
// are new or ts's own; ts's order changes.
func reduceTerms(used []uint32, ts [][]uint32) ([]uint32, [][]uint32) {
	return factor(used, antichain(ts))
}

// avail is how many more times every configuration c stands for may
// use pool label li (free: always): what used leaves, less the most any
// term of each factor holds.
func (f *frontier) avail(c *fconf, li int) int {
	if f.pool[li].free {
		return 1
	}
	n := f.pool[li].n - count(c.used, uint32(li))
	for _, x := range c.alts {
		n -= mostOf(x, uint32(li))
	}
	return n
}

// mostOf is the most times a term of x holds li.
func mostOf(x [][]uint32, li uint32) int {
	most := 0
	for _, t := range x {
		most = max(most, count(t, li))
	}
	return most
}

// use appends to out c extended by one crashed operation of label li:
// the configurations c stands for that have one left (used and their
// terms hold li fewer times than the pool counts), each with li added.
// Those in which every crashed operation of li was used cannot take it,
// and are the only ones left out: nothing is invented (each is a
// configuration c stands for, plus a transition it may take) and nothing
// lost (every configuration c stands for that may take li is there).
//   - li left in all (avail): li joins used, the factors are shared.
//   - Held by one factor only: its terms that leave li are kept.
//   - Held by several: two of them become one (their product, when it
//     has at most maxTerms terms), or c is split on the terms of one of
//     them (each folded into used: together they stand for c), and so on
//     until one is left.
func (f *frontier) use(c *fconf, li int, out []fconf) []fconf {
	if f.pool[li].free {
		// Not counted in used (frontfall.go).
		return append(out, c.clone())
	}
	n := f.pool[li].n - count(c.used, uint32(li))
	if n <= 0 {
		return out
	}
	sum, h1, h2 := 0, -1, -1
	for k, x := range c.alts {
		if m := mostOf(x, uint32(li)); m > 0 {
			sum += m
			if h1 < 0 {
				h1 = k
			} else if h2 < 0 {
				h2 = k
			}
		}
	}
	if sum < n {
		c2 := c.clone()
		i, _ := slices.BinarySearch(c2.used, uint32(li))
		c2.used = slices.Insert(c2.used, i, uint32(li))
		return append(out, c2)
	}
	if h2 < 0 {
		var kept [][]uint32
		for _, t := range c.alts[h1] {
			if count(t, uint32(li)) < n {
				kept = append(kept, t)
			}
		}
		if len(kept) == 0 {
			return out
		}
		c2 := c.withFactor(h1, kept)
		i, _ := slices.BinarySearch(c2.used, uint32(li))
		c2.used = slices.Insert(c2.used, i, uint32(li))
		return append(out, c2)
	}
	x, y := c.alts[h1], c.alts[h2]
	if len(x)*len(y) <= maxTerms {
		prod := make([][]uint32, 0, len(x)*len(y))
		for _, tx := range x {
			for _, ty := range y {
				prod = append(prod, union(tx, ty))
			}
		}
		c1 := c.without(h2)
		c2 := c1.withFactor(h1, prod)
		return f.use(&c2, li, out)
	}
	for _, t := range x {
		c2 := c.without(h1)
		c2.used = union(c2.used, t)
		out = f.use(&c2, li, out)
	}
	return out
}

// without is a clone of c without its k-th factor.
func (c *fconf) without(k int) fconf {
	c2 := c.clone()
	c2.alts = slices.Concat(c.alts[:k], c.alts[k+1:])
	return c2
}

// withFactor is a clone of c whose k-th factor is ts (any terms),
// reduced: what it factors or folds joins used.
func (c *fconf) withFactor(k int, ts [][]uint32) fconf {
	c2 := c.clone()
	u, x := reduceTerms(c.used, ts)
	c2.used = u
	if len(x) == 0 {
		c2.alts = slices.Concat(c.alts[:k], c.alts[k+1:])
	} else {
		c2.alts = slices.Concat(c.alts[:k], [][][]uint32{x}, c.alts[k+1:])
	}
	return c2
}

// usedCovers reports whether a, which used need (a.used and the crashed
// writes covers counts), with factors alts, covers b's crashed
// operations used: whether every configuration b stands for contains
// one a stands for. It is so when need ⊆ b.used and each factor x of a
// is matched, each to its own, with a factor y of b that x covers (for
// every term of y some term of x contained in it), or with a term of x
// contained in what is left of b.used (rest, each part of it matched
// once): whatever terms b's configuration picks, a's picks the matched
// ones, which lie in disjoint parts of it.
//
// need ⊆ b.used is necessary, b's factors being factored (for each label
// each factor of b has a term with none of it, and b stands for the
// configuration that picks those), and all when a has no factors. The
// matching is greedy: it may miss a cover (b is then kept, never
// dropped wrongly).
func (f *frontier) usedCovers(need []uint32, alts [][][]uint32, b *fconf) bool {
	if !subset(need, b.used) {
		return false
	}
	if len(alts) == 0 {
		return true
	}
	rest := minus(append(f.rest[:0], b.used...), need)
	f.rest = rest
	var done uint64
	for _, x := range alts {
		found := false
		for k, y := range b.alts {
			if k < 64 && done&(1<<k) == 0 && factorCovers(x, y) {
				done |= 1 << k
				found = true
				break
			}
		}
		for _, t := range x {
			if !found && subset(t, rest) {
				rest = minus(rest, t)
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// factorCovers reports whether for every term of y some term of x is
// contained in it.
func factorCovers(x, y [][]uint32) bool {
	for _, ty := range y {
		if !anySubset(x, ty) {
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

// mergeGroup merges configurations of cs[g[0]], cs[g[1]], … (of one key:
// the same state, taken, other, hide, seenK, pastK and seen, so that they
// differ only in the crashed operations used), two at a time (mergePair),
// marking gone those merged into another, until no two merge; it
// reports whether any was. Only pairs whose difference is one unit on
// each side merge (mergePair): merging any pair, the products of its
// differences expanded into one factor, would flatten independent
// choices into long terms that no later merge can join, and the
// configurations of one key would stay apart.
func mergeGroup(cs []fconf, g []int, gone []bool) bool {
	merged := false
	for changed := true; changed; {
		changed = false
		for x := 0; x < len(g); x++ {
			if gone[g[x]] {
				continue
			}
			for y := x + 1; y < len(g); y++ {
				if gone[g[y]] {
					continue
				}
				if m, ok := mergePair(&cs[g[x]], &cs[g[y]]); ok {
					cs[g[x]] = m
					gone[g[y]] = true
					changed, merged = true, true
				}
			}
		}
	}
	return merged
}

// mergePair is one configuration that stands for a and b (of one key),
// less the multisets that contain another (covered, as prune would
// find): their common factors and used labels kept, the rest of each
// one unit, a factor or the used labels left (one term), and the terms
// of the two units one factor, of at most maxTerms terms. Independent
// choices stay a product: (F, a) and (F, b) make (F, a|b), and (F, a|b,
// c) and (F, a|b, d) make (F, a|b, c|d).
func mergePair(a, b *fconf) (fconf, bool) {
	if len(a.used)+len(a.alts) == 0 || len(b.used)+len(b.alts) == 0 {
		return fconf{}, false
	}
	cu := intersect(slices.Clone(a.used), b.used)
	ua, ub := minus(slices.Clone(a.used), cu), minus(slices.Clone(b.used), cu)
	ra, rb, common := factorsApart(a.alts, b.alts)
	unit := func(u []uint32, r [][][]uint32) bool { return len(r) == 0 || len(r) == 1 && len(u) == 0 }
	if !unit(ua, ra) || !unit(ub, rb) {
		return fconf{}, false
	}
	ta, tb := product(ua, ra), product(ub, rb)
	if ta == nil || tb == nil || len(ta)+len(tb) > maxTerms {
		return fconf{}, false
	}
	u, x := reduceTerms(cu, append(ta, tb...))
	m := fconf{st: a.st, taken: a.taken, other: a.other, hide: a.hide, seenK: a.seenK, pastK: a.pastK, seen: a.seen, used: u, alts: common}
	if len(x) > 0 {
		m.alts = append(slices.Clip(common), x)
	}
	return m, true
}

// factorsApart is a's factors not in b, b's not in a, and those in both
// (as multisets of factors).
func factorsApart(a, b [][][]uint32) (ra, rb, common [][][]uint32) {
	inB := make([]bool, len(b))
	for _, x := range a {
		found := false
		for k, y := range b {
			if !inB[k] && slices.EqualFunc(x, y, slices.Equal) {
				inB[k], found = true, true
				break
			}
		}
		if found {
			common = append(common, x)
		} else {
			ra = append(ra, x)
		}
	}
	for k, y := range b {
		if !inB[k] {
			rb = append(rb, y)
		}
	}
	return ra, rb, common
}

// product is the terms u ⊎ t1 ⊎ … ⊎ tk, ti a term of the i-th factor of
// r, each new; nil past maxTerms.
func product(u []uint32, r [][][]uint32) [][]uint32 {
	out := [][]uint32{slices.Clone(u)}
	for _, x := range r {
		if len(out)*len(x) > maxTerms {
			return nil
		}
		next := make([][]uint32, 0, len(out)*len(x))
		for _, o := range out {
			for _, t := range x {
				next = append(next, union(o, t))
			}
		}
		out = next
	}
	return out
}
