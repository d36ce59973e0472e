package engine

import (
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/record"
)

// faultyQueue runs a "program under test": threads enqueue and dequeue
// on a queue guarded by a mutex, recording each operation with r; early
// on, one dequeue reports a value that was never enqueued (the fault).
// It returns the number of operations done.
func faultyQueue(r interface {
	Call(history.Label) record.Op
}, threads, perThread int, fault bool) int64 {
	var mu sync.Mutex
	var q []string
	var n atomic.Int64
	var wg sync.WaitGroup
	for th := 0; th < threads; th++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perThread; i++ {
				v := strconv.Itoa(th*perThread + i)
				op := r.Call(history.Label{Method: history.Add, Arg: history.Value(v)})
				mu.Lock()
				q = append(q, v)
				mu.Unlock()
				op.Return(history.Void)
				op = r.Call(history.Label{Method: history.Rem})
				mu.Lock()
				got := history.Empty
				if len(q) > 0 {
					got, q = history.Value(q[0]), q[1:]
				}
				mu.Unlock()
				if fault && th == 0 && i == 3 {
					got = "ghost"
				}
				op.Return(got)
				n.Add(2)
			}
		}()
	}
	wg.Wait()
	return n.Load()
}

// runGuarded runs f and fails the test if it does not end: a hang guard,
// not a timing assertion.
func runGuarded(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s blocked: the program under test never finished", what)
	}
}

// A recorder writing into an io.Pipe read by CheckLogFunc: once the
// monitor has found a violation it keeps reading, so the program under
// test runs to completion instead of blocking on the pipe.
func TestPipeToMonitorAfterViolation(t *testing.T) {
	pr, pw := io.Pipe()
	type out struct {
		res Result
		err error
	}
	got := make(chan out, 1)
	go func() {
		res, err := CheckLog(pr, "pipe", history.NoObject, "", Options{})
		got <- out{res, err}
	}()
	// The recorder's ring holds record.DefaultBuffer actions: the program
	// needs the log written out to go on.
	r := record.New(pw, history.Queue, "")
	var ops int64
	runGuarded(t, "recorder → io.Pipe → CheckLog", func() {
		ops = faultyQueue(r, 4, 5000, true)
		if err := r.Close(); err != nil {
			t.Error(err)
		}
		pw.Close()
	})
	o := <-got
	if o.err != nil || o.res.Verdict != Violation {
		t.Fatalf("verdict %s, error %v; want a violation", o.res.Verdict, o.err)
	}
	if ops != 40000 {
		t.Errorf("the program did %d operations, want 40000", ops)
	}
}

// NewRecorder never blocks the program: it runs to completion whatever the
// monitor found, and the monitor reads every action.
func TestRecorderKeepsProgramRunning(t *testing.T) {
	var seen atomic.Int64
	c := NewRecorder(history.Queue, "", Options{}, func(r Result) { seen.Add(1) })
	var ops int64
	runGuarded(t, "NewRecorder", func() { ops = faultyQueue(c, 4, 5000, true) })
	res, err := c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Violation || seen.Load() != 1 || ops != 40000 {
		t.Errorf("verdict %s, %d violation calls, %d operations; want a violation, 1 call, 40000", res.Verdict, seen.Load(), ops)
	}

	// Without the fault the log is linearizable, and the monitor has seen
	// every action: none is lost in the buffer.
	c = NewRecorder(history.Queue, "", Options{}, nil)
	runGuarded(t, "NewRecorder", func() { ops = faultyQueue(c, 4, 2000, false) })
	if res, err = c.Close(); err != nil {
		t.Fatal(err)
	}
	if res.Verdict != OK || int64(res.Steps) != 2*ops {
		t.Errorf("verdict %s after %d steps; want ok after %d (every call and return)", res.Verdict, res.Steps, 2*ops)
	}
}
