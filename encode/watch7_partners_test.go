package encode

import (
	"math/rand"
	"slices"
	"testing"

	h "github.com/satmon/satmon/internal/gen"
	hist "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// TestReturnPartnersComplete checks, after every return of random
// histories of the kernels that read partners on demand (e.virt), with
// returned operations forgotten at random, that the returned operation's
// stored partners as y are exactly the operations of the window that
// matchPossible allows opposite it, in window order: returnPartners
// passes over the operations of its value without a look when no method
// of the window may be its partner, and must lose none by it.
func TestReturnPartnersComplete(t *testing.T) {
	skipped, checked := 0, 0
	for _, obj := range []hist.Object{hist.Queue, hist.Stack, hist.PQueue, hist.Register} {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= 30; seed++ {
			cfg := h.Config{Object: obj, Ops: 40, Concurrency: 2 + int(seed%7), Capacity: int(seed % 3 * 12),
				Pending: int(seed % 3), Seed: seed, Mutate: int(seed % 2), Values: int(seed % 4)}
			cfg.Pending = min(cfg.Pending, cfg.Concurrency)
			acts := generate(t, cfg)
			r := lazyRun(k, Config{})
			if !r.e.virt {
				t.Fatalf("%v: partners are not read on demand", obj)
			}
			rng := rand.New(rand.NewSource(seed))
			serial, next := map[string]int{}, 1
			var returned []int
			for i, a := range acts {
				s := feed([]*run{r}, a, serial, &next, nil)
				if a.Kind != hist.Return {
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
					if r.e.matchPossible(x, op) {
						want = append(want, x)
					}
				}
				if m := op.Label.Method; m < memoMethods && r.e.methAsY[m] == 0 {
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
				}
			}
		}
	}
	if skipped == 0 || checked == skipped {
		t.Fatalf("returns checked %d, passed over by method %d: the test tests nothing", checked, skipped)
	}
}
