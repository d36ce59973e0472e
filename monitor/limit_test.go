package monitor

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
)

// semaphoreHistory draws a small semaphore history of the given capacity:
// generated (linearizable, or with an injected fault), or random labels —
// where releases may return no tag and so may release any acquire.
func semaphoreHistory(rng *rand.Rand, capacity, maxOps int) *h.History {
	n := 1 + rng.IntN(maxOps)
	if rng.IntN(2) == 0 {
		cfg := gen.Config{Object: h.Semaphore, Ops: n, Concurrency: 1 + rng.IntN(5), Seed: rng.Int64(),
			Mutate: rng.IntN(3), Capacity: capacity}
		cfg.Pending = rng.IntN(min(cfg.Concurrency, n) + 1)
		if hist, err := gen.History(cfg); err == nil {
			return hist
		}
	}
	hist := garbageHistory(rng, h.Semaphore, n)
	hist.Param = strconv.Itoa(capacity)
	return hist
}

// releasesTagged reports whether every release of hist returns a tag, so
// that it can release one acquire only (a pending one may return any).
func releasesTagged(hist *h.History) bool {
	for _, o := range hist.Ops {
		if o.Label.Method == h.Release && (o.Pending() || o.Label.Ret == h.Void) {
			return false
		}
	}
	return true
}

// TestLimitCountingAgreesWithPlain compares LIMIT grounded by counting
// with LIMIT grounded tuple by tuple, as written, on small capacities:
// the exact variants (SYMBOLIC with and without -i, -c and -r, ENUMERATE)
// must give the same verdict at the same step on every history, since the
// two encodings are equisatisfiable; SATURATE, which only propagates,
// must too at capacity 1 and where every release returns a tag (see
// encode/limit.go for why only there); elsewhere it may only find a
// violation later than the plain grounding, or miss it (2 of 6,000 histories
// with SATMON_DIFF_SCALE=10).
func TestLimitCountingAgreesWithPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 3))
	variants := []Options{
		{Algorithm: Saturate}, {Algorithm: Saturate, RemoveObsolete: true},
		{Algorithm: Symbolic}, {Algorithm: Symbolic, Incremental: true},
		{Algorithm: Symbolic, Incremental: true, RemoveObsolete: true},
		{Algorithm: Symbolic, Completion: true, Incremental: true},
		{Algorithm: Enumerate},
	}
	n := scale(600)
	viol, weaker := 0, 0
	for i := 0; i < n; i++ {
		capacity := 1 + i%3
		hist := semaphoreHistory(rng, capacity, 9)
		for _, opt := range variants {
			got := CheckHistory(hist, opt)
			plain := opt
			plain.plainLimit = true
			want := CheckHistory(hist, plain)
			same := got.Verdict == want.Verdict && deref(got.ViolationStep) == deref(want.ViolationStep)
			if !same && opt.Algorithm == Saturate && capacity > 1 && !releasesTagged(hist) && want.Verdict == Violation &&
				(got.Verdict == OK || got.Verdict == Violation && *got.ViolationStep > *want.ViolationStep) {
				weaker++
				continue
			}
			if !same {
				t.Fatalf("history %d, %s, capacity %d: counting says %s at %v, plain grounding %s at %v\n%v",
					i, opt.Name(), capacity, got.Verdict, deref(got.ViolationStep), want.Verdict, deref(want.ViolationStep), hist)
			}
			if got.Verdict == Violation {
				viol++
			}
		}
	}
	if viol == 0 {
		t.Fatal("no violation found: the comparison tests nothing")
	}
	t.Logf("%d histories × %d variants: %d violations agree; SATURATE found %d later or not at all (untagged releases)", n, len(variants), viol, weaker)
}
