package encode

import (
	"math/rand"
	"slices"
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/saturate"
	"github.com/satmon/satmon/theory"
)

// TestRowOpsArePartners checks what matchTrue relies on when it reads the
// row of x from x's owned variables (rowOps) instead of its partners
// (partnersX): on random histories of every kernel with INJECTIVE, run by
// SATURATE with returned operations forgotten at random, after every
// action and for every operation x of the window, the y whose
// match(x,y) is in the table are, in the same order, those of rowOps and
// those of partnersX. It fails if a pair keeps its variable once a return
// has ruled it out, if a variable is missing from its operation's owned
// list, or if the order differs.
func TestRowOpsArePartners(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, obj := range h.Objects {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= seeds(60); seed++ {
			cfg := seedConfig(obj, seed, 50, 2+int(seed%6))
			cfg.Capacity = int(seed % 3 * 12)
			acts := generate(t, cfg)
			sink := &recSink{s: saturate.New()}
			sink.s.Observe()
			e := New(k, sink, Config{Lazy: sink, Watch: true, ClosedRemoval: true})
			if !e.match.injective {
				break
			}
			e.Begin()
			r := &run{e: e, sink: sink}
			rng := rand.New(rand.NewSource(seed))
			inTable := func(x *Op, ys []*Op) []int {
				var out []int
				for _, y := range ys {
					if _, ok := e.reg.vars.get(varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key()); ok {
						out = append(out, y.Serial)
					}
				}
				return out
			}
			feedForgetting(t, r, acts, rng, 3, func(i int) {
				for _, x := range e.tab.win {
					mark := len(e.scr.pbuf)
					want := inTable(x, e.ptn.partnersX(x))
					e.scr.pbuf = e.scr.pbuf[:mark]
					got := inTable(x, e.match.rowOps(x))
					clear(e.scr.opScratch)
					e.scr.opScratch = e.scr.opScratch[:0]
					if !slices.Equal(want, got) {
						t.Fatalf("%v/seed%d: action %d: match variables of %d's row: %v by its partners, %v by its owned variables",
							obj, seed, i, x.Serial, want, got)
					}
					checked += len(want)
				}
			}, r.step)
		}
	}
	t.Logf("%d match variables checked", checked)
	if checked == 0 {
		t.Fatal("no match variable was checked: the comparison tests nothing")
	}
}
