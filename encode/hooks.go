package encode

// hooks are the switches that tests turn (encode/export_test.go sets
// them): each replaces a shortcut of the encoder by its plain version, or
// checks a claim the shortcut rests on, so that a test can compare the
// two. The encoder of a program has none (Encoder.hk is nil); every site
// that reads one tests hk first, on a path the shortcut has already left
// or where the check costs one comparison.
type hooks struct {
	// interpret grounds every axiom with the formula interpreter, the
	// reference the compiled templates are tested against (instances).
	interpret bool
	// plainEdge replaces edgeAssigned: a version without its shortcuts,
	// whose clauses the tests compare.
	plainEdge func(p, q *Op, l Lit)
	// noQuick turns crec's quickHolds and witnessesX's rowExcluded off
	// (grounder.setQuick reads it); noRuns turns quickTail off.
	noQuick, noRuns bool
	// evalAll evaluates every watched instance at every event instead of
	// counting: the reference the counts are checked against.
	evalAll bool
	// flushByActs makes flushMatches go through its loop over the actions
	// even for those flushPairRowCol writes out.
	flushByActs bool
	// checkConcMarks makes usedAssigned check, where it reads from real
	// time whether an operation is in p.conc, that p.conc says so;
	// concChecked counts the checks.
	checkConcMarks bool
	concChecked    int
}
