package testhist

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	h "github.com/satmon/satmon/internal/history"

	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testutil"
)

// RealFile is one history of a data set, read into memory.
type RealFile struct {
	Name    string
	Data    []byte
	Verdict string // ok or violation, from verdicts.tsv
}

// RealFiles reads a data set's histories, or skips when it is absent.
func RealFiles(tb testing.TB, set string) []RealFile {
	tb.Helper()
	dir := filepath.Join(testutil.Root(tb), "..", "shared", "data", set)
	if _, err := os.Stat(filepath.Join(dir, "verdicts.tsv")); err != nil {
		tb.Skipf("%s not found at %s (it lives in ../shared/data beside the repository; absent in a plain clone)", set, dir)
	}
	var out []RealFile
	for _, v := range testutil.PaperVerdicts(tb, dir) {
		data, err := os.ReadFile(filepath.Join(dir, v.Path))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, RealFile{Name: v.Path, Data: data, Verdict: v.Verdict})
	}
	if len(out) == 0 {
		tb.Fatalf("%s: verdicts.tsv lists no history", dir)
	}
	return out
}

// WriteLog writes hist's actions (in the order engine.Actions gives) as
// a native log.
func WriteLog(buf *bytes.Buffer, hist *h.History, actions []h.Action) error {
	w, err := logfmt.NewWriter(buf, hist.Object, hist.Param)
	if err != nil {
		return err
	}
	for _, a := range actions {
		if err := w.Write(a); err != nil {
			return err
		}
	}
	return w.Flush()
}
