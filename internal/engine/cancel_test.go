package engine

import (
	"context"
	"fmt"
	"testing"

	h "github.com/satmon/satmon/internal/history"
)

// A context cancelled between two steps stops the monitor, with verdict
// Timeout, at the next step, with every algorithm: Step asks expired
// before each step. (A live log may wait long between two actions, so
// asking only every so many steps could leave a cancelled monitor
// accepting actions for minutes.)
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
	}(200)
	for _, opt := range []Options{{Algorithm: Saturate, RemoveObsolete: true}, {Algorithm: Saturate}, {Algorithm: Symbolic}, {Algorithm: Enumerate}} {
		for _, at := range []int{0, 1, 63, 64, 65, 133} {
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
			if r.Verdict != Timeout || r.Steps != at {
				t.Errorf("%s, cancelled before step %d: verdict %s after %d steps, want timeout after %d", opt.Name(), at, r.Verdict, r.Steps, at)
			}
		}
	}
}
