package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/engine"
)

// TestMain lets a test run the real binary's main in a child process
// (SATMON_RUN_MAIN=1), to send it a real interrupt.
func TestMain(m *testing.M) {
	if os.Getenv("SATMON_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

const violationLog = "# @object atomic-queue\n[1] call enqueue(a)\n[1] return\n[2] call enqueue(b)\n[2] return\n[3] call dequeue\n[3] return b\n"

// Over several inputs a violation beats an input error, which beats an
// undecided history, which beats ok.
func TestExitCodePrecedence(t *testing.T) {
	r := root(t)
	viol := filepath.Join(r, "testdata/stack/figure11-h2.log")
	ok := filepath.Join(r, "testdata/stack/lifo-safe-dhk.log")
	missing := filepath.Join(t.TempDir(), "missing.log")
	cases := []struct {
		args []string
		want int
	}{
		{[]string{ok}, exitOK},
		{[]string{viol}, exitViolation},
		{[]string{missing}, exitUsage},
		{[]string{"--timeout", "1ns", ok}, exitUndecided},
		{[]string{viol, missing}, exitViolation},
		{[]string{missing, viol}, exitViolation},
		{[]string{"--timeout", "1ns", viol, missing}, exitUsage}, // the violation is never reached in 1ns
		{[]string{ok, missing}, exitUsage},
		{[]string{"--timeout", "1ns", ok, missing}, exitUsage},
		{[]string{ok, viol, ok}, exitViolation},
	}
	for _, c := range cases {
		code, out, errs := runCmd(append([]string{"check"}, c.args...)...)
		if code != c.want {
			t.Errorf("check %q: exit %d, want %d\n%s%s", c.args, code, c.want, out, errs)
		}
	}
}

// "exact" says whether an ok is a proof, for every algorithm.
func TestJSONExactPerAlgorithm(t *testing.T) {
	ok := filepath.Join(root(t), "testdata/stack/lifo-safe-dhk.log")
	for _, c := range []struct {
		flags []string
		name  string
		exact bool
	}{
		{nil, "saturate -r", false},
		{[]string{"--no-remove"}, "saturate", false},
		{[]string{"-r=false"}, "saturate", false},
		{[]string{"-a", "symbolic"}, "symbolic", true},
		{[]string{"-a", "symbolic", "-c", "-i"}, "symbolic -c -i", true},
		{[]string{"-a", "symbolic", "-r"}, "symbolic -r", false},
		{[]string{"-a", "enumerate"}, "enumerate", true},
		{[]string{"-a", "enumerate", "-c"}, "enumerate -c", true},
	} {
		args := append(append([]string{"check", "--format", "json"}, c.flags...), ok)
		code, out, errs := runCmd(args...)
		if code != exitOK {
			t.Fatalf("%q: exit %d: %s", c.flags, code, errs)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%q: %v: %s", c.flags, err, out)
		}
		if m["algorithm"] != c.name || m["exact"] != c.exact || m["verdict"] != "ok" {
			t.Errorf("%q: algorithm %v, exact %v, verdict %v; want %s, %v, ok", c.flags, m["algorithm"], m["exact"], m["verdict"], c.name, c.exact)
		}
		// The text form says the same in words.
		_, text, _ := runCmd(append(append([]string{"check"}, c.flags...), ok)...)
		want := "ok, no violation found"
		if c.exact {
			want = "ok, linearizable"
		}
		if !strings.Contains(text, want) {
			t.Errorf("%q: text %q lacks %q", c.flags, text, want)
		}
	}
}

// jsonFields lists the JSON names of a struct's fields, nested structs
// prefixed by their field's name.
func jsonFields(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, prefix+name)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			out = append(out, jsonFields(ft, prefix+name+".")...)
		}
	}
	return out
}

