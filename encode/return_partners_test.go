package encode

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	hist "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// TestReturnPartnersComplete checks, after every call, that the new
// operation's stored partners as x are the returned operations of the
// window that matchPossible allows opposite it (callPartners passes over
// them when no returned operation has its argument as value: retLive,
// which must count them exactly); and, after every return of random
// histories of the kernels that read partners on demand (e.ptn.virt), with
// returned operations forgotten at random, that the returned operation's
// stored partners as y are exactly the operations of the window that
// matchPossible allows opposite it, in window order: returnPartners
// passes over the operations of its value without a look when no method
// of the window may be its partner, and must lose none by it.
func TestReturnPartnersComplete(t *testing.T) {
	t.Parallel()
	skipped, checked, calledWith := 0, 0, 0
	for _, obj := range []hist.Object{hist.Queue, hist.Stack, hist.PQueue, hist.Register} {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= seeds(30); seed++ {
			cfg := seedConfig(obj, seed, 40, 2+int(seed%7))
			cfg.Capacity = int(seed % 3 * 12)
			acts := generate(t, cfg)
			r := lazyRun(k, Config{})
			if !r.e.ptn.virt {
				t.Fatalf("%v: partners are not read on demand", obj)
			}
			rng := rand.New(rand.NewSource(seed))
			serial, next := map[string]int{}, 1
			var returned []int
			for i, a := range acts {
				s := feed([]*run{r}, a, serial, &next, nil)
				if err := checkRetLive(r.e); err != nil {
					t.Fatalf("%v/seed%d: after action %d: %v", obj, seed, i, err)
				}
				if a.Kind != hist.Return {
					// The stored partners of a new operation as x: the
					// returned operations of the window that may be its
					// partners (callPartners, with retLive).
					op := r.e.tab.op(s)
					var want []*Op
					for _, y := range r.e.tab.win {
						if !y.pending() && r.e.lab.matchPossible(op, y) {
							want = append(want, y)
						}
					}
					if len(want) > 0 {
						calledWith++
					}
					if !slices.Equal(op.asX, want) {
						t.Fatalf("%v/seed%d: after action %d: op %d's partners as x %v, want %v", obj, seed, i, s, serials(op.asX), serials(want))
					}
					if r.dead {
						break
					}
					continue
				}
				returned = append(returned, s)
				delete(serial, a.ID)
				op := r.e.tab.op(s)
				var want []*Op
				for _, x := range r.e.tab.win {
					if r.e.lab.matchPossible(x, op) {
						want = append(want, x)
					}
				}
				if m := op.Label.Method; m < memoMethods && r.e.lab.methAsY[m] == 0 {
					skipped++
				}
				checked++
				if !slices.Equal(op.asY, want) {
					t.Fatalf("%v/seed%d: after action %d: op %d's partners as y %v, want %v", obj, seed, i, s, serials(op.asY), serials(want))
				}
				for _, x := range want {
					if !slices.Contains(x.asX, op) {
						t.Fatalf("%v/seed%d: after action %d: op %d not among op %d's partners as x", obj, seed, i, s, x.Serial)
					}
				}
				if r.dead {
					break
				}
				if len(returned) > 0 && rng.Intn(3) == 0 {
					j := rng.Intn(len(returned))
					gone := []int{returned[j]}
					returned = slices.Delete(returned, j, j+1)
					if err := r.sink.s.ForgetVars(r.e.Remove(gone)); err != nil {
						t.Fatal(err)
					}
					if err := checkRetLive(r.e); err != nil {
						t.Fatalf("%v/seed%d: after forgetting %d: %v", obj, seed, gone[0], err)
					}
				}
			}
		}
	}
	if skipped == 0 || checked == skipped || calledWith == 0 {
		t.Fatalf("returns checked %d, passed over by method %d, calls with a returned partner %d: the test tests nothing", checked, skipped, calledWith)
	}
}

// checkRetLive checks that e.ptn.retLive counts, for each value ID, the
// returned operations of the window with that return value.
func checkRetLive(e *Encoder) error {
	want := make([]int32, len(e.ptn.retLive))
	for _, o := range e.tab.win {
		if !o.pending() {
			if int(o.retID) >= len(want) {
				return fmt.Errorf("op %d's return ID %d is past retLive (%d)", o.Serial, o.retID, len(want))
			}
			want[o.retID]++
		}
	}
	if !slices.Equal(e.ptn.retLive, want) {
		return fmt.Errorf("retLive %v, want %v", e.ptn.retLive, want)
	}
	return nil
}

// TestFlushPairRowColAgrees grounds random histories of the kernels whose
// new match variables flushPairRowCol handles (queue, stack, priority
// queue) twice, with it and through flushMatches' loop over the actions,
// over saturators whose facts feed back, forgetting returned operations at
// random: the two must emit the same clauses in the same order.
func TestFlushPairRowColAgrees(t *testing.T) {
	fast := 0
	for _, obj := range []hist.Object{hist.Queue, hist.Stack, hist.PQueue} {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= seeds(60); seed++ {
			cfg := seedConfig(obj, seed, 80, 2+int(seed%7))
			cfg.Capacity = int(seed % 3 * 12)
			acts := generate(t, cfg)
			var clauses [2][][]Lit
			for pass, byActs := range []bool{true, false} {
				r := lazyRun(k, Config{Watch: true, ClosedRemoval: true})
				r.e.test().flushByActs = byActs
				if a := r.e.match.matchAct; !byActs && !(len(a) == 3 && a[0] == matchPair && a[1] == matchExclRow && a[2] == matchExclCol && r.e.match.matchPRC) {
					t.Fatalf("%v: actions %v, matchPRC %v: flushPairRowCol is not used", obj, a, r.e.match.matchPRC)
				}
				feedForgetting(t, r, acts, rand.New(rand.NewSource(seed)), 3, nil, r.step)
				clauses[pass] = r.sink.clauses
			}
			if !slices.EqualFunc(clauses[0], clauses[1], slices.Equal) {
				t.Fatalf("%v/seed%d: %d clauses through the actions, %d with flushPairRowCol, or a clause differs", obj, seed, len(clauses[0]), len(clauses[1]))
			}
			fast++
		}
	}
	if fast == 0 {
		t.Fatal("no history compared")
	}
}
