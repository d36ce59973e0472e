package engine

import (
	"strings"
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testhist"
)

// frontierTally runs the default variant of the frontier's differential
// tests and counts their verdicts, so that a test can check that its
// histories go both ways.
type frontierTally struct{ viol, ok int }

// agree checks the default on hist (named what in failures): the
// frontier decides it, exactly, with the verdict of Porcupine at the
// first prefix it rejects, and, with at most enumOps operations, the
// verdict and step of ENUMERATE -c.
func (tl *frontierTally) agree(t *testing.T, what string, hist *h.History, enumOps int) Result {
	t.Helper()
	got := check(hist, Options{})
	if got.Algorithm != FrontierAlgorithm || !got.Exact {
		t.Fatalf("%s: %s, exact %v\n%v", what, got.Algorithm, got.Exact, hist)
	}
	pstep := firstViolation(hist)
	if (pstep != 0) != (got.Verdict == Violation) || pstep != 0 && pstep != *got.ViolationStep {
		t.Fatalf("%s: default %v at %v, porcupine's first violating prefix %d\n%v", what,
			got.Verdict, testhist.Step(got.ViolationStep), pstep, hist)
	}
	if len(hist.Ops) <= enumOps {
		want := check(hist, Options{Algorithm: Enumerate, Completion: true})
		if got.Verdict != want.Verdict || got.Verdict == Violation && *got.ViolationStep != *want.ViolationStep {
			t.Fatalf("%s: default %v at %v, enumerate -c %v at %v\n%v", what,
				got.Verdict, testhist.Step(got.ViolationStep), want.Verdict, testhist.Step(want.ViolationStep), hist)
		}
	}
	if got.Verdict == Violation {
		tl.viol++
	} else {
		tl.ok++
	}
	return got
}

// bothWays fails the test unless its histories had violations and
// linearizable ones.
func (tl *frontierTally) bothWays(t *testing.T) {
	t.Helper()
	if tl.viol == 0 || tl.ok == 0 {
		t.Fatalf("%d violations, %d linearizable: the histories do not test both ways", tl.viol, tl.ok)
	}
}

// enumerateCase reads the hand-made log of case i and checks that the
// default decides it exactly, with ENUMERATE -c's verdict and step,
// which it returns.
func enumerateCase(t *testing.T, i int, log string) Result {
	t.Helper()
	hist, err := logfmt.ReadHistory(strings.NewReader(log), logfmt.Options{})
	if err != nil {
		t.Fatalf("case %d: %v", i, err)
	}
	want := check(hist, Options{Algorithm: Enumerate, Completion: true})
	got := check(hist, Options{})
	if want.Verdict != got.Verdict || want.Verdict == Violation && *want.ViolationStep != *got.ViolationStep || !got.Exact {
		t.Errorf("case %d: default %v at %v (exact %v); enumerate -c: %v at %v\n%v", i, got.Verdict,
			testhist.Step(got.ViolationStep), got.Exact, want.Verdict, testhist.Step(want.ViolationStep), hist)
	}
	return want
}
