package monitor_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/satmon/satmon/internal/testutil"
	"github.com/satmon/satmon/monitor"
)

// A recorded program: a correct locked queue used by several goroutines
// is ok; the recorder numbers operations in the order of their calls,
// and explains a violation in those numbers; a context done stops the
// check with Timeout, not a verdict.
func TestRecorder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := monitor.NewRecorder(ctx, monitor.Queue, func(res monitor.Result) {
		t.Errorf("a violation on a correct queue: %+v", res)
	})
	var (
		mu sync.Mutex
		q  []string
		wg sync.WaitGroup
	)
	n := testutil.Scale(50)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				v := strconv.Itoa(g*1000 + i)
				done := r.Call(monitor.Label{Method: monitor.Add, Arg: monitor.Value(v)})
				mu.Lock()
				q = append(q, v)
				mu.Unlock()
				done(monitor.Void)
				done = r.Call(monitor.Label{Method: monitor.Rem})
				mu.Lock()
				x := q[0]
				q = q[1:]
				mu.Unlock()
				done(monitor.Value(x))
			}
		}()
	}
	wg.Wait()
	res, err := r.Close()
	if err != nil || res.Verdict != monitor.OK || res.Operations != 8*n || res.ViolationOp != -1 {
		t.Errorf("a correct queue: %v, %d operations of %d, violation op %d, %v", res.Verdict, res.Operations, 8*n, res.ViolationOp, err)
	}

	var seen []string
	r = monitor.NewRecorder(ctx, monitor.Register, func(res monitor.Result) {
		seen = append(seen, fmt.Sprintf("%v %d", res.Verdict, res.ViolationOp))
	}, monitor.WithParam("0"), monitor.WithExplanation())
	r.Call(monitor.Label{Method: monitor.Read})("0")
	r.Call(monitor.Label{Method: monitor.Write, Arg: "1"})(monitor.Void)
	r.Call(monitor.Label{Method: monitor.Read})("0") // stale
	r.Call(monitor.Label{Method: monitor.Read})("1")
	res, err = r.Close()
	if got := fmt.Sprintf("%v op %d step %d core %v", res.Verdict, res.ViolationOp, res.ViolationStep, res.Core); err != nil || got != "violation op 2 step 6 core [1 2]" {
		t.Errorf("a stale read: %s, %v; want violation op 2 step 6 core [1 2]", got, err)
	}
	if fmt.Sprint(seen) != "[violation 2]" {
		t.Errorf("onViolation saw %v, want [violation 2]", seen)
	}

	done, cancel := context.WithCancel(ctx)
	cancel()
	r = monitor.NewRecorder(done, monitor.Register, nil)
	r.Call(monitor.Label{Method: monitor.Write, Arg: "1"})(monitor.Void)
	r.Call(monitor.Label{Method: monitor.Read})("0")
	if res, _ := r.Close(); res.Verdict != monitor.Timeout {
		t.Errorf("a context done before the first action: %v, want timeout", res.Verdict)
	}
}
