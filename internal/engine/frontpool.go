package engine

import "slices"

// crashedWrite is the pool label of the crashed writes of state st, if
// any. It is asked once per open write at every covering test that
// crosses taken operations (covers) and once per wanted state at every
// configuration the search extends (ret): a map lookup there cost an
// eighth of a 20-client log's time, where state ids are dense and a
// slice indexed by them costs a load.
func (f *frontier) crashedWrite(st uint32) (int, bool) {
	if int(st) >= len(f.poolWrite) || f.poolWrite[st] == 0 {
		return 0, false
	}
	return int(f.poolWrite[st] - 1), true
}

// setCrashedWrite records li as the pool label of the crashed writes of
// state st.
func (f *frontier) setCrashedWrite(st uint32, li int) {
	for int(st) >= len(f.poolWrite) {
		f.poolWrite = append(f.poolWrite, 0)
	}
	f.poolWrite[st] = int32(li + 1)
}

// sortByState is prune's order of groups (gentOf(&cs[i], i) for each i,
// in order): by state, then by index. It sorts packed keys, state and
// index in one integer, and not the entries through a comparison that
// looks each one's state up in cs: prune sorts a return's hundreds of
// configurations two or three times, and a sort by comparison function
// cost a tenth of a 20-client log's time.
func (f *frontier) sortByState(cs []fconf, groups []gent) []gent {
	keys := f.sortKeys[:0]
	for i := range groups {
		keys = append(keys, uint64(cs[groups[i].i].st)<<32|uint64(i))
	}
	slices.Sort(keys)
	f.sortKeys = keys
	sorted := append(f.sortTmp[:0], groups...)
	f.sortTmp = sorted
	for x, k := range keys {
		groups[x] = sorted[uint32(k)]
	}
	return groups
}
