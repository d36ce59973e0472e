package engine

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testhist"
	"github.com/satmon/satmon/internal/testutil"
)

// The default variant on the logs of testdata/ and the paper histories
// (those TestGolden records): on every object but the registers it is
// SATURATE -r, with the same verdicts and violation steps; on the
// registers it is the frontier, exact, with SYMBOLIC's verdict and step
// (SYMBOLIC without -r decides exactly and reports the earliest return).
func TestDefaultGolden(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	var paths []string
	for _, dir := range []string{filepath.Join(root, "testdata"), filepath.Join(root, "..", "shared", "data", "paper-histories")} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".log") {
				paths = append(paths, p)
			}
			if err != nil && p == dir {
				return filepath.SkipDir
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	regs, others := 0, 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		hist, err := logfmt.ReadHistory(bytes.NewReader(data), logfmt.Options{Name: p})
		if err != nil {
			continue // a log of several objects: TestGolden names them
		}
		got := check(hist, Options{})
		var want Result
		if frontierObject(hist.Object) {
			if len(hist.Ops) > goldenFullOps {
				continue
			}
			want = check(hist, Options{Algorithm: Symbolic})
			if !got.Exact || got.Algorithm != FrontierAlgorithm {
				t.Errorf("%s: %s, exact %v", p, got.Algorithm, got.Exact)
			}
			regs++
		} else {
			want = check(hist, Options{Algorithm: Saturate, RemoveObsolete: true})
			if got.Exact != want.Exact || got.Algorithm != want.Algorithm {
				t.Errorf("%s: %s exact %v, saturate -r %s exact %v", p, got.Algorithm, got.Exact, want.Algorithm, want.Exact)
			}
			others++
		}
		if got.Verdict != want.Verdict || got.Verdict == Violation && *got.ViolationStep != *want.ViolationStep {
			t.Errorf("%s: default %v at %v, %s %v at %v", p, got.Verdict, testhist.Step(got.ViolationStep), want.Algorithm, want.Verdict, testhist.Step(want.ViolationStep))
		}
	}
	if regs == 0 || others == 0 {
		t.Fatalf("%d register logs, %d others", regs, others)
	}
	t.Logf("%d register logs, %d others", regs, others)
}
