// Package testutil finds the project's test data: the bundled testdata/
// and the optional ../shared/data beside the repository.
package testutil

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Root returns the repository root (the directory holding go.mod).
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testutil: no go.mod above the test directory")
		}
		dir = parent
	}
}

// PaperHistories returns ../shared/data/paper-histories, or skips the test
// with a message when it is absent (a user's clone has no ../shared).
func PaperHistories(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(Root(t), "..", "shared", "data", "paper-histories")
	if _, err := os.Stat(filepath.Join(dir, "verdicts.tsv")); err != nil {
		t.Skipf("paper histories not found at %s (they live in ../shared/data beside the repository; absent in a plain clone)", dir)
	}
	return dir
}

// Verdict is one row of verdicts.tsv.
type Verdict struct {
	Path       string // relative to the paper-histories directory
	Verdict    string // ok or violation
	Operations string
}

// PaperVerdicts reads verdicts.tsv.
func PaperVerdicts(t testing.TB, dir string) []Verdict {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "verdicts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Verdict
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 2 || cols[0] == "history" {
			continue
		}
		v := Verdict{Path: cols[0], Verdict: cols[1]}
		if len(cols) > 2 {
			v.Operations = cols[2]
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Case is a bundled testdata history with its expected verdict.
type Case struct {
	Path   string
	Expect string // "ok" or "violation", from a "# expect: ..." line
}

// Cases lists testdata/*/*.log files that carry a "# expect:" line.
func Cases(t testing.TB) []Case {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(Root(t), "testdata", "*", "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	var out []Case
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if rest, ok := strings.CutPrefix(line, "# expect:"); ok {
				out = append(out, Case{Path: p, Expect: strings.TrimSpace(rest)})
				break
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no testdata cases found")
	}
	return out
}

// Scale sizes a heavy test: n at the default scale of `make test`, or
// SATMON_DIFF_SCALE times n (`make test-long` sets it), never below 1 when
// n is positive, so every test still runs each of its kinds at the
// smallest scale. Seeds, file counts and operation counts all go through
// it, so that one knob sizes the whole suite (docs/testing.md).
func Scale(n int) int {
	s := 1.0
	if v, err := strconv.ParseFloat(os.Getenv("SATMON_DIFF_SCALE"), 64); err == nil && v > 0 {
		s = v
	} else if testing.Short() {
		s = 0.1
	}
	m := int(float64(n) * s)
	if m < 1 && n > 0 {
		m = 1
	}
	return m
}

// ScaleMin is Scale(n), but never below floor: for a test whose seeds
// cycle through floor variants (value pools, mutations, capacities chosen
// by seed modulo floor), so that the smallest scale still runs each
// variant once.
func ScaleMin(n, floor int) int { return max(min(n, floor), Scale(n)) }