// docs/output.md documents every JSON field, and nothing else.
func TestJSONSchemaDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root(t), "docs/output.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	_, stats, ok := strings.Cut(text, "`stats`:\n")
	stats, witness, ok2 := strings.Cut(stats, "`witness`:\n")
	if !ok || !ok2 {
		t.Fatal("docs/output.md has no `stats`: or `witness`: table")
	}
	top := text[strings.Index(text, "## JSON fields"):strings.Index(text, "`stats`:\n")]
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|")
	var documented []string
	for _, m := range row.FindAllStringSubmatch(top, -1) {
		documented = append(documented, m[1])
	}
	for _, m := range row.FindAllStringSubmatch(stats, -1) {
		documented = append(documented, "stats."+m[1])
	}
	for _, m := range row.FindAllStringSubmatch(witness, -1) {
		documented = append(documented, "witness."+m[1])
	}
	got := jsonFields(reflect.TypeFor[engine.Result](), "")
	// Every field of engine.Result is documented; the fields of the
	// other records, and that every documented field is written, are
	// TestJSONRecordsDocumented's.
	for _, f := range got {
		if !slices.Contains(documented, f) {
			t.Errorf("docs/output.md does not document engine.Result's %q", f)
		}
	}
	// The fields are what check writes: a violation with -v fills them all
	// but error.
	_, out, _ := runCmd("check", "--format", "json", "-v", filepath.Join(root(t), "testdata/stack/figure11-h2.log"))
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range got {
		if f == "core" || strings.HasPrefix(f, "witness") {
			continue // only with --explain: checked below
		}
		if top, sub, nested := strings.Cut(f, "."); nested {
			if _, ok := m[top].(map[string]any); !ok {
				t.Errorf("no %s object in %s", top, out)
			}
			_ = sub
			continue
		}
		if _, ok := m[f]; !ok && f != "error" {
			t.Errorf("check's JSON lacks %q: %s", f, out)
		}
	}
	_, out, _ = runCmd("check", "--format", "json", "--explain", filepath.Join(root(t), "testdata/stack/figure11-h2.log"))
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if core, _ := m["core"].([]any); len(core) == 0 {
		t.Errorf("check --explain gives a violation no core: %s", out)
	}
	_, out, _ = runCmd("check", "--format", "json", "--explain", "-a", "symbolic", filepath.Join(root(t), "testdata/stack/lifo-safe-dhk.log"))
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if w, _ := m["witness"].(map[string]any); w == nil || w["order"] == nil {
		t.Errorf("check --explain -a symbolic gives an ok no witness: %s", out)
	}
}

// Every input gets a JSON record, unreadable ones included, and names are
// not HTML-escaped.
func TestJSONRecordPerInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.log")
	if err := os.WriteFile(bad, []byte("# @object atomic-queue\n[1] call frobnicate(3)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.log")
	var out, errb bytes.Buffer
	code := run([]string{"check", "--format", "json", missing, "-", bad}, strings.NewReader(violationLog), &out, &errb)
	if code != exitViolation {
		t.Errorf("exit %d", code)
	}
	if strings.Contains(out.String(), `\u003c`) || !strings.Contains(out.String(), `"file":"<stdin>"`) {
		t.Errorf("stdin's name is escaped or missing: %s", out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 records, got %d:\n%s", len(lines), out.String())
	}
	for i, want := range []struct{ file, verdict string }{{missing, "error"}, {"<stdin>", "violation"}, {bad, "error"}} {
		var r engine.Result
		if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
			t.Fatal(err)
		}
		if r.File != want.file || string(r.Verdict) != want.verdict || (want.verdict == "error") != (r.Error != "") {
			t.Errorf("record %d: %+v, want %s %s", i, r, want.file, want.verdict)
		}
	}
	if !strings.Contains(errb.String(), bad+":2:") {
		t.Errorf("stderr lacks the position of the bad line: %s", errb.String())
	}
}

