package logfmt

// hooks are the switches that tests turn (export_test.go sets them). The
// reader of a program has none (Reader.hk is nil).
type hooks struct {
	// noFast reads every line by the general path, which the fast path
	// (fast.go) is tested against.
	noFast bool
}
