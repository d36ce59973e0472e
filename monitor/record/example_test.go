package record_test

import (
	"fmt"
	"os"
	"sync"

	"github.com/satmon/satmon/monitor"
	"github.com/satmon/satmon/monitor/record"
)

// Each operation of a locked stack is recorded, its call before it and
// its return after it. Calls and returns may come from many goroutines
// at once; here one goroutine pushes and pops, so the log is known.
func Example() {
	var (
		mu    sync.Mutex
		stack []string
	)
	r := record.New(os.Stdout, monitor.Stack, "")

	op := r.Call(monitor.Label{Method: monitor.Add, Arg: "7"})
	mu.Lock()
	stack = append(stack, "7")
	mu.Unlock()
	op.Return(monitor.Void)

	op = r.Call(monitor.Label{Method: monitor.Rem})
	mu.Lock()
	v := stack[len(stack)-1]
	stack = stack[:len(stack)-1]
	mu.Unlock()
	op.Return(monitor.Value(v))

	if err := r.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// # @object atomic-stack
	// [1] call push(7)
	// [1] return
	// [2] call pop
	// [2] return 7
}
