package logfmt

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/satmon/satmon/internal/testutil"
)

// realLogs reads every history of a data set of ../shared/data (all its
// files listed by verdicts.tsv), or skips when it is absent.
func realLogs(tb testing.TB, set string) map[string][]byte {
	tb.Helper()
	dir := filepath.Join(testutil.Root(tb), "..", "shared", "data", set)
	if _, err := os.Stat(filepath.Join(dir, "verdicts.tsv")); err != nil {
		tb.Skipf("%s not found at %s (it lives in ../shared/data beside the repository; absent in a plain clone)", set, dir)
	}
	out := map[string][]byte{}
	for _, v := range testutil.PaperVerdicts(tb, dir) {
		data, err := os.ReadFile(filepath.Join(dir, v.Path))
		if err != nil {
			tb.Fatal(err)
		}
		out[v.Path] = data
	}
	return out
}

// BenchmarkForeignReal reads every history of ../shared/data/jepsen-etcd
// (Jepsen's log lines) and porcupine-kv (EDN maps) from memory, format
// detected, to the end: the reader's share of checking them.
//
//	go test ./internal/logfmt -run '^$' -bench ForeignReal
func BenchmarkForeignReal(b *testing.B) {
	for _, set := range []string{"jepsen-etcd", "porcupine-kv"} {
		b.Run(set, func(b *testing.B) {
			logs := realLogs(b, set)
			size := 0
			for _, d := range logs {
				size += len(d)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				for name, d := range logs {
					src, err := NewSource(bytes.NewReader(d), Auto, Options{Name: name})
					if err != nil {
						b.Fatal(err)
					}
					for {
						if _, err := src.NextEvent(); err != nil {
							if err != io.EOF {
								b.Fatal(err)
							}
							break
						}
					}
				}
			}
		})
	}
}
