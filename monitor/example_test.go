package monitor_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/satmon/satmon/monitor"
)

// Check takes timestamped operations, as a test harness records them.
// Here two clients enqueue 1 and 2 one after the other, and a dequeue
// that starts later returns 2: not FIFO.
func ExampleCheck() {
	ops := []monitor.Operation{
		{ClientID: 0, Label: monitor.Label{Method: monitor.Add, Arg: "1"}, Call: 0, Return: 10},
		{ClientID: 1, Label: monitor.Label{Method: monitor.Add, Arg: "2"}, Call: 20, Return: 30},
		{ClientID: 0, Label: monitor.Label{Method: monitor.Rem, Ret: "2"}, Call: 40, Return: 50},
	}
	res, err := monitor.Check(context.Background(), monitor.Queue, ops)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Verdict, "proven by operation", res.ViolationOp)
	// Output: violation proven by operation 2
}

// An ok from the default (SATURATE) means no violation was found; an
// exact variant such as SYMBOLIC proves linearizability. Touching
// intervals overlap: the dequeue below may take effect before the enqueue.
func ExampleCheckOperations() {
	ops := []monitor.Operation{
		{Label: monitor.Label{Method: monitor.Add, Arg: "1"}, Call: 0, Return: 10},
		{Label: monitor.Label{Method: monitor.Rem, Ret: monitor.Empty}, Call: 10, Return: 20},
	}
	for _, opt := range []monitor.Options{monitor.DefaultOptions(), {Algorithm: monitor.Symbolic}} {
		res, err := monitor.CheckOperations(context.Background(), monitor.Queue, "", ops, opt)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s, exact %v\n", res.Algorithm, res.Verdict, res.Exact)
	}
	// Output:
	// saturate -r: ok, exact false
	// symbolic: ok, exact true
}

// A Monitor checks a history as it happens: Call and Return number the
// actions in the order they are fed, which must be consistent with real
// time.
func ExampleMonitor() {
	m, err := monitor.New(monitor.Stack, "", monitor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(m.Call("a", monitor.Label{Method: monitor.Add, Arg: "1"}))
	_, err = m.Return("a", monitor.Void)
	must(err)
	must(m.Call("b", monitor.Label{Method: monitor.Add, Arg: "2"}))
	_, err = m.Return("b", monitor.Void)
	must(err)
	must(m.Call("c", monitor.Label{Method: monitor.Rem}))
	violation, err := m.Return("c", "1") // 2 was pushed last
	must(err)
	fmt.Println(violation, m.Result().Verdict)
	// Output: true violation
}

// Labels are checked against the object's signature.
func ExampleMonitor_Return() {
	m, _ := monitor.New(monitor.Set, "", monitor.Options{})
	_ = m.Call("a", monitor.Label{Method: monitor.Add, Arg: "x"})
	_, err := m.Return("a", "yes")
	fmt.Println(err)
	// Output: add of atomic-set returns true or false, got "yes"
}

// CheckLog reads satmon's log format (docs/format.md).
func ExampleCheckLog() {
	log := `# @object atomic-semaphore 1
[1] call acquire
[2] call acquire
[1] return
[2] return
`
	res, err := monitor.CheckLog(strings.NewReader(log), "sem.log", monitor.NoObject, "", monitor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.File, res.Verdict, "at line", res.ViolationLine)
	// Output: sem.log violation at line 5
}

// NewRecorder records a program's operations and checks them while it
// runs; the program never waits for the check.
func ExampleNewRecorder() {
	r := monitor.NewRecorder(monitor.Register, "0", monitor.Options{}, func(res monitor.Result) {
		fmt.Println("violation found while the program runs")
	})
	op := r.Call(monitor.Label{Method: monitor.Write, Arg: "1"})
	op.Return(monitor.Void)
	op = r.Call(monitor.Label{Method: monitor.Read})
	op.Return("0") // stale: 1 was written before the read began
	res, err := r.Close()
	fmt.Println(res.Verdict, err)
	// Output:
	// violation found while the program runs
	// violation <nil>
}
