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

// A key-value history: each key is its own string register. Client 1
// puts "x" on key a; a later get of a by client 2 still sees "". The
// explanation gives the core, and Visualize draws it.
func ExampleCheck_keyed() {
	ops := []monitor.Operation{
		{ClientID: 1, Key: "a", Label: monitor.KVPut("x"), Call: 0, Return: 10},
		{ClientID: 2, Key: "b", Label: monitor.KVAppend("y"), Call: 5, Return: 15},
		{ClientID: 2, Key: "a", Label: monitor.KVGet(""), Call: 20, Return: 30},
		{ClientID: 1, Key: "b", Label: monitor.KVGet("y"), Call: 20, Return: 30},
	}
	res, _ := monitor.Check(context.Background(), monitor.StringRegister, ops, monitor.WithExplanation())
	fmt.Println(res.Verdict, "on key", res.Key, "proven by operation", res.ViolationOp)
	for _, i := range res.Core {
		fmt.Printf("core: operation %d, %v\n", i, ops[i].Label)
	}
	var page strings.Builder
	fmt.Println(monitor.Visualize(&page, res), strings.Contains(page.String(), "<svg"))
	// Output:
	// violation on key a proven by operation 2
	// core: operation 0, write(x)
	// core: operation 2, read
	// <nil> true
}

// An ok from the default (Saturate) means no violation was found; an
// exact algorithm such as Symbolic proves linearizability, and
// WithExplanation gives its witness. Touching intervals overlap: the
// dequeue below may take effect before the enqueue.
func ExampleWithAlgorithm() {
	ops := []monitor.Operation{
		{Label: monitor.Label{Method: monitor.Add, Arg: "1"}, Call: 0, Return: 10},
		{Label: monitor.Label{Method: monitor.Rem, Ret: monitor.Empty}, Call: 10, Return: 20},
	}
	for _, a := range []monitor.Algorithm{monitor.Saturate, monitor.Symbolic} {
		res, err := monitor.Check(context.Background(), monitor.Queue, ops, monitor.WithAlgorithm(a), monitor.WithExplanation())
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s, exact %v, witness %v\n", res.Algorithm, res.Verdict, res.Exact, res.Witness)
	}
	// Output:
	// saturate -r: ok, exact false, witness []
	// symbolic: ok, exact true, witness [1 0]
}

// A Monitor checks a history as it happens: Call and Return must come in
// an order consistent with real time.
func ExampleMonitor() {
	m, err := monitor.NewMonitor(context.Background(), monitor.Stack)
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
	fmt.Println(violation, m.Result().Verdict, "proven by operation", m.Result().ViolationOp)
	// Output: true violation proven by operation 2
}

// Labels are checked against the object's signature.
func ExampleMonitor_Return() {
	m, _ := monitor.NewMonitor(context.Background(), monitor.Set)
	_ = m.Call("a", monitor.Label{Method: monitor.Add, Arg: "x"})
	_, err := m.Return("a", "yes")
	fmt.Println(err)
	// Output: add of atomic-set returns true or false, got "yes"
}

// ReadLog reads a log (docs/format.md) as operations to check: here
// satmon's own format, a semaphore of capacity 1 held twice at once.
func ExampleReadLog() {
	log := `# @object atomic-semaphore 1
[1] call acquire
[2] call acquire
[1] return
[2] return
`
	obj, param, ops, err := monitor.ReadLog(strings.NewReader(log))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := monitor.Check(context.Background(), obj, ops, monitor.WithParam(param))
	fmt.Println(obj, param, res.Verdict, "at step", res.ViolationStep, "proven by operation", res.ViolationOp, err)
	// Output: atomic-semaphore 1 violation at step 4 proven by operation 1 <nil>
}

// NewRecorder records a program's operations and checks them while it
// runs; the program never waits for the check.
func ExampleNewRecorder() {
	r := monitor.NewRecorder(context.Background(), monitor.Register, func(res monitor.Result) {
		fmt.Println("violation found while the program runs")
	}, monitor.WithParam("0"))
	done := r.Call(monitor.Label{Method: monitor.Write, Arg: "1"})
	done(monitor.Void)
	done = r.Call(monitor.Label{Method: monitor.Read})
	done("0") // stale: 1 was written before the read began
	res, err := r.Close()
	fmt.Println(res.Verdict, "proven by operation", res.ViolationOp, err)
	// Output:
	// violation found while the program runs
	// violation proven by operation 1 <nil>
}
