package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testutil"
)

var enumC = Options{Algorithm: Enumerate, Completion: true}

func checkFile(t *testing.T, path string, opt Options) Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := CheckLogFunc(f, logfmt.Options{Name: path}, opt, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res
}

// Every bundled history gets the verdict written in it.
func TestEnumerateTestdata(t *testing.T) {
	perObject := map[string]map[string]int{}
	for _, c := range testutil.Cases(t) {
		res := checkFile(t, c.Path, enumC)
		if string(res.Verdict) != c.Expect {
			t.Errorf("%s: enumerate -c says %s, file expects %s", c.Path, res.Verdict, c.Expect)
		}
		obj := filepath.Base(filepath.Dir(c.Path))
		if perObject[obj] == nil {
			perObject[obj] = map[string]int{}
		}
		perObject[obj][c.Expect]++
	}
	// The issue asks for at least five of each verdict per object.
	for _, obj := range []string{"queue", "stack", "pqueue", "set", "register", "lock", "semaphore", "exchanger"} {
		if perObject[obj]["ok"] < 5 || perObject[obj]["violation"] < 5 {
			t.Errorf("testdata/%s: %d ok and %d violating histories; want at least 5 of each", obj, perObject[obj]["ok"], perObject[obj]["violation"])
		}
	}
}

// ENUMERATE -c agrees with the ground truth on the paper's small histories.
func TestEnumeratePaperHistories(t *testing.T) {
	t.Parallel()
	dir := testutil.PaperHistories(t)
	n := 0
	for _, v := range testutil.PaperVerdicts(t, dir) {
		if !strings.HasPrefix(v.Path, "simple/") && !strings.HasPrefix(v.Path, "scal-small/") {
			continue
		}
		n++
		res := checkFile(t, filepath.Join(dir, v.Path), enumC)
		if string(res.Verdict) != v.Verdict {
			t.Errorf("%s: enumerate -c says %s, verdicts.tsv says %s", v.Path, res.Verdict, v.Verdict)
		}
	}
	if n < 600 {
		t.Errorf("only %d simple/ and scal-small/ histories checked", n)
	}
}
