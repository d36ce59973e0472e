package engine

import "slices"

// mergeScan is how many configurations merge compares pairwise
// (mergeFew) instead of grouping them by a map keyed on their bitsets and
// seen lists: most returns keep a few.
const mergeScan = 32

// mergeFew is merge on few configurations: the configurations with the
// same bitsets and seen lists found by comparing pairs, each group in
// order of index, as merge's (merge's groups are independent of one
// another), so the result is merge's.
func (f *frontier) mergeFew(cs []fconf) []fconf {
	gone := f.gone[:0]
	for range cs {
		gone = append(gone, false)
	}
	f.gone = gone
	// grouped: in a group already (one that could not be merged is
	// not gone, and is not grouped again).
	grouped := f.grouped[:0]
	for range cs {
		grouped = append(grouped, false)
	}
	f.grouped = grouped
	merged := false
	g := f.group[:0]
	defer func() { f.group = g }()
	for x := range cs {
		a := &cs[x]
		if grouped[x] || len(a.used)+len(a.alts) == 0 {
			continue
		}
		g = append(g[:0], x)
		for y := x + 1; y < len(cs); y++ {
			b := &cs[y]
			if grouped[y] || len(b.used)+len(b.alts) == 0 || a.st != b.st || a.taken != b.taken || a.other != b.other ||
				a.hide != b.hide || a.seenK != b.seenK || a.pastK != b.pastK || !slices.Equal(a.seen, b.seen) {
				continue
			}
			g = append(g, y)
		}
		if len(g) >= 2 && mergeGroup(cs, g, gone) {
			merged = true
		}
		for _, y := range g {
			grouped[y] = true
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
