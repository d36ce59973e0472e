package monitor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/testutil"
)

// Every violation SATURATE finds without -r it also finds with -r, on the
// bundled histories and the paper's; -r never reports a violation on an
// ok one.
func TestRemovalKeepsDetections(t *testing.T) {
	files := map[string]string{}
	for _, c := range testutil.Cases(t) {
		files[c.Path] = c.Expect
	}
	if dir := paperDir(t); dir != "" {
		for _, v := range testutil.PaperVerdicts(t, dir) {
			files[filepath.Join(dir, v.Path)] = v.Verdict
		}
	}
	withR := Options{Algorithm: Saturate, RemoveObsolete: true}
	lost := 0
	for path, want := range files {
		plain := checkFile(t, path, Options{Algorithm: Saturate})
		r := checkFile(t, path, withR)
		if r.Verdict == Violation && want == "ok" {
			t.Errorf("%s: FALSE VIOLATION with -r", path)
		}
		if plain.Verdict == Violation && r.Verdict != Violation {
			lost++
			t.Errorf("%s: saturate finds a violation at step %d, saturate -r finds none", path, *plain.ViolationStep)
		}
	}
	t.Logf("%d histories, %d detections lost", len(files), lost)
}

// Figure 11 (Example 5.8): the violation survives -r.
func TestFigure11WithRemoval(t *testing.T) {
	for _, f := range []string{"figure11-h1.log", "figure11-h2.log"} {
		res := checkFile(t, filepath.Join(testutil.Root(t), "testdata", "stack", f), Options{Algorithm: Saturate, RemoveObsolete: true})
		if res.Verdict != Violation {
			t.Errorf("%s: saturate -r says %s", f, res.Verdict)
		}
	}
}

// paperDir is the paper histories' directory, or "" (with a log line)
// when absent: these tests still run on testdata alone.
func paperDir(t *testing.T) string {
	var dir string
	ok := t.Run("paper-histories", func(t *testing.T) { dir = testutil.PaperHistories(t) })
	if !ok || dir == "" || strings.Contains(dir, "\x00") {
		return ""
	}
	return dir
}
