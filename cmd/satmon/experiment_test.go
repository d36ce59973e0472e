package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExperimentQuick(t *testing.T) {
	code, out, errs := runCmd("experiment", "table2", "--quick", "--histories", "3", "--variants", "saturate,saturate -r,enumerate -c")
	if code != exitOK {
		t.Fatalf("table2: exit %d: %s", code, errs)
	}
	for _, want := range []string{"% violations", "saturate -r", "enumerate -c", "histories proved violating"} {
		if !strings.Contains(out, want) {
			t.Errorf("table2 output lacks %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	code, out, errs = runCmd("experiment", "fig12", "--quick", "--histories", "1", "--variants", "saturate,saturate -r", "--out", dir)
	if code != exitOK {
		t.Fatalf("fig12: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "200ms") {
		t.Errorf("fig12 output lacks the limits:\n%s", out)
	}
	for _, f := range []string{"fig12.svg", "fig12.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	code, out, errs = runCmd("experiment", "correct", "--histories", "2")
	if code != exitOK || !strings.Contains(out, "msqueue") {
		t.Errorf("correct: exit %d: %s%s", code, out, errs)
	}
	if code, _, _ := runCmd("experiment", "table9"); code != exitUsage {
		t.Errorf("unknown experiment: exit %d", code)
	}
	if code, _, _ := runCmd("experiment", "table1", "--variants", "magic"); code != exitUsage {
		t.Errorf("unknown variant: exit %d", code)
	}
}
