package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/theory"
)

// pigeonLog is a lock-like semaphore (capacity 1) with m acquires and
// m−2 untagged releases, all concurrent and all returned: not
// linearizable, since m acquires need m−1 releases between them. Proving
// it is a pigeonhole argument, which takes a CDCL solver exponential time
// (m = 10: over 30 s), and ENUMERATE visits (2m−2)! orders.
func pigeonLog(m int) string {
	var b strings.Builder
	b.WriteString("# @object atomic-semaphore 1\n")
	for i := 1; i <= m; i++ {
		fmt.Fprintf(&b, "[%d] call acquire(%d)\n", i, i)
	}
	for i := m + 1; i <= 2*m-2; i++ {
		fmt.Fprintf(&b, "[%d] call release\n", i)
	}
	for i := 1; i <= 2*m-2; i++ {
		fmt.Fprintf(&b, "[%d] return\n", i)
	}
	return b.String()
}

// generous bounds how long a stopped check may take after its time limit:
// far above the milliseconds it takes, so that a loaded machine cannot
// fail the test, and far below the minutes the checks would run.
const generous = 20 * time.Second

// TestTimeoutStopsEveryAlgorithm gives each algorithm a log that takes it
// minutes and a limit of 200 ms: each must stop with verdict Timeout.
func TestTimeoutStopsEveryAlgorithm(t *testing.T) {
	hist, err := logfmt.ReadHistory(strings.NewReader(pigeonLog(12)), logfmt.Options{Name: "pigeon"})
	if err != nil {
		t.Fatal(err)
	}
	// gophersat cannot be interrupted: its search is abandoned and runs on
	// in the background. A smaller pigeonhole (m = 9: 13 s unlimited)
	// keeps that from burning a core for the rest of the test run.
	small, err := logfmt.ReadHistory(strings.NewReader(pigeonLog(9)), logfmt.Options{Name: "pigeon"})
	if err != nil {
		t.Fatal(err)
	}
	variants := []Options{
		{Algorithm: Enumerate}, {Algorithm: Enumerate, Completion: true},
		{Algorithm: Symbolic}, {Algorithm: Symbolic, Completion: true}, {Algorithm: Symbolic, Incremental: true},
		{Algorithm: Symbolic, Completion: true, Incremental: true},
		{Algorithm: Symbolic, Solver: "gophersat"}, {Algorithm: Symbolic, Incremental: true, Solver: "gophersat"},
	}
	for _, opt := range variants {
		opt.Timeout = 200 * time.Millisecond
		hist := hist
		if opt.Solver == "gophersat" {
			hist = small
		}
		start := time.Now()
		r := check(hist, opt)
		el := time.Since(start)
		if r.Verdict != Timeout {
			t.Errorf("%s (%s): verdict %s after %v, want timeout", opt.Name(), opt.Solver, r.Verdict, el)
		}
		if el > generous {
			t.Errorf("%s (%s): stopped after %v", opt.Name(), opt.Solver, el)
		}
		t.Logf("%-22s %-9s timeout after %d steps, %v", opt.Name(), opt.Solver, r.Steps, el.Round(time.Millisecond))
	}
}

// errEnough stops the generator once the monitor is done.
var errEnough = errors.New("enough")

// SATURATE is polynomial per step, so its long log is a long one: ten
// million generated queue operations, streamed.
func TestTimeoutStopsSaturate(t *testing.T) {
	for _, r := range []bool{false, true} {
		opt := Options{Algorithm: Saturate, RemoveObsolete: r, Timeout: 200 * time.Millisecond}
		m, err := New(h.Queue, "", opt)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		cfg := gen.Config{Object: h.Queue, Ops: 10_000_000, Concurrency: 8, Capacity: 16, Seed: 1}
		err = gen.Generate(cfg, func(a h.Action) error {
			if _, err := m.Step(a); err != nil {
				return err
			}
			if m.Done() {
				return errEnough
			}
			return nil
		})
		el := time.Since(start)
		res := m.Result()
		if !errors.Is(err, errEnough) || res.Verdict != Timeout {
			t.Errorf("%s: %v, verdict %s after %d steps", opt.Name(), err, res.Verdict, res.Steps)
		}
		if el > generous {
			t.Errorf("%s: stopped after %v", opt.Name(), el)
		}
		t.Logf("%s: timeout after %d of 20,000,000 steps, %v", opt.Name(), res.Steps, el.Round(time.Millisecond))
	}
}

