package engine

// hooks are the switches that tests turn (export_test.go's newTuned sets
// them): each replaces a part of -r by the plainer thing it stands for,
// so that a test can compare the two. The monitor of a program has none
// (Monitor.hk is nil); the sites that read one test hk first, once per
// quiescent point.
type hooks struct {
	// noSummary: -r without summaries (summary.go).
	noSummary bool
	// satOnly: summaries decide every queue or stack segment by SAT, not
	// by internal/forget's search first.
	satOnly bool
}
