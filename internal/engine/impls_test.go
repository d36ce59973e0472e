package engine

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/satmon/satmon/internal/impls"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testhist"
	"github.com/satmon/satmon/internal/testutil"
)

// Logs of real runs of the faulty implementations (testdata/impls, each
// commented with the bug it shows): satmon's default checkers catch them.
func TestFaultyImplementationLogs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testutil.Root(t), "testdata", "impls", "*.log"))
	if err != nil || len(files) < 7 {
		t.Fatalf("want a log for each of the 7 faulty implementations, found %d", len(files))
	}
	for _, f := range files {
		for _, opt := range []Options{{Algorithm: Saturate}, {Algorithm: Saturate, RemoveObsolete: true}} {
			if res := checkFile(t, f, opt); res.Verdict != Violation {
				t.Errorf("%s: %s says %s", filepath.Base(f), opt.Name(), res.Verdict)
			}
		}
	}
}

// No correct implementation ever yields a reported violation: each runs
// over many seeds (scale with SATMON_DIFF_SCALE) with real concurrency.
func TestCorrectImplementationsAccepted(t *testing.T) {
	t.Parallel()
	runs := scale(30)
	for _, name := range impls.Names() {
		obj, faulty, _ := impls.Info(name)
		if faulty {
			continue
		}
		for seed := int64(1); seed <= int64(runs); seed++ {
			var buf bytes.Buffer
			if err := impls.Run(name, impls.Options{Threads: 4, Ops: 60, Seed: seed, Yield: 0.5}, &buf); err != nil {
				t.Fatal(err)
			}
			res, err := CheckLogFunc(&buf, logfmt.Options{Name: name}, Options{Algorithm: Saturate, RemoveObsolete: true}, nil)
			if err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
			}
			if res.Verdict != OK {
				t.Fatalf("%s (%v) seed %d: %s at step %v — a correct implementation was reported", name, obj, seed, res.Verdict, testhist.Step(res.ViolationStep))
			}
		}
	}
	t.Logf("%d runs of each correct implementation, none reported", runs)
}