// A cancelled context stops a check in the middle of a step, like the
// time limit.
func TestContextStopsCheck(t *testing.T) {
	hist, err := logfmt.ReadHistory(strings.NewReader(pigeonLog(12)), logfmt.Options{Name: "pigeon"})
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{{Algorithm: Symbolic, Incremental: true}, {Algorithm: Enumerate, Completion: true}} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		m, err := NewContext(ctx, hist.Object, hist.Param, opt)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for _, a := range Actions(hist) {
			if _, err := m.Step(a); err != nil {
				t.Fatal(err)
			}
			if m.Done() {
				break
			}
		}
		cancel()
		el := time.Since(start)
		if r := m.Result(); r.Verdict != Timeout || el > generous {
			t.Errorf("%s: verdict %s after %v, want timeout", opt.Name(), r.Verdict, el)
		}
	}
}

// Preparing a semaphore kernel of large capacity (LIMIT(n) has n²/2
// conjuncts) is interrupted too: the monitor starts out timed out.
func TestTimeoutStopsKernelPreparation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, err := NewContext(ctx, h.Semaphore, fmt.Sprint(theory.MaxCapacity), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Result(); r.Verdict != Timeout || !m.Done() {
		t.Fatalf("cancelled context: verdict %s, done %v, want timeout", r.Verdict, m.Done())
	}
	// Stepping a stopped monitor does nothing.
	if v, err := m.Step(h.Action{Kind: h.Call, ID: "1", Label: h.Label{Method: h.Acquire}}); v || err != nil {
		t.Fatalf("step after timeout: %v, %v", v, err)
	}
	m, err = New(h.Semaphore, fmt.Sprint(theory.MaxCapacity), Options{Timeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Step(h.Action{Kind: h.Call, ID: "1", Label: h.Label{Method: h.Acquire}}); err != nil {
		t.Fatal(err)
	}
	if r := m.Result(); r.Verdict != Timeout {
		t.Fatalf("1 ms for LIMIT(%d): verdict %s, want timeout", theory.MaxCapacity, r.Verdict)
	}
	if _, err := New(h.Semaphore, fmt.Sprint(theory.MaxCapacity+1), Options{}); err == nil {
		t.Fatalf("capacity %d accepted", theory.MaxCapacity+1)
	}
}

// slowReader hands out a log one line at a time, pausing before each:
// a live pipe whose writer is slower than the time limit.
type slowReader struct {
	lines []string
	pause time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	if len(s.lines) == 0 {
		return 0, io.EOF
	}
	time.Sleep(s.pause)
	n := copy(p, s.lines[0])
	s.lines[0] = s.lines[0][n:]
	if s.lines[0] == "" {
		s.lines = s.lines[1:]
	}
	return n, nil
}

// Time spent waiting for input does not count against the limit: a log
// whose lines arrive 150 ms apart is checked in full under a 100 ms
// limit, although reading it takes far longer.
func TestTimeoutCountsWorkNotWaiting(t *testing.T) {
	log := "# @object atomic-queue\n[1] call enqueue(1)\n[1] return\n[2] call dequeue\n[2] return 1\n"
	rd := &slowReader{pause: 150 * time.Millisecond}
	for _, l := range strings.SplitAfter(log, "\n") {
		if l != "" {
			rd.lines = append(rd.lines, l)
		}
	}
	start := time.Now()
	r, err := CheckLog(rd, "live", h.NoObject, "", Options{Algorithm: Saturate, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != OK || r.Steps != 4 {
		t.Fatalf("verdict %s after %d steps (%v), want ok after 4", r.Verdict, r.Steps, time.Since(start))
	}
}
