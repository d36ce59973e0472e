package monitor

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/testutil"
	"github.com/satmon/satmon/monitor/logfmt"
	"github.com/satmon/satmon/theory"
)

// explainFile runs CheckLogExplain on a file.
func explainFile(t *testing.T, path string, opt Options) (Result, *Explanation) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, x, err := CheckLogExplain(f, logfmt.Options{Name: path}, opt, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res, x
}

// enumBudget bounds each ENUMERATE -c check (in polls of 64 candidates):
// relaxed operations are pending, and each multiplies the completions.
// Past it the check is SYMBOLIC's alone, and the test says how often.
const enumBudget = 2000

var coreStats struct{ enumChecked, enumSkipped int }

// verifyCore checks a core with ENUMERATE -c, independently of the SAT
// checks FindCore shrank with: the core's sub-history is not
// linearizable, and relaxing any one more operation makes it linearizable.
func verifyCore(t *testing.T, name string, x *Explanation) {
	t.Helper()
	if len(x.Core) == 0 {
		t.Errorf("%s: no core (%s)", name, x.Note)
		return
	}
	if !x.CoreExact {
		t.Errorf("%s: core of %d operations not shown exactly 1-minimal", name, len(x.Core))
	}
	k, err := theory.KernelOf(x.History.Object, x.History.Param)
	if err != nil {
		t.Fatal(err)
	}
	member := func(set []int) bool {
		keep := make([]bool, len(x.History.Ops))
		for _, i := range set {
			keep[i] = true
		}
		sub, _ := subHistory(x.History, keep)
		budget := enumBudget
		ok, err := enumerateMember(k, sub, func() bool { budget--; return budget < 0 })
		if err == errStopped {
			// Too many pending operations for ENUMERATE -c: the
			// from-scratch SAT check FindCore used is all there is.
			coreStats.enumSkipped++
			bad, err := violatesExact(k, sub, 0)
			if err != nil {
				t.Fatal(err)
			}
			return !bad
		}
		if err != nil {
			t.Fatal(err)
		}
		coreStats.enumChecked++
		return ok
	}
	if member(x.Core) {
		t.Errorf("%s: core %v is linearizable for enumerate -c", name, x.Core)
	}
	for j := range x.Core {
		less := slices.Delete(slices.Clone(x.Core), j, j+1)
		if !member(less) {
			t.Errorf("%s: core %v less [%s] is still not linearizable: not 1-minimal", name, x.Core, x.History.Ops[x.Core[j]].ID)
		}
	}
}

func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// Every violation of testdata/ and of the paper's histories gets a core,
// verified with ENUMERATE -c.
func TestCores(t *testing.T) {
	var sizes []int
	for _, c := range testutil.Cases(t) {
		if c.Expect != "violation" {
			continue
		}
		res, x := explainFile(t, c.Path, Options{Algorithm: Saturate})
		if res.Verdict != Violation {
			res, x = explainFile(t, c.Path, Options{Algorithm: Symbolic})
		}
		if res.Verdict != Violation {
			t.Errorf("%s: no violation found", c.Path)
			continue
		}
		if len(res.Core) != len(x.Core) {
			t.Errorf("%s: Result.Core has %d operations, the explanation %d", c.Path, len(res.Core), len(x.Core))
		}
		t.Logf("%s: core %d of %d", c.Path, len(x.Core), len(x.History.Ops))
		verifyCore(t, c.Path, x)
		sizes = append(sizes, len(x.Core))
	}
	t.Logf("checks by enumerate -c: %d; past its budget, by SYMBOLIC only: %d", coreStats.enumChecked, coreStats.enumSkipped)
	t.Logf("testdata: %d violations, core size median %d, max %d", len(sizes), median(sizes), slices.Max(sizes))

	t.Run("paper-histories", func(t *testing.T) {
		dir := testutil.PaperHistories(t)
		var sizes []int
		for _, v := range testutil.PaperVerdicts(t, dir) {
			if v.Verdict != "violation" {
				continue
			}
			path := filepath.Join(dir, v.Path)
			res, x := explainFile(t, path, Options{Algorithm: Symbolic})
			if res.Verdict != Violation {
				t.Errorf("%s: no violation found", path)
				continue
			}
			verifyCore(t, path, x)
			sizes = append(sizes, len(x.Core))
		}
		t.Logf("checks by enumerate -c: %d; past its budget, by SYMBOLIC only: %d", coreStats.enumChecked, coreStats.enumSkipped)
		t.Logf("paper-histories: %d violations, core size median %d, max %d", len(sizes), median(sizes), slices.Max(sizes))
	})
}
