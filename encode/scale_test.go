package encode

import "github.com/satmon/satmon/internal/testutil"

// seeds sizes a random test's seed loop by the one knob, testutil.Scale
// (SATMON_DIFF_SCALE; `make test` runs at 0.1, `make test-long` at 1),
// but never below four seeds: seedConfig and the tests' own configs choose
// pending operations, faults, value pools, capacities and long windows by
// the seed modulo 2, 3 or 4, so seeds 1-4 give every one of them.
func seeds(n int) int64 { return int64(testutil.ScaleMin(n, 4)) }
