package engine

// casFrom is f.poolCAS[v] for the state id st of value v (a state with a
// value), by id: the search asks it for every configuration it extends,
// and a map lookup by the value's string cost more than the rest of
// choosing the crashed operations. The lists are made again from
// poolCASAll (in the same order, the labels' own) whenever the pool has
// gained a label since: a label is added to poolCAS only when it is new.
func (f *frontier) casFrom(st uint32) []int {
	if f.casByN != len(f.pool) {
		for i := range f.casBy {
			f.casBy[i] = f.casBy[i][:0]
		}
		for _, li := range f.poolCASAll {
			from := f.pool[li].from
			for int(from) >= len(f.casBy) {
				f.casBy = append(f.casBy, nil)
			}
			f.casBy[from] = append(f.casBy[from], li)
		}
		f.casByN = len(f.pool)
	}
	if int(st) >= len(f.casBy) {
		return nil
	}
	return f.casBy[st]
}
