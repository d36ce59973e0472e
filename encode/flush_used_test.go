package encode

import (
	"math/rand"
	"testing"

	hist "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// TestMatchPRCIsTheActions checks, for every object and the configurations
// that change stepAxioms' choices, that matchPRC (read by flushMatches
// instead of the actions) says exactly whether matchAct is [matchPair,
// matchExclRow, matchExclCol], the actions flushPairRowCol writes out.
func TestMatchPRCIsTheActions(t *testing.T) {
	t.Parallel()
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
				a := e.match.matchAct
				want := len(a) == 3 && a[0] == matchPair && a[1] == matchExclRow && a[2] == matchExclCol
				if e.match.matchPRC != want {
					t.Fatalf("%v (lazy %v, %+v): actions %v, matchPRC %v", obj, lazy, cfg, a, e.match.matchPRC)
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

// TestUsedAssignedConcByTime grounds random histories of every object
// lazily, forgetting returned operations at random, with usedAssigned
// checking that where it reads from real time, rather than from marks,
// whether an operation is in p.conc, p.conc agrees (it panics if not).
func TestUsedAssignedConcByTime(t *testing.T) {
	checked := 0
	for _, obj := range hist.Objects {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= seeds(40); seed++ {
			cfg := seedConfig(obj, seed, 80, 2+int(seed%7))
			acts := generate(t, cfg)
			for _, c := range []Config{{Watch: true, ClosedRemoval: true}, {Watch: true}} {
				r := lazyRun(k, c)
				hk := r.e.test()
				hk.checkConcMarks = true
				feedForgetting(t, r, acts, rand.New(rand.NewSource(seed)), 3, nil, r.step)
				checked += hk.concChecked
			}
		}
	}
	if checked == 0 {
		t.Fatal("usedAssigned never read p.conc from real time")
	}
	t.Logf("%d operations checked", checked)
}
