package encode

import (
	"testing"

	hist "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// TestMatchPRCIsTheActions checks, for every object and the configurations
// that change stepAxioms' choices, that matchPRC (read by flushMatches
// instead of the actions) says exactly whether matchAct is [matchPair,
// matchExclRow, matchExclCol], the actions flushPairRowCol writes out.
func TestMatchPRCIsTheActions(t *testing.T) {
	prc := 0
	for _, obj := range hist.Objects {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range []Config{{}, {Watch: true}, {Watch: true, ClosedRemoval: true}} {
			for _, lazy := range []bool{false, true} {
				var e *Encoder
				if lazy {
					e = lazyRun(k, cfg).e
				} else {
					e = New(k, &recSink{}, cfg)
				}
				a := e.matchAct
				want := len(a) == 3 && a[0] == matchPair && a[1] == matchExclRow && a[2] == matchExclCol
				if e.matchPRC != want {
					t.Fatalf("%v (lazy %v, %+v): actions %v, matchPRC %v", obj, lazy, cfg, a, e.matchPRC)
				}
				if want {
					prc++
				}
			}
		}
	}
	if prc == 0 {
		t.Fatal("no object flushes through flushPairRowCol")
	}
}
