package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestGenRoundTrip: the written log reads back as exactly the history the
// generator draws, for every object.
func TestGenRoundTrip(t *testing.T) {
	for _, obj := range history.Objects {
		code, out, errs := runCmd("gen", "--object", obj.String(), "--ops", "60", "--concurrency", "3",
			"--capacity", "2", "--pending", "2", "--seed", "9", "--mutate", "2", "--values", "3")
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", obj, code, errs)
		}
		got, err := logfmt.ReadHistory(strings.NewReader(out), logfmt.Options{Name: "gen"})
		if err != nil {
			t.Fatalf("%v: output does not parse: %v\n%s", obj, err, out)
		}
		want, err := gen.History(gen.Config{Object: obj, Ops: 60, Concurrency: 3, Capacity: 2, Pending: 2, Seed: 9, Mutate: 2, Values: 3})
		if err != nil {
			t.Fatal(err)
		}
		// Lines differ in meaning between the two (file lines vs the
		// generator's idea of them); everything else must agree.
		for i := range got.Ops {
			got.Ops[i].Line = 0
		}
		for i := range want.Ops {
			want.Ops[i].Line = 0
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: log reads back as\n%s\nwant\n%s", obj, got, want)
		}
	}
}

func TestGenOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.log")
	code, out, errs := runCmd("gen", "--object", "queue", "--ops", "10", "--seed", "3", "-o", path)
	if code != exitOK || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := logfmt.ReadHistory(bytes.NewReader(b), logfmt.Options{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	if h.Object != history.Queue || len(h.Ops) != 10 {
		t.Errorf("file holds %v with %d ops, want a queue with 10", h.Object, len(h.Ops))
	}
}

func TestGenUsage(t *testing.T) {
	code, help, _ := runCmd("gen", "--help")
	if code != exitOK {
		t.Errorf("--help exits %d", code)
	}
	for _, want := range []string{"--object", "--concurrency", "--mutate", "--pending", "--seed", "Examples:", "satmon gen --object queue"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help does not mention %q", want)
		}
	}
	bad := [][]string{
		{"gen"}, // no object
		{"gen", "--object", "tree"},
		{"gen", "--object", "queue", "--concurrency", "0"},
		{"gen", "--object", "queue", "--ops", "3", "--pending", "4"},
		{"gen", "--object", "queue", "--ops", "ten"},
		{"gen", "--object", "queue", "--frobnicate"},
		{"gen", "--object", "queue", "extra.log"},
	}
	for _, args := range bad {
		code, out, errs := runCmd(args...)
		if code != exitUsage || errs == "" || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d with a message", args, code, out, errs, exitUsage)
		}
	}
}

// gen --impl records a real run that satmon reads back; a correct
// implementation's log is accepted.
func TestGenImpl(t *testing.T) {
	for _, name := range []string{"msqueue", "treiber", "mutex", "lockset"} {
		code, out, errs := runCmd("gen", "--impl", name, "--threads", "3", "--ops", "40", "--seed", "2", "--yield", "0.5")
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		hist, err := logfmt.ReadHistory(strings.NewReader(out), logfmt.Options{Name: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(hist.Ops) < 40 {
			t.Errorf("%s: %d operations", name, len(hist.Ops))
		}
		dir := t.TempDir()
		p := filepath.Join(dir, name+".log")
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out, _ := runCmd("check", "-r", p); code != exitOK {
			t.Errorf("%s: a correct implementation's log was reported: %s", name, out)
		}
	}
	if code, _, _ := runCmd("gen", "--impl", "nosuch"); code != exitUsage {
		t.Errorf("unknown implementation: exit %d", code)
	}
	if code, _, _ := runCmd("gen", "--impl", "msqueue", "--object", "queue"); code != exitUsage {
		t.Errorf("--impl with --object: exit %d", code)
	}
}
