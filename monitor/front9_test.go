package monitor

import (
	"context"
	"fmt"
	"testing"

	h "github.com/satmon/satmon/internal/history"
)

// Step asks a context alone whether it is done only once every stepPolls
// steps (pollStep): a context cancelled between two steps still stops the
// monitor, with verdict Timeout, within stepPolls steps, with every
// algorithm; an already cancelled one stops the first step.
func TestContextCancelledBetweenSteps(t *testing.T) {
	acts := func(n int) []h.Action {
		var out []h.Action
		for i := range n {
			id := fmt.Sprint(i)
			out = append(out,
				h.Action{Kind: h.Call, ID: id, Label: h.Label{Method: h.Add, Arg: h.Value(id)}},
				h.Action{Kind: h.Return, ID: id, Label: h.Label{Ret: h.Void}})
		}
		return out
	}(3 * stepPolls)
	for _, opt := range []Options{{Algorithm: Saturate, RemoveObsolete: true}, {Algorithm: Saturate}, {Algorithm: Symbolic}, {Algorithm: Enumerate}} {
		for _, at := range []int{0, 1, stepPolls - 1, stepPolls, stepPolls + 1, 2*stepPolls + 5} {
			ctx, cancel := context.WithCancel(context.Background())
			m, err := NewContext(ctx, h.Queue, "", opt)
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range acts {
				if i == at {
					cancel()
				}
				if v, err := m.Step(a); v || err != nil {
					t.Fatalf("%s: step %d: %v, %v", opt.Name(), i, v, err)
				}
				if m.Done() {
					break
				}
			}
			cancel()
			r := m.Result()
			if r.Verdict != Timeout || r.Steps < at || r.Steps >= at+stepPolls {
				t.Errorf("%s, cancelled before step %d: verdict %s after %d steps, want timeout after fewer than %d more", opt.Name(), at, r.Verdict, r.Steps, stepPolls)
			}
			if at == 0 && r.Steps != 0 {
				t.Errorf("%s: cancelled before the first step, yet %d steps taken", opt.Name(), r.Steps)
			}
		}
	}
}
