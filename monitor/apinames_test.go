package monitor_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// monitor's public subpackages name no internal type either: a program
// can fill in a kafka.Config, read a kafka.Verdict and use a
// record.Recorder with nothing from internal/. Every subdirectory with Go
// files is checked, so a new public package is too.
func TestSubpackagesNameNoInternalType(t *testing.T) {
	t.Parallel()
	// errors.Is(err, record.ErrClosed) must hold of internal/record's error.
	errVars := map[string]map[string]bool{"record": {"ErrClosed": true}}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if files, _ := filepath.Glob(filepath.Join(e.Name(), "*.go")); e.IsDir() && len(files) > 0 {
			dirs = append(dirs, e.Name())
			noInternalType(t, e.Name(), 1, errVars[e.Name()])
		}
	}
	if !slices.Contains(dirs, "kafka") || !slices.Contains(dirs, "record") {
		t.Errorf("subpackages %v: kafka and record not found", dirs)
	}
}
