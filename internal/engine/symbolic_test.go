package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"

	"github.com/satmon/satmon/internal/testutil"
)

// variants are every exact algorithm variant: each must agree with
// ENUMERATE -c on every history it decides.
func exactVariants() []Options {
	var out []Options
	for _, s := range []string{"gini", "gophersat"} {
		for _, c := range []bool{false, true} {
			for _, i := range []bool{false, true} {
				out = append(out, Options{Algorithm: Symbolic, Completion: c, Incremental: i, Solver: s})
			}
		}
		out = append(out, Options{Algorithm: Enumerate, Solver: s})
	}
	return out
}

func TestExactVariantsTestdata(t *testing.T) {
	for _, c := range testutil.Cases(t) {
		for _, opt := range exactVariants() {
			res := checkFile(t, c.Path, opt)
			if string(res.Verdict) != c.Expect {
				t.Errorf("%s: %s (%s) says %s, file expects %s", c.Path, opt.Name(), opt.Solver, res.Verdict, c.Expect)
			}
		}
	}
}

func TestSymbolicPaperHistories(t *testing.T) {
	t.Parallel()
	dir := testutil.PaperHistories(t)
	for _, v := range testutil.PaperVerdicts(t, dir) {
		if !strings.HasPrefix(v.Path, "simple/") && !strings.HasPrefix(v.Path, "scal-small/") {
			continue
		}
		for _, opt := range []Options{{Algorithm: Symbolic}, {Algorithm: Symbolic, Incremental: true}} {
			res := checkFile(t, filepath.Join(dir, v.Path), opt)
			if string(res.Verdict) != v.Verdict {
				t.Errorf("%s: %s says %s, verdicts.tsv says %s", v.Path, opt.Name(), res.Verdict, v.Verdict)
			}
		}
	}
}

// SATURATE is sound (never a violation where ENUMERATE -c finds none) and,
// on the bundled histories, complete.
func TestSaturateTestdata(t *testing.T) {
	for _, c := range testutil.Cases(t) {
		res := checkFile(t, c.Path, Options{Algorithm: Saturate})
		if res.Verdict == Violation && c.Expect == "ok" {
			t.Errorf("%s: FALSE VIOLATION by saturate", c.Path)
		}
		if res.Verdict == OK && c.Expect == "violation" {
			t.Logf("%s: saturate misses this violation", c.Path)
		}
	}
}

// The files marked "# saturate: miss" are violations that SATURATE does
// not see (testdata/misses explains each). If SATURATE starts finding one,
// this test fails so that the file's comment gets updated.
func TestSaturateMisses(t *testing.T) {
	n := 0
	for _, c := range testutil.Cases(t) {
		b, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "# saturate: miss") {
			continue
		}
		n++
		if c.Expect != "violation" {
			t.Errorf("%s: a miss must be a violation", c.Path)
		}
		if res := checkFile(t, c.Path, Options{Algorithm: Saturate}); res.Verdict != OK {
			t.Errorf("%s: saturate now says %s: update the file", c.Path, res.Verdict)
		}
	}
	if n < 3 {
		t.Errorf("only %d saturate misses kept", n)
	}
}

// SATURATE finds every violation of the paper's histories and reports
// none on the linearizable ones.
func TestSaturatePaperHistories(t *testing.T) {
	t.Parallel()
	dir := testutil.PaperHistories(t)
	found := 0
	for _, v := range testutil.PaperVerdicts(t, dir) {
		for _, opt := range []Options{{Algorithm: Saturate}, {Algorithm: Saturate, RemoveObsolete: true}} {
			res := checkFile(t, filepath.Join(dir, v.Path), opt)
			if string(res.Verdict) != v.Verdict {
				t.Errorf("%s: %s says %s, verdicts.tsv says %s", v.Path, opt.Name(), res.Verdict, v.Verdict)
			}
			if res.Verdict == Violation {
				found++
			}
		}
	}
	t.Logf("%d detections (with and without -r)", found)
}

// On expiry of --timeout the verdict is timeout, with the steps done.
func TestTimeout(t *testing.T) {
	hist, err := gen.History(gen.Config{Object: h.Stack, Ops: 400, Concurrency: 12, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	res := check(hist, Options{Algorithm: Enumerate, Completion: true, Timeout: 50 * time.Millisecond})
	if res.Verdict != Timeout {
		t.Fatalf("verdict %s after %d steps, want timeout", res.Verdict, res.Steps)
	}
	if res.Steps <= 0 || res.Steps >= 800 {
		t.Errorf("steps %d: want the steps processed before the limit", res.Steps)
	}
}
