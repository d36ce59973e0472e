package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/satmon/satmon/internal/testutil"
)

// BenchmarkCheckLogs runs `satmon check` (SATURATE -r) on the logs of
// `make bench-ir`: four generated queue and stack logs and, where the
// paper histories are beside the repository, big-msq's. `make pgo`
// profiles it, so that default.pgo sees the whole path of a log line,
// reader included, as the command runs it.
func BenchmarkCheckLogs(b *testing.B) {
	dir := b.TempDir()
	var files []string
	for _, obj := range []string{"queue", "stack"} {
		for _, c := range []string{"2", "8"} {
			var out, errb bytes.Buffer
			args := []string{"gen", "--object", obj, "--ops", "10000", "--concurrency", c, "--capacity", "16", "--seed", "1"}
			if code := run(args, nil, &out, &errb); code != 0 {
				b.Fatalf("satmon %v: exit %d: %s", args, code, errb.String())
			}
			f := filepath.Join(dir, obj+"-c"+c+".log")
			if err := os.WriteFile(f, out.Bytes(), 0o644); err != nil {
				b.Fatal(err)
			}
			files = append(files, f)
		}
	}
	if msq, _ := filepath.Glob(filepath.Join(testutil.Root(b), "..", "shared", "data", "paper-histories", "big-msq", "*.log")); len(msq) > 0 {
		files = append(files, msq...)
	}
	b.ResetTimer()
	for b.Loop() {
		var errb bytes.Buffer
		if code := run(append([]string{"check"}, files...), nil, io.Discard, &errb); code != 0 {
			b.Fatalf("satmon check: exit %d: %s", code, errb.String())
		}
	}
}