// After a violation, satmon keeps reading a slow producer's output to the
// end: every write succeeds (no EPIPE, so no SIGPIPE for a real producer),
// and satmon ends only when the producer closes the pipe.
func TestDrainSlowProducer(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"check", "-"}, pr, &out, &errb)
		pr.Close() // as when the process exits
	}()
	if _, err := io.WriteString(pw, violationLog); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &out, "violation")
	// Far more than a pipe holds (64 KiB on Linux): without draining, these
	// writes fail with EPIPE once satmon is gone.
	line := strings.Repeat("x", 255) + "\n"
	for i := 0; i < 1024; i++ {
		if _, err := io.WriteString(pw, line); err != nil {
			t.Fatalf("write %d after the violation: %v", i, err)
		}
		if i%128 == 0 {
			time.Sleep(time.Millisecond) // a slow producer
		}
	}
	select {
	case c := <-done:
		t.Fatalf("satmon returned (exit %d) before its input ended", c)
	default:
	}
	pw.Close()
	if c := <-done; c != exitViolation {
		t.Errorf("exit %d, want %d", c, exitViolation)
	}
}

// --exit-on-violation stops reading at once: the producer's next write
// fails (a real producer would die of SIGPIPE).
func TestExitOnViolation(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"check", "--exit-on-violation", "-", "never-read.log"}, pr, &out, &errb)
		pr.Close()
	}()
	if _, err := io.WriteString(pw, violationLog); err != nil {
		t.Fatal(err)
	}
	if c := <-done; c != exitViolation {
		t.Errorf("exit %d, want %d", c, exitViolation)
	}
	if _, err := io.WriteString(pw, "[4] call dequeue\n"); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("write after exit: %v, want EPIPE", err)
	}
	if strings.Contains(out.String()+errb.String(), "never-read.log") {
		t.Errorf("the file after the violation was read: %s %s", out.String(), errb.String())
	}
}

func waitFor(t *testing.T, b *syncBuffer, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a timing assertion
	for !strings.Contains(b.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in %q", s, b.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// An interrupt prints the verdict so far of the history being read and a
// summary, and the exit code counts that history as undecided.
func TestInterruptSummary(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	var out, errb syncBuffer
	c := &checker{opt: engine.DefaultOptions(), stderr: &errb}
	c.out = bufio.NewWriter(&out)
	c.p = printer{w: c.out}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ok := filepath.Join(root(t), "testdata/stack/lifo-safe-dhk.log")
	go c.run(ctx, []string{ok, "-"}, pr)
	io.WriteString(pw, "# @object atomic-queue\n[1] call enqueue(a)\n[1] return\n[2] call dequeue\n")
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for {
		c.mu.Lock()
		steps := -1
		if c.cur != nil && c.name == "<stdin>" {
			steps = c.cur.Result().Steps
		}
		c.mu.Unlock()
		if steps == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stdin history was not read")
		}
		time.Sleep(2 * time.Millisecond)
	}
	code := c.interrupt(cancel)
	c.mu.Unlock()
	if code != exitUndecided {
		t.Errorf("exit %d, want %d", code, exitUndecided)
	}
	if !strings.Contains(out.String(), "<stdin>: interrupted, no violation in the first 3 steps") ||
		!strings.Contains(out.String(), "lifo-safe-dhk.log: ok") {
		t.Errorf("output %q", out.String())
	}
	if !strings.Contains(errb.String(), "interrupted: 0 violation(s), 1 ok, 0 input error(s), 1 undecided") {
		t.Errorf("summary %q", errb.String())
	}
}

// A real Ctrl-C (SIGINT) on a satmon reading a live pipe prints the summary
// and exits with the batch's code.
func TestInterruptSignal(t *testing.T) {
	cmd, stdin, out, errb := startPiped(t, "check", "-")
	defer stdin.Close()
	io.WriteString(stdin, violationLog)
	waitFor(t, out, "violation") // satmon now drains its input
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitViolation {
		t.Errorf("exit: %v, want code %d", err, exitViolation)
	}
	if !strings.Contains(errb.String(), "interrupted: 1 violation(s)") {
		t.Errorf("stderr %q", errb.String())
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		code, out, _ := runCmd(arg)
		if code != exitOK || !regexp.MustCompile(`^satmon \S+.* go1\.\d+`).MatchString(out) {
			t.Errorf("%s: exit %d, %q", arg, code, out)
		}
	}
}

// --help goes to stdout and exits 0, for every sub-command.
func TestHelpOnStdout(t *testing.T) {
	for name := range commands {
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
			code, out, errs := runCmd(args...)
			if code != exitOK || !strings.Contains(out, "Usage: satmon "+name) || errs != "" {
				t.Errorf("%q: exit %d, stdout %d bytes, stderr %q", args, code, len(out), errs)
			}
		}
	}
	code, out, _ := runCmd("check", "--help")
	for _, want := range []string{"can miss violations", "exact", "Exit status", "--exit-on-violation", "--no-remove"} {
		if !strings.Contains(out, want) {
			t.Errorf("check --help lacks %q (exit %d)", want, code)
		}
	}
}

