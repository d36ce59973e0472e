package monitor

import (
	"path/filepath"
	"strings"
	"testing"

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
