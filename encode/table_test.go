package encode

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/valtab"
	"github.com/satmon/satmon/theory"
)

// TestTableAfterRemovals checks the operation table against what it
// stands for, on random histories of every kernel run by SATURATE with
// returned operations forgotten at random, several at a time and in
// random order: after every action, the window is in serial order, the
// pending list, the lists by method and by argument are the window's
// operations filtered (in window order), each overlap list is exactly
// the window's operations not ordered in real time with its own (in
// window order), no list names a forgotten operation (CheckWindow), no
// pooled list names any (their stale entries are cleared), and
// partnerCands gives, for every method both ways, what methodsMayMatch
// gives method by method (partnerCandsAll). It fails if drop leaves an
// operation in a list or cuts one that stays, whatever the order and the
// overlaps of the operations forgotten together. It runs with the lists
// by method and the window always filtered by marks, always cut by
// bisection, and as drop chooses (markedCutRatio).
func TestTableAfterRemovals(t *testing.T) {
	defer func(r int) { markedCutRatio = r }(markedCutRatio)
	for _, ratio := range []int{markedCutRatio, 0, 1 << 30} {
		markedCutRatio = ratio
		tableAfterRemovals(t, 60, 6, 30)
	}
}

// TestTableAfterBatchRemovals is TestTableAfterRemovals with longer
// histories and large batches, as a summary forgets them: a stalled
// operation's overlap list is long (cut from the batch's least serial
// by bisection), and the batch is in random order, not sorted (drop sorts
// it only for the lists it cuts by bisection).
func TestTableAfterBatchRemovals(t *testing.T) {
	defer func(r int) { markedCutRatio = r }(markedCutRatio)
	for _, ratio := range []int{markedCutRatio, 0} {
		markedCutRatio = ratio
		tableAfterRemovals(t, 240, 40, 8)
	}
}

// tableAfterRemovals checks the table after every action of histories
// of ops operations (seeds of them per object), forgetting batches of
// at most maxBatch returned operations at random (about every
// maxBatch/2 actions, at least every 3).
func tableAfterRemovals(t *testing.T, ops, maxBatch, seeds int) {
	removed, checked := 0, 0
	for _, obj := range h.Objects {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= int64(seeds); seed++ {
			cfg := gen.Config{Object: obj, Ops: ops, Concurrency: 2 + int(seed%7), Capacity: int(seed % 3 * 12),
				Pending: int(seed % 3), Seed: seed, Values: int(seed % 4)}
			cfg.Pending = min(cfg.Pending, cfg.Concurrency)
			acts := generate(t, cfg)
			r := lazyRun(k, Config{Watch: true, ClosedRemoval: true})
			e, sink := r.e, r.sink
			rng := rand.New(rand.NewSource(seed))
			serial, next := map[string]int{}, 1
			var returned []int
			for i, a := range acts {
				if sr := feed([]*run{r}, a, serial, &next, nil); a.Kind == h.Return {
					returned = append(returned, sr)
				}
				if r.dead {
					break
				}
				if len(returned) > 0 && rng.Intn(max(3, maxBatch/2)) == 0 {
					// A few returned operations at once, in random order
					// (a serial twice, or one already forgotten, now and
					// then: Remove skips them).
					rng.Shuffle(len(returned), func(i, j int) { returned[i], returned[j] = returned[j], returned[i] })
					n := 1 + rng.Intn(min(len(returned), maxBatch))
					gone := slices.Clone(returned[:n])
					if rng.Intn(4) == 0 {
						gone = append(gone, gone[0])
					}
					returned = returned[n:]
					if err := sink.s.ForgetVars(e.Remove(gone)); err != nil {
						t.Fatal(err)
					}
					removed += n
					r.step()
				}
				if err := checkTable(e); err != nil {
					t.Fatalf("%v/seed%d (ratio %d): action %d: %v", obj, seed, markedCutRatio, i, err)
				}
				checked++
			}
		}
	}
	t.Logf("%d tables checked, %d operations forgotten", checked, removed)
	if removed == 0 {
		t.Fatal("no operation was forgotten: the check tests nothing")
	}
}

