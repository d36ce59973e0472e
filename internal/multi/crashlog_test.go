package multi

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/engine"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testhist"

	"github.com/satmon/satmon/internal/logfmt"
)

// checkCrashLog checks a native log with CheckLog and with CheckMulti,
// and fails when the two differ in verdict, step or exactness.
func checkCrashLog(t *testing.T, log string, opt engine.Options) engine.Result {
	t.Helper()
	opt.Warn = io.Discard
	one, err := engine.CheckLog(strings.NewReader(log), "t.log", h.NoObject, "", opt)
	if err != nil {
		t.Fatal(err)
	}
	multi, err := CheckMulti(context.Background(), strings.NewReader(log), logfmt.Auto, logfmt.Options{Name: "t.log"}, MultiOptions{Options: opt, Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if one.Verdict != multi.Verdict || one.Exact != multi.Exact || fmt.Sprint(testhist.Step(one.ViolationStep)) != fmt.Sprint(testhist.Step(multi.ViolationStep)) {
		t.Fatalf("CheckLog: %v at %v exact %v; CheckMulti: %v at %v exact %v", one.Verdict, testhist.Step(one.ViolationStep), one.Exact,
			multi.Verdict, testhist.Step(multi.ViolationStep), multi.Exact)
	}
	return one
}

// A crashed write may take effect at any later time, once: it explains
// a later read of its value, and once read the value stays until
// overwritten. The same log with the operation left pending instead of
// crashed means the same.
func TestCrashLineVerdicts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		viol       int // the violation step, 0 for ok
	}{
		{"read later", "[1] call write(1)\n[1] crash\n[2] call read\n[2] return 0\n[3] call read\n[3] return 1\n", 0},
		{"then stale", "[1] call write(1)\n[1] crash\n[2] call read\n[2] return 1\n[3] call read\n[3] return 0\n", 5},
		{"only once", "[1] call write(1)\n[1] crash\n[2] call read\n[2] return 1\n[4] call write(0)\n[4] return\n[3] call read\n[3] return 1\n", 7},
		{"before its call", "[2] call read\n[2] return 1\n[1] call write(1)\n[1] crash\n", 2},
	}
	for _, tc := range cases {
		for _, alg := range []engine.Options{{}, {Algorithm: engine.Symbolic}, {Algorithm: engine.Enumerate, Completion: true}} {
			crashed := "# @object atomic-register 0\n" + tc.body
			pending := strings.ReplaceAll(crashed, "[1] crash\n", "")
			for _, log := range []string{crashed, pending} {
				got := checkCrashLog(t, log, alg)
				if tc.viol == 0 && got.Verdict != engine.OK || tc.viol != 0 && (got.Verdict != engine.Violation || *got.ViolationStep != tc.viol) {
					t.Errorf("%s (%s, %d bytes): %v at %v, want step %d", tc.name, alg.Name(), len(log), got.Verdict, testhist.Step(got.ViolationStep), tc.viol)
				}
				if alg.Algorithm == 0 && !got.Exact {
					t.Errorf("%s: the default is not exact", tc.name)
				}
			}
		}
	}
}

// Crashed operations are no open operations of the exact register
// check: 70 crashed writes leave it exact, where 70 left open make it
// give up (more than maxFrontSlots open at once), and a later violation
// is still found.
func TestCrashLinesKeepFrontierExact(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# @object atomic-cas-register 0\n")
	for i := range 70 {
		fmt.Fprintf(&b, "[w%d] call write(%d)\n[w%d] crash\n", i, i%3, i)
	}
	b.WriteString("[r] call read\n[r] return 2\n[s] call read\n[s] return 7\n")
	crashed := b.String()
	got := checkCrashLog(t, crashed, engine.Options{})
	if !got.Exact || got.Verdict != engine.Violation || *got.ViolationStep != 74 {
		t.Fatalf("crashed: %v at %v, exact %v; want an exact violation at step 74", got.Verdict, testhist.Step(got.ViolationStep), got.Exact)
	}
	open := checkCrashLog(t, removeCrashes(crashed), engine.Options{})
	if open.Exact {
		t.Fatalf("left open: exact %v (%v); want the check to give up", open.Exact, open.Verdict)
	}
}

// removeCrashes drops the crash lines of log.
func removeCrashes(log string) string {
	var out []string
	for _, l := range strings.SplitAfter(log, "\n") {
		if !strings.HasSuffix(l, "] crash\n") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
