package progress

import (
	"bytes"
	"os"
	"testing"
)

// A bar on anything but a terminal writes nothing: piped output and CI logs
// must stay clean.
func TestSilentOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, 10, "work")
	b.Add(5)
	b.Describe("more")
	b.Done()
	if buf.Len() != 0 {
		t.Fatalf("bar wrote %q to a non-terminal", buf.String())
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	New(f, 10, "work").Add(10)
	if st, _ := f.Stat(); st.Size() != 0 {
		t.Fatalf("bar wrote %d bytes to a file", st.Size())
	}
	var nilBar *Bar
	nilBar.Add(1) // must not panic
	nilBar.Done()
}
