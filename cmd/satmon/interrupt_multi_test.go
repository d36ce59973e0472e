package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/engine"
)

// Logs of many objects in each format that has them, each with a violation
// of one object (bad) proven early and another object (good) still under
// way, its operations not all returned.
var manyObjectLogs = []struct {
	name, bad, good string
	log             string
}{
	{"native", "q1", "q2",
		"# @object q1 queue\n# @object q2 queue\n" +
			"[1] call q1.enqueue(a)\n[1] return\n[2] call q1.dequeue\n[2] return b\n" +
			"[3] call q2.enqueue(c)\n[3] return\n[4] call q2.enqueue(d)\n"},
	{"jepsen-independent", "1", "2",
		"INFO  jepsen.util - 0\t:invoke\t:write\t[1 1]\n" +
			"INFO  jepsen.util - 0\t:ok\t:write\t[1 1]\n" +
			"INFO  jepsen.util - 0\t:invoke\t:read\t[1 nil]\n" +
			"INFO  jepsen.util - 0\t:ok\t:read\t[1 2]\n" +
			"INFO  jepsen.util - 1\t:invoke\t:write\t[2 3]\n" +
			"INFO  jepsen.util - 1\t:ok\t:write\t[2 3]\n" +
			"INFO  jepsen.util - 1\t:invoke\t:write\t[2 4]\n"},
	{"key-value", "a", "b",
		`{:process 0, :type :invoke, :f :put, :key "a", :value "x"}` + "\n" +
			`{:process 0, :type :ok, :f :put, :key "a", :value "x"}` + "\n" +
			`{:process 0, :type :invoke, :f :get, :key "a", :value nil}` + "\n" +
			`{:process 0, :type :ok, :f :get, :key "a", :value "y"}` + "\n" +
			`{:process 1, :type :invoke, :f :put, :key "b", :value "z"}` + "\n" +
			`{:process 1, :type :ok, :f :put, :key "b", :value "z"}` + "\n" +
			`{:process 1, :type :invoke, :f :append, :key "b", :value "w"}` + "\n"},
}

// A real Ctrl-C (SIGINT) on satmon checking a log of many objects from a
// live pipe prints what it has: the violation proven, then the log's
// record, in which the objects not decided are "interrupted"; the exit
// code is the violation's. The pipe stays open: satmon waits for input
// when the signal comes.
func TestInterruptManyObjectsSignal(t *testing.T) {
	t.Parallel()
	for _, tc := range manyObjectLogs {
		for _, format := range []string{"json", "text"} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				cmd, stdin, out, errb := startPiped(t, "check", "--format", format, "-")
				defer stdin.Close()
				io.WriteString(stdin, tc.log)
				waitFor(t, out, "violation") // the bad object's, as it is proven
				if err := cmd.Process.Signal(os.Interrupt); err != nil {
					t.Fatal(err)
				}
				err := cmd.Wait()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != exitViolation {
					t.Errorf("exit: %v, want code %d; stdout %q stderr %q", err, exitViolation, out.String(), errb.String())
				}
				if !strings.Contains(errb.String(), "interrupted: 1 violation(s), 0 ok, 0 input error(s), 0 undecided") {
					t.Errorf("stderr %q", errb.String())
				}
				if format == "text" {
					for _, want := range []string{
						"object " + tc.bad + " (",
						"object " + tc.good + " (",
						"interrupted, no violation in its first",
						"violation: 1 of 2 objects (" + tc.bad + ")",
						"interrupted after",
						"1 object undecided",
					} {
						if !strings.Contains(out.String(), want) {
							t.Errorf("stdout lacks %q:\n%s", want, out.String())
						}
					}
					return
				}
				recs := jsonLines(t, out.String())
				if len(recs) != 2 || recs[0]["record"] != "object" || recs[1]["record"] != "log" {
					t.Fatalf("want an object record then a log record: %v", recs)
				}
				lr := recs[1]
				if lr["verdict"] != "violation" || lr["violation_object"] != tc.bad {
					t.Errorf("log record %v", lr)
				}
				verdicts := objectVerdicts(t, lr)
				if verdicts[tc.bad] != "violation" || verdicts[tc.good] != "interrupted" || len(verdicts) != 2 {
					t.Errorf("objects' verdicts %v", verdicts)
				}
			})
		}
	}
}

// An interrupt while no violation is proven gives the log of many objects
// one record, "interrupted", with every object read so far undecided, and
// the exit code of an undecided history. Deterministic: the input is an
// io.Pipe, whose writes return only once they are read, and the interrupt
// is the handler's own function.
func TestInterruptManyObjectsUndecided(t *testing.T) {
	t.Parallel()
	for _, tc := range manyObjectLogs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The good object's lines only: no violation.
			var good []string
			for _, l := range strings.SplitAfter(tc.log, "\n") {
				if strings.HasPrefix(l, "#") || strings.Contains(l, tc.good) && !strings.Contains(l, "["+tc.bad+" ") {
					good = append(good, l)
				}
			}
			pr, pw := io.Pipe()
			defer pw.Close()
			var out, errb syncBuffer
			c := &checker{opt: engine.DefaultOptions(), stderr: &errb}
			c.out = bufio.NewWriter(&out)
			c.p = printer{w: c.out, json: true}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go c.run(ctx, []string{"-"}, pr)
			io.WriteString(pw, strings.Join(good, ""))
			// Each write returns once read (io.Pipe), and satmon reads the
			// next chunk once it has parsed the last (ctxReader): after
			// these writes, the log's lines above are parsed and handed to
			// the objects.
			for range 2 {
				io.WriteString(pw, strings.Repeat("\n", readChunk))
			}
			code := c.interrupt(cancel)
			c.mu.Unlock()
			if code != exitUndecided {
				t.Errorf("exit %d, want %d", code, exitUndecided)
			}
			recs := jsonLines(t, out.String())
			if len(recs) != 1 || recs[0]["record"] != "log" || recs[0]["verdict"] != "interrupted" || recs[0]["exact"] != false {
				t.Fatalf("records %v", recs)
			}
			verdicts := objectVerdicts(t, recs[0])
			if len(verdicts) != 1 || verdicts[tc.good] != "interrupted" {
				t.Errorf("objects' verdicts %v", verdicts)
			}
			if !strings.Contains(errb.String(), "interrupted: 0 violation(s), 0 ok, 0 input error(s), 1 undecided") {
				t.Errorf("summary %q", errb.String())
			}
		})
	}
}

func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		recs = append(recs, m)
	}
	return recs
}

// objectVerdicts maps the names of a log record's objects to their verdicts.
func objectVerdicts(t *testing.T, lr map[string]any) map[string]string {
	t.Helper()
	objs, ok := lr["objects"].([]any)
	if !ok {
		t.Fatalf("no objects in %v", lr)
	}
	v := map[string]string{}
	for _, o := range objs {
		m := o.(map[string]any)
		v[fmt.Sprint(m["name"])] = fmt.Sprint(m["verdict"])
		if m["verdict"] == "interrupted" && m["exact"] != false {
			t.Errorf("an interrupted object claims exact: %v", m)
		}
	}
	return v
}
