package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crillab/gophersat/solver"
)

func root(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	return filepath.Join(dir, "..", "..")
}

func TestCheckVerdictsAndExitCodes(t *testing.T) {
	r := root(t)
	code, out, _ := runCmd("check", filepath.Join(r, "testdata/stack/figure11-h2.log"))
	if code != exitViolation || !strings.Contains(out, "violation of atomic-stack at step") {
		t.Errorf("figure11-h2: exit %d, output %q", code, out)
	}
	code, out, _ = runCmd("check", "-a", "enumerate", "-c", filepath.Join(r, "testdata/stack/lifo-safe-dhk.log"))
	if code != exitOK || !strings.Contains(out, ": ok, linearizable (") {
		t.Errorf("lifo-safe-dhk: exit %d, output %q", code, out)
	}
}

func TestCheckJSON(t *testing.T) {
	r := root(t)
	code, out, _ := runCmd("check", "--format", "json", "-v", filepath.Join(r, "testdata/queue/fifo-violation.log"), filepath.Join(r, "testdata/queue/sequential.log"))
	if code != exitViolation {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one JSON object per history, got %q", out)
	}
	for i, want := range []string{"violation", "ok"} {
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"file", "object", "algorithm", "verdict", "steps", "operations", "violation_step", "seconds"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d lacks %q: %s", i, k, lines[i])
			}
		}
		if m["verdict"] != want {
			t.Errorf("line %d: verdict %v, want %s", i, m["verdict"], want)
		}
		if (want == "ok") != (m["violation_step"] == nil) {
			t.Errorf("line %d: violation_step %v", i, m["violation_step"])
		}
	}
}

// Malformed input: the message names file:line:col and the exit code is 2.
func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct{ text, line string }{
		"unknown-method.log": {"# @object atomic-queue\n[1] call frobnicate(3)\n", ":2:"},
		"return-no-call.log": {"# @object atomic-stack\n[1] call push(1)\n[2] return\n", ":3:"},
		"duplicate.log":      {"# @object atomic-stack\n[1] call push(1)\n[1] call push(2)\n", ":3:"},
		"garbage.log":        {"# @object atomic-stack\nhello world\n", ":2:"},
		"arity.log":          {"# @object atomic-stack\n[1] call push(1, 2)\n", ":2:"},
		"unknown-object.log": {"# @object atomic-dequeue\n", ":1:"},
	}
	for name, c := range cases {
		text := c.text
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCmd("check", p)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want 2", name, code)
		}
		if !strings.Contains(errs, p+c.line) {
			t.Errorf("%s: message does not name file:line: %q", name, errs)
		}
	}
	if code, _, _ := runCmd("check", "--algorithm", "magic"); code != exitUsage {
		t.Errorf("bad algorithm: exit %d", code)
	}
	if code, _, _ := runCmd("check", filepath.Join(dir, "missing.log")); code != exitUsage {
		t.Errorf("missing file: exit %d", code)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// On a pipe, the violation is printed as soon as the return proving it is
// read, while the writer still holds the pipe open.
func TestCheckPipeReportsEarly(t *testing.T) {
	pr, pw := io.Pipe()
	var out, errb syncBuffer
	done := make(chan int)
	go func() { done <- run([]string{"check", "-"}, pr, &out, &errb) }()
	io.WriteString(pw, "# @object atomic-queue\n[1] call enqueue(a)\n[1] return\n[2] call enqueue(b)\n[2] return\n[3] call dequeue\n[3] return b\n")
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a timing assertion
	for !strings.Contains(out.String(), "violation") {
		if time.Now().After(deadline) {
			t.Fatal("no violation printed while the pipe is open")
		}
		time.Sleep(5 * time.Millisecond)
	}
	pw.Close()
	if code := <-done; code != exitViolation {
		t.Errorf("exit %d", code)
	}
}

// satmon encode writes DIMACS that an independent solver reads: UNSAT for
// a violation, SAT for a linearizable history.
func TestEncodeDIMACS(t *testing.T) {
	r := root(t)
	for file, unsat := range map[string]bool{
		"testdata/stack/figure11-h2.log":   true,
		"testdata/stack/lifo-safe-dhk.log": false,
		"testdata/queue/fifo-pending.log":  false,
		"testdata/set/missing-element.log": true,
	} {
		code, out, errs := runCmd("encode", filepath.Join(r, file))
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", file, code, errs)
		}
		if !strings.Contains(out, "c 1 ") {
			t.Errorf("%s: no variable comments", file)
		}
		pb, err := solver.ParseCNF(strings.NewReader(out))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		st := solver.New(pb).Solve()
		if (st == solver.Unsat) != unsat {
			t.Errorf("%s: gophersat says %v, want unsat=%v", file, st, unsat)
		}
	}
}

func TestTheoryCommand(t *testing.T) {
	code, out, _ := runCmd("theory", "stack")
	if code != exitOK || !strings.Contains(out, "LIFO") || !strings.Contains(out, "∀a1,a2,r1.") {
		t.Errorf("exit %d: %s", code, out)
	}
	code, out, _ = runCmd("theory", "--all", "--notes")
	for _, name := range []string{"ATOMIC", "COMPLETED", "INJECTIVE", "INJECTIVE(rem)", "SYMMETRIC", "TOTAL(unlock)", "MATCH1", "MATCH2", "MATCH3", "ADDREM", "EMPTY", "FIFO", "LIFO", "MAX", "INCLUDE", "EXCLUDE", "MATCHINGADD", "MATCHINGREM", "READWRITE", "READFROM", "MUTEX", "LIMIT", "EXCHANGE", "MATCHOVERLAP"} {
		if !strings.Contains(out, name) {
			t.Errorf("theory --all lacks %s", name)
		}
	}
	if code != exitOK || !strings.Contains(out, "-- note:") {
		t.Errorf("exit %d", code)
	}
	if code, _, _ := runCmd("theory", "deque"); code != exitUsage {
		t.Errorf("unknown object: exit %d", code)
	}
}

// -v tells when matching is not unique, and when a stalled operation made
// the wait cap forget operations it overlapped.
func TestCheckVerboseRemovalLines(t *testing.T) {
	r := root(t)
	code, out, _ := runCmd("check", "-r", "-v", filepath.Join(r, "testdata/lock/untagged.log"))
	if code != exitOK || !strings.Contains(out, "matching not unique: 3 repeated tags") {
		t.Errorf("untagged.log: exit %d, output %q", code, out)
	}
	var b strings.Builder
	b.WriteString("# @object atomic-queue\n[s] call enqueue(s)\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "[a%d] call enqueue(%d)\n[a%d] return\n[r%d] call dequeue\n[r%d] return %d\n", i, i, i, i, i, i)
	}
	b.WriteString("[s] return\n")
	dir := t.TempDir()
	path := filepath.Join(dir, "stall.log")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd("check", "-r", "-v", path)
	if code != exitOK || !strings.Contains(out, "operations removed while a stalled pending operation overlapped them") {
		t.Errorf("stall.log: exit %d, output %q", code, out)
	}
}
