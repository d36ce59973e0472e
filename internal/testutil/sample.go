package testutil

import "sort"

// Sample keeps about n of xs (n sized by Scale, as a heavy test's seeds
// are), spread evenly over each kind (the middle of equal strides): every
// kind of xs keeps at least one item, so a small scale checks fewer
// files, never fewer kinds. Order is kept. kind may be nil (one kind).
// With n ≥ len(xs) it returns xs.
func Sample[T any](xs []T, n int, kind func(T) string) []T {
	if n >= len(xs) {
		return xs
	}
	groups := map[string][]int{}
	for i, x := range xs {
		k := ""
		if kind != nil {
			k = kind(x)
		}
		groups[k] = append(groups[k], i)
	}
	var keep []int
	for _, g := range groups {
		m := max(1, len(g)*n/len(xs))
		for j := range m {
			// The middle of each of m equal strides.
			keep = append(keep, g[j*len(g)/m+len(g)/(2*m)])
		}
	}
	sort.Ints(keep)
	out := make([]T, len(keep))
	for i, j := range keep {
		out[i] = xs[j]
	}
	return out
}
