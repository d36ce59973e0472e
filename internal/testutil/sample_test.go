package testutil

import (
	"slices"
	"testing"
)

func TestSample(t *testing.T) {
	t.Parallel()
	xs := []string{"a1", "a2", "a3", "a4", "a5", "a6", "b1", "c1", "c2"}
	kind := func(s string) string { return s[:1] }
	if got := Sample(xs, 20, kind); !slices.Equal(got, xs) {
		t.Errorf("n past the length: %v", got)
	}
	got := Sample(xs, 3, kind)
	seen := map[string]bool{}
	for _, s := range got {
		seen[kind(s)] = true
	}
	if len(seen) != 3 {
		t.Errorf("Sample(xs, 3) = %v: a kind is missing", got)
	}
	if !slices.IsSorted(got) {
		t.Errorf("Sample(xs, 3) = %v: order not kept", got)
	}
	if got := Sample(xs, 6, kind); len(got) < 5 || len(got) > 7 {
		t.Errorf("Sample(xs, 6) = %v: %d items", got, len(got))
	}
}
