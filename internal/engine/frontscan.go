package engine

import "slices"

// mergeScan is how many configurations merge compares pairwise
// (mergeFew) instead of grouping them by a map keyed on their bitsets and
// seen lists: most returns keep a few.
const mergeScan = 32

// mergeFew is merge on few configurations: each pair with the same
// bitsets and seen lists, in the order merge's groups take them (by
// index within a group; merge's groups are independent of one another),
// so the result is merge's.
func (f *frontier) mergeFew(cs []fconf) []fconf {
	gone := f.gone[:0]
	for range cs {
		gone = append(gone, false)
	}
	f.gone = gone
	merged := false
	for x := range cs {
		a := &cs[x]
		if gone[x] || len(a.used)+len(a.alts) == 0 {
			continue
		}
		for y := x + 1; y < len(cs); y++ {
			b := &cs[y]
			if gone[y] || len(b.used)+len(b.alts) == 0 || a.st != b.st || a.taken != b.taken || a.other != b.other ||
				a.hide != b.hide || a.seenK != b.seenK || !slices.Equal(a.seen, b.seen) {
				continue
			}
			if m, ok := mergeTwo(a, b); ok {
				*a = m
				gone[y] = true
				merged = true
			}
		}
	}
	if !merged {
		return cs
	}
	return withoutGone(cs, gone)
}

// withoutGone is cs without the configurations merged into others
// (merge, mergeFew), in place.
func withoutGone(cs []fconf, gone []bool) []fconf {
	out := cs[:0]
	for i := range cs {
		if !gone[i] {
			out = append(out, cs[i])
		}
	}
	return out
}
