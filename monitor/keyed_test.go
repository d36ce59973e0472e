package monitor_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/multi"

	"github.com/satmon/satmon/internal/testutil"
	"github.com/satmon/satmon/monitor"
	"github.com/satmon/satmon/monitor/logfmt"
)

// A key-value history from a slice of operations: each key is its own
// string register. Client 1 puts "x" on key a; a later get of key a by
// client 2 still sees the empty string.
func ExampleCheckKeyed() {
	ops := []monitor.KeyedOperation{
		{Key: "a", Operation: monitor.Operation{ClientID: 1, Label: monitor.KVPut("x"), Call: 0, Return: 10}},
		{Key: "b", Operation: monitor.Operation{ClientID: 2, Label: monitor.KVAppend("y"), Call: 5, Return: 15}},
		{Key: "a", Operation: monitor.Operation{ClientID: 2, Label: monitor.KVGet(""), Call: 20, Return: 30}},
		{Key: "b", Operation: monitor.Operation{ClientID: 1, Label: monitor.KVGet("y"), Call: 20, Return: 30}},
	}
	// Explain gives each violation its core: operations (by index in
	// ops) whose sub-history alone is not linearizable.
	res, err := monitor.CheckKeyed(context.Background(), monitor.StringRegister, "", ops, monitor.MultiOptions{Explain: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range res.Objects {
		fmt.Print("key ", o.Name, ": ", o.Verdict)
		for _, c := range o.Core {
			fmt.Printf(", operation %s %s", c.ID, c.Op)
		}
		fmt.Println()
	}
	fmt.Println(res.Verdict, "on key", res.ViolationObject, "proven by operation", res.ViolationOp)
	// Output:
	// key a: violation, operation 0 write(x), operation 2 read
	// key b: ok
	// violation on key a proven by operation 2
}

// CheckKeyed gives each key the verdict that CheckMulti gives the same
// history read from its log: on the key-value histories of
// ../shared/data (Porcupine's), violations and linearizable ones, with
// the exact SYMBOLIC, so that the verdicts are decisions.
func TestCheckKeyedAsCheckMulti(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "shared", "data", "porcupine-kv")
	files, _ := filepath.Glob(filepath.Join(dir, "c*.txt"))
	if len(files) == 0 {
		t.Skipf("no porcupine-kv histories in %s (they live in ../shared/data beside the repository)", dir)
	}
	// c01-bad and c01-ok at the default scale; the larger c10 histories
	// in the long tier.
	files = files[:min(len(files), max(2, testutil.Scale(2)))] // c01-bad and c01-ok at least: a violation and an ok
	opt := monitor.MultiOptions{Options: monitor.Options{Algorithm: monitor.Symbolic}}
	violations, oks := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := multi.CheckMulti(context.Background(), strings.NewReader(string(data)), logfmt.Auto, logfmt.Options{Name: f}, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The same history as timestamped operations: an event's time is
		// its place in the log; an operation never returned is pending.
		src, err := logfmt.NewSource(strings.NewReader(string(data)), logfmt.Auto, logfmt.Options{Name: f})
		if err != nil {
			t.Fatal(err)
		}
		var ops []monitor.KeyedOperation
		open := map[string]int{}
		for {
			e, err := src.NextEvent()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind == monitor.CallAction {
				open[e.ID] = len(ops)
				l := e.Label
				ops = append(ops, monitor.KeyedOperation{Key: e.Object.Name, Operation: monitor.Operation{Label: l, Call: int64(e.Seq)}})
				continue
			}
			o := &ops[open[e.ID]]
			o.Label.Pending, o.Label.Ret, o.Return = false, e.Label.Ret, int64(e.Seq)
			delete(open, e.ID)
		}
		got, err := monitor.CheckKeyed(context.Background(), monitor.StringRegister, "", ops, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got.Verdict != want.Verdict || len(got.Objects) != len(want.Objects) {
			t.Fatalf("%s: %v with %d keys, CheckMulti %v with %d", filepath.Base(f), got.Verdict, len(got.Objects), want.Verdict, len(want.Objects))
		}
		show := func(o monitor.ObjectResult) string {
			step := -1
			if o.ViolationStep != nil {
				step = *o.ViolationStep
			}
			return fmt.Sprintf("key %s: %v, %d steps, %d operations, violation at step %d", o.Name, o.Verdict, o.Steps, o.Operations, step)
		}
		byKey := map[string][]monitor.Operation{}
		for _, o := range ops {
			byKey[o.Key] = append(byKey[o.Key], o.Operation)
		}
		for i := range got.Objects {
			if g, w := show(got.Objects[i]), show(want.Objects[i]); g != w {
				t.Errorf("%s:\n CheckKeyed %s\n CheckMulti %s", filepath.Base(f), g, w)
			}
			// And each key's verdict is its sub-history's, checked alone.
			o := got.Objects[i]
			alone, err := monitor.CheckOperations(context.Background(), monitor.StringRegister, "", byKey[o.Name], opt.Options)
			if err != nil {
				t.Fatal(err)
			}
			if alone.Verdict != o.Verdict || (alone.ViolationStep == nil) != (o.ViolationStep == nil) ||
				alone.ViolationStep != nil && *alone.ViolationStep != *o.ViolationStep {
				t.Errorf("%s: key %s: %s; alone %v at step %v", filepath.Base(f), o.Name, show(o), alone.Verdict, alone.ViolationStep)
			}
		}
		if want.Verdict == monitor.Violation {
			violations++
		} else {
			oks++
		}
	}
	if violations == 0 || oks == 0 {
		t.Errorf("%d violations, %d linearizable: the set should hold both", violations, oks)
	}
}

// Ill-formed operations are errors, not verdicts.
func TestCheckKeyedErrors(t *testing.T) {
	t.Parallel()
	_, err := monitor.CheckKeyed(context.Background(), monitor.StringRegister, "", []monitor.KeyedOperation{
		{Key: "a", Operation: monitor.Operation{Label: monitor.KVPut("x"), Call: 10, Return: 5}},
	}, monitor.MultiOptions{})
	if err == nil || !strings.Contains(err.Error(), `operation 0 (client 0, key "a"): returns at 5, before its call at 10`) {
		t.Errorf("return before call: %v", err)
	}
	_, err = monitor.CheckKeyed(context.Background(), monitor.Queue, "", []monitor.KeyedOperation{
		{Key: "a", Operation: monitor.Operation{Label: monitor.KVGet("x"), Call: 0, Return: 5}},
		{Key: "b", Operation: monitor.Operation{ClientID: 3, Label: monitor.KVPut("x"), Call: 0, Return: 5}},
	}, monitor.MultiOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), `operation 0 (client 0, key "a"): read is not a method of atomic-queue`) {
		t.Errorf("a get on a queue: %v", err)
	}
	_, err = monitor.CheckKeyed(context.Background(), monitor.StringRegister, "", []monitor.KeyedOperation{
		{Key: "b", Operation: monitor.Operation{ClientID: 3, Label: monitor.Label{Method: monitor.Append}, Call: 0, Return: 5}},
	}, monitor.MultiOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), `operation 0 (client 3, key "b"): append of atomic-string-register takes an argument`) {
		t.Errorf("an append of nothing: %v", err)
	}
	_, err = monitor.CheckKeyed(context.Background(), monitor.StringRegister, "x", nil, monitor.MultiOptions{})
	if err == nil {
		t.Errorf("a parameter for the string register: no error")
	}
}
