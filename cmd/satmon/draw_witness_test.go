package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/testutil"
)

// The picture of an object of a key-value log that the default check
// proves linearizable (the frontier, exact on the registers) numbers the
// operations in a witness linearization, as that of a log of one object
// checked exactly does.
func TestDrawKeyedOkWitness(t *testing.T) {
	t.Parallel()
	ok := filepath.Join(testutil.Root(t), "..", "shared", "data", "porcupine-kv", "c01-ok.txt")
	if _, err := os.Stat(ok); err != nil {
		t.Skipf("no shared data (%v)", err)
	}
	page := filepath.Join(t.TempDir(), "ok.html")
	var out, errb bytes.Buffer
	if code := run([]string{"check", "--html", page, ok}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s %s", code, out.String(), errb.String())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "witness: a linearization") || !strings.Contains(string(b), `class="ord halo"`) {
		t.Errorf("the page of an ok proven exactly has no witness:\n%s", out.String())
	}
}
