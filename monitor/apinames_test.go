package monitor_test

import "testing"

// monitor's public subpackages name no internal type either: a program
// can fill in a kafka.Config, read a kafka.Verdict and use a
// record.Recorder with nothing from internal/.
func TestSubpackagesNameNoInternalType(t *testing.T) {
	t.Parallel()
	noInternalType(t, "kafka", 8, nil)
	// errors.Is(err, record.ErrClosed) must hold of internal/record's error.
	noInternalType(t, "record", 6, map[string]bool{"ErrClosed": true})
}
