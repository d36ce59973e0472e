package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/openset"
	"github.com/satmon/satmon/internal/valtab"
)

// The window finds operations by serial in a span of slots, with the
// stragglers of a long span moved aside (far), and open operations by id,
// scanned or hashed: against maps, under random calls, returns and
// removals that leave some operations live for long.
func TestWindowSlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	w := newWindow(nil, h.Queue, "")
	ref := map[int]*h.Op{}
	open := map[int]string{}
	var returned []int
	seq, farUsed, hashed := 0, false, false
	for step := 0; step < 20000; step++ {
		// Phases of few and of many open operations: ids are scanned
		// while few are open, hashed while many are.
		limit := 8
		if step/2000%2 == 1 {
			limit = 40
		}
		switch r := rng.IntN(10); {
		case r < 3 && len(open) < limit || len(open) == 0:
			// Short ids, and long ones whose keys (idKey) often
			// agree: of one length, differing only in their first
			// bytes.
			id := strconv.Itoa(step)
			if step%3 == 0 {
				id = "p" + id + "-suffix"
			}
			s, err := w.add(&h.Action{Kind: h.Call, ID: id, Label: h.Label{Method: h.Add, Arg: "1"}, Seq: seq})
			if err != nil {
				t.Fatal(err)
			}
			seq++
			ref[s] = w.op(s)
			open[s] = id
		case r < 6:
			for s, id := range open {
				if got, ok := w.openSerial(id); !ok || got != s {
					t.Fatalf("step %d: openSerial(%s) = %d, %v, want %d", step, id, got, ok, s)
				}
				w.ret(s, &h.Action{Kind: h.Return, ID: id, Seq: seq})
				seq++
				delete(open, s)
				returned = append(returned, s)
				break
			}
		default:
			// Remove a random returned operation, but keep one in fifty
			// for long.
			if len(returned) == 0 {
				continue
			}
			i := rng.IntN(len(returned))
			s := returned[i]
			returned = append(returned[:i], returned[i+1:]...)
			if s%50 == 0 && rng.IntN(100) != 0 {
				returned = append(returned, s)
				continue
			}
			w.remove([]int{s})
			delete(ref, s)
		}
		farUsed = farUsed || len(w.far) > 0
		hashed = hashed || w.open() > openset.MaxScan
		if w.size() != len(ref) {
			t.Fatalf("step %d: size %d, want %d", step, w.size(), len(ref))
		}
		if step%97 == 0 {
			n, last := 0, 0
			for s, o := range w.all() {
				if s <= last || ref[s] != o {
					t.Fatalf("step %d: all yields %d out of order or wrong", step, s)
				}
				last = s
				n++
			}
			if n != len(ref) {
				t.Fatalf("step %d: all yields %d operations, want %d", step, n, len(ref))
			}
			var all, want []int
			for s := 0; s < w.next+2; s++ {
				if w.op(s) != ref[s] {
					t.Fatalf("step %d: op(%d) = %v, want %v", step, s, w.op(s), ref[s])
				}
				all = append(all, s)
				if ref[s] != nil {
					want = append(want, s)
				}
			}
			if got := w.live(all); !slices.Equal(got, want) {
				t.Fatalf("step %d: live %v, want %v", step, got, want)
			}
			for s, id := range open {
				if got, ok := w.openSerial(id); !ok || got != s {
					t.Fatalf("step %d: openSerial(%s) = %d, %v, want %d", step, id, got, ok, s)
				}
				if other := "q" + id[1:]; len(id) > openset.KeyedLen {
					if got, ok := w.openSerial(other); ok {
						t.Fatalf("step %d: openSerial(%s) = %d, not open", step, other, got)
					}
				}
			}
			// A second call of an open id is refused and changes
			// nothing.
			for s, id := range open {
				if _, err := w.add(&h.Action{Kind: h.Call, ID: id, Label: h.Label{Method: h.Add, Arg: "1"}, Seq: seq}); err == nil {
					t.Fatalf("step %d: second call of open [%s] (%d) accepted", step, id, s)
				}
			}
			if _, ok := w.openSerial("none"); ok || w.open() != len(open) {
				t.Fatalf("step %d: %d open, want %d", step, w.open(), len(open))
			}
			if min := w.pendingMinCall(); len(open) > 0 {
				want := -1
				for s := range open {
					if c := ref[s].Call; want < 0 || c < want {
						want = c
					}
				}
				if min != want {
					t.Fatalf("step %d: pendingMinCall %d, want %d", step, min, want)
				}
			}
		}
	}
	if !hashed {
		t.Fatal("ids were never hashed: the test misses that path")
	}
	if !farUsed {
		t.Fatal("no operation was moved aside: the test misses that path")
	}
}

// A call's operation is written field by field into a recycled struct:
// every field must be set, whatever the struct held before.
func TestWindowAddRecycled(t *testing.T) {
	w := newWindow(nil, h.Queue, "")
	w.free = append(w.free, &h.Op{ID: "stale", Label: h.Label{Method: h.Write, Arg: "x", Old: "y", Prio: 3, Ret: "z"}, Call: 9, Return: 9, Line: 9, ArgID: 5, RetID: 6})
	l := h.Label{Method: h.Add, Arg: "1"}
	s, err := w.add(&h.Action{Kind: h.Call, ID: "a", Label: l, Seq: 0, Line: 4})
	if err != nil {
		t.Fatal(err)
	}
	l.Pending = true
	id, _ := w.vals.Lookup(l.Arg)
	if got, want := *w.op(s), (h.Op{ID: "a", Label: l, Call: w.seq(0), Return: -1, Line: 4, ArgID: id, RetID: valtab.VoidID}); got != want {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}