func TestBadArgumentsRejected(t *testing.T) {
	for _, args := range [][]string{
		{"theory", "semaphore", "abc"},
		{"theory", "semaphore", "0"},
		{"theory", "queue", "3"},
		{"check", "--timeout", "-1s", "x.log"},
		{"check", "-r", "--no-remove", "x.log"},
		{"check", "--param", "2", "x.log"},
		{"check", "--object", "semaphore", "--param", "abc", "x.log"},
		{"check", "--solver", "minisat", "x.log"},
		{"check", "-a", "enumerate", "-r", "x.log"},
		{"check", "-a", "saturate", "-c", "x.log"},
		{"check", "--format", "xml", "x.log"},
	} {
		code, out, errs := runCmd(args...)
		if code != exitUsage || errs == "" || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and a message", args, code, out, errs)
		}
	}
	if code, _, errs := runCmd("theory", "semaphore", "2"); code != exitOK {
		t.Errorf("theory semaphore 2: exit %d: %s", code, errs)
	}
}

// The default is SATURATE -r; the paper's variants stay available.
func TestRemoveDefault(t *testing.T) {
	ok := filepath.Join(root(t), "testdata/queue/sequential.log")
	for _, c := range []struct {
		flags []string
		name  string
	}{
		{nil, "saturate -r"},
		{[]string{"-r"}, "saturate -r"},
		{[]string{"--no-remove"}, "saturate"},
		{[]string{"-r=false"}, "saturate"},
		{[]string{"-a", "symbolic"}, "symbolic"},
		{[]string{"-a", "symbolic", "-i", "-r"}, "symbolic -i -r"},
	} {
		code, out, errs := runCmd(append(append([]string{"check", "--format", "json"}, c.flags...), ok)...)
		if code != exitOK || !strings.Contains(out, fmt.Sprintf(`"algorithm":%q`, c.name)) {
			t.Errorf("%q: exit %d, %s%s; want algorithm %q", c.flags, code, out, errs, c.name)
		}
	}
}

// A long batch shows a progress bar only on a terminal: piped, stderr
// stays empty.
func TestNoProgressWhenPiped(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root(t), "testdata/*/*.log"))
	if err != nil || len(files) < progressMin {
		t.Fatalf("%d files (%v): too few for a progress bar", len(files), err)
	}
	_, out, errs := runCmd(append([]string{"check"}, files...)...)
	if errs != "" || strings.Count(out, "\n") != len(files) {
		t.Errorf("stderr %q; %d lines for %d files", errs, strings.Count(out, "\n"), len(files))
	}
}

// startPiped starts `satmon ARGS` in a child process (TestMain runs main
// when SATMON_RUN_MAIN is set) reading a pipe, its output gathered in out
// and errb.
func startPiped(t *testing.T, args ...string) (cmd *exec.Cmd, stdin io.WriteCloser, out, errb *syncBuffer) {
	t.Helper()
	cmd = exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SATMON_RUN_MAIN=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, errb = &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdin, out, errb
}