// checkTable compares the operation table's lists with the window they
// are derived from (TestTableAfterRemovals).
func checkTable(e *Encoder) error {
	if err := e.CheckWindow(); err != nil {
		return err
	}
	tab := &e.tab
	// The cuts leave the entries they free stale (removeAt): a list in a
	// pool must have been cleared to its capacity, or it could keep
	// operations alive while it waits.
	for k, pool := range tab.freeLists {
		for _, l := range pool {
			for i, o := range l[:cap(l)] {
				if o != nil {
					return fmt.Errorf("pooled list of class %d names an operation at %d", k, i)
				}
			}
		}
	}
	win := tab.win
	for i := 1; i < len(win); i++ {
		if win[i-1].Serial >= win[i].Serial {
			return fmt.Errorf("window not in serial order at %d", i)
		}
	}
	filter := func(keep func(*Op) bool) []*Op {
		var out []*Op
		for _, o := range win {
			if keep(o) {
				out = append(out, o)
			}
		}
		return out
	}
	same := func(name string, got, want []*Op) error {
		if len(got) == 0 && len(want) == 0 {
			return nil
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s: %v, want %v", name, serials(got), serials(want))
		}
		return nil
	}
	if err := same("pend", tab.pend, filter((*Op).pending)); err != nil {
		return err
	}
	for m := range max(len(tab.byMeth), memoMethods) {
		if err := same(fmt.Sprintf("byMeth[%v]", h.Method(m)), tab.opsOf(h.Method(m)),
			filter(func(o *Op) bool { return o.Label.Method == h.Method(m) })); err != nil {
			return err
		}
	}
	args := 0
	for _, l := range tab.byArg {
		if len(l) > 0 {
			args++
		}
	}
	seen := map[h.Value]bool{}
	held := map[h.Value]bool{}
	for _, v := range valtab.Fixed {
		held[v] = true
	}
	for _, o := range win {
		// Each live operation's IDs name its values: an ID reused while
		// an operation held it would show here.
		if got := tab.vals.Value(o.argID); got != o.Label.Arg {
			return fmt.Errorf("%d: argument ID %d names %q, not %q", o.Serial, o.argID, got, o.Label.Arg)
		}
		if got := tab.vals.Value(o.retID); got != o.Label.Ret {
			return fmt.Errorf("%d: return ID %d names %q, not %q", o.Serial, o.retID, got, o.Label.Ret)
		}
		held[o.Label.Arg], held[o.Label.Ret] = true, true
		v := o.Label.Arg
		if seen[v] {
			continue
		}
		seen[v] = true
		if err := same(fmt.Sprintf("byArg[%q]", v), tab.argOps(v),
			filter(func(p *Op) bool { return p.Label.Arg == v })); err != nil {
			return err
		}
	}
	if args != len(seen) {
		return fmt.Errorf("byArg holds %d arguments, the window %d", args, len(seen))
	}
	// Nothing but the window's operations holds an ID: the interner
	// holds exactly their values, so forgotten values free their IDs.
	if tab.vals.Held() != len(held) {
		return fmt.Errorf("the interner holds %d values, the window %d", tab.vals.Held(), len(held))
	}
	for _, o := range win {
		want := filter(func(p *Op) bool { return p != o && !before(o, p) && !before(p, o) })
		if err := same(fmt.Sprintf("%d.conc", o.Serial), o.conc, want); err != nil {
			return err
		}
	}
	for m := range h.Method(memoMethods + 2) {
		for _, asX := range []bool{false, true} {
			if got, want := e.ptn.partnerCands(m, asX), e.ptn.partnerCandsAll(m, asX); !slices.Equal(got, want) {
				return fmt.Errorf("partnerCands(%v, %v): %v, want %v", m, asX, serials(got), serials(want))
			}
		}
	}
	return nil
}

func serials(l []*Op) []int {
	out := make([]int, len(l))
	for i, o := range l {
		out[i] = o.Serial
	}
	return out
}
