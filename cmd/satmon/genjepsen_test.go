package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenJepsen: gen --format jepsen writes Jepsen log lines that satmon
// check reads, and the exact check gives ok without --stale and a
// violation with it, on a file (so symbolic's one solve and bisection run)
// and on stdin (a return at a time).
func TestGenJepsen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, obj := range []string{"register", "cas-register"} {
		for _, stale := range []bool{false, true} {
			args := []string{"gen", "--format", "jepsen", "--object", obj, "--ops", "80", "--clients", "4", "--info", "0.05", "--seed", "3"}
			want := "ok, linearizable"
			if stale {
				args, want = append(args, "--stale"), "violation"
			}
			code, out, errs := runCmd(args...)
			if code != exitOK {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			if !strings.HasPrefix(out, "INFO  jepsen.util - ") {
				t.Fatalf("not Jepsen lines: %.80q", out)
			}
			if obj == "register" && strings.Contains(out, ":cas") {
				t.Fatalf("a cas in a plain register's log")
			}
			path := filepath.Join(dir, obj+".log")
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			var onFile, onPipe string
			_, onFile, _ = runCmd("check", "-a", "symbolic", path)
			var outb, errb strings.Builder
			run([]string{"check", "-a", "symbolic", "-"}, strings.NewReader(out), &outb, &errb)
			onPipe = strings.ReplaceAll(outb.String(), "<stdin>", path)
			for _, got := range []string{onFile, onPipe} {
				if !strings.Contains(got, want) {
					t.Errorf("%v: want %q, got\n%s", args, want, got)
				}
			}
			// The same step and line from the file and the pipe.
			first := func(s string) string { l, _, _ := strings.Cut(s, ";"); return l }
			if first(onFile) != first(onPipe) {
				t.Errorf("%v: file and pipe differ:\n%s\n%s", args, onFile, onPipe)
			}
		}
	}
	for _, bad := range [][]string{
		{"gen", "--format", "jepsen", "--object", "queue"},
		{"gen", "--format", "jepsen", "--mutate", "1"},
		{"gen", "--format", "jepsen", "--object", "register", "--cas", "0.2"},
		{"gen", "--object", "queue", "--stale"},
		{"gen", "--format", "xml", "--object", "queue"},
	} {
		if code, _, errs := runCmd(bad...); code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d, %q", bad, code, errs)
		}
	}
}
