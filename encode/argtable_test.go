package encode

import (
	"math/rand/v2"
	"strconv"
	"testing"

	h "github.com/satmon/satmon/internal/history"
)

// argTable against Go's map under random additions and removals of
// operations, with arguments drawn from a small range so that clusters
// and backward shifts happen, and some colliding in the table's home.
func TestArgTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var tab argTable
	ref := map[h.Value][]*Op{}
	serial := 0
	for step := 0; step < 200000; step++ {
		v := h.Value(strconv.Itoa(rng.IntN(2000)))
		if rng.IntN(2) == 0 {
			serial++
			o := &Op{Serial: serial, Label: h.Label{Arg: v}}
			a := tab.at(v)
			a.ops = append(a.ops, o)
			ref[v] = append(ref[v], o)
		} else if l := ref[v]; len(l) > 0 {
			g := l[rng.IntN(len(l))]
			i := tab.find(v)
			if i < 0 {
				t.Fatalf("step %d: find(%q) = -1", step, v)
			}
			a := &tab.slots[i]
			if a.ops = cutOp(a.ops, g); len(a.ops) == 0 {
				tab.del(i)
			}
			ref[v] = cutOp(l, g)
			if len(ref[v]) == 0 {
				delete(ref, v)
			}
		}
		if got, want := tab.get(v), ref[v]; len(got) != len(want) || len(got) > 0 && got[len(got)-1] != want[len(want)-1] {
			t.Fatalf("step %d: get(%q) has %d operations, want %d", step, v, len(got), len(want))
		}
		if tab.n != len(ref) {
			t.Fatalf("step %d: %d arguments, want %d", step, tab.n, len(ref))
		}
	}
	for v, want := range ref {
		if got := tab.get(v); len(got) != len(want) {
			t.Fatalf("final: get(%q) has %d operations, want %d", v, len(got), len(want))
		}
	}
}
