package engine

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/valtab"
)

// checkValueIDs verifies the window's interner after a step: every live
// operation's IDs name its values, every live tag of the remover sits at
// its ID and that ID names the tag of each of its live operations, and
// the interner holds exactly the fixed values, the values of the live
// operations (the window's and the encoder's) and the live tags' keys. An ID reused while a holder still had
// it fails the first two; a reference never given back (memory growing
// with the log under -r) fails the last.
func checkValueIDs(m *Monitor) error {
	w, r := m.win, m.rem
	held := map[h.Value]bool{}
	for _, v := range valtab.Fixed {
		held[v] = true
	}
	// The encoder's operations hold theirs too: the initial write's
	// is in no window.
	for _, o := range m.chk.(*satChecker).enc.Ops() {
		held[o.Label.Arg], held[o.Label.Ret] = true, true
	}
	for s, o := range w.all() {
		if v := w.vals.Value(o.ArgID); v != o.Label.Arg {
			return fmt.Errorf("%d: argument ID %d names %q, not %q", s, o.ArgID, v, o.Label.Arg)
		}
		if v := w.vals.Value(o.RetID); v != o.Label.Ret {
			return fmt.Errorf("%d: return ID %d names %q, not %q", s, o.RetID, v, o.Label.Ret)
		}
		held[o.Label.Arg], held[o.Label.Ret] = true, true
	}
	for id, t := range r.byKey {
		if t == nil {
			continue
		}
		if t.id != valtab.ID(id) {
			return fmt.Errorf("tag at %d has ID %d", id, t.id)
		}
		key := w.vals.Value(t.id)
		held[key] = true
		for _, l := range [][]int{t.adds, t.rems} {
			for _, s := range l {
				if o := w.op(s); o != nil {
					if k, _, _, ok := r.sides(o); !ok || k != key {
						return fmt.Errorf("tag %d (%q) holds %d, whose tag is %q", id, key, s, k)
					}
				}
			}
		}
	}
	if n := w.vals.Held(); n != len(held) {
		return fmt.Errorf("the interner holds %d values, the operations and the tags %d", n, len(held))
	}
	return nil
}

// TestValueIDsRecycled runs SATURATE -r on generated histories of every
// object, with small value pools (values repeat, and come back after the
// operations that carried them are forgotten, so their IDs are freed and
// reused) and with unique values, linearizable or not, and checks the
// IDs after every step (checkValueIDs, and the encoder's CheckWindow,
// which checks that its operations' IDs name their values).
func TestValueIDsRecycled(t *testing.T) {
	t.Parallel()
	reused := 0
	// Seeds 1-4 give each value pool once, and a mutation.
	for _, obj := range h.Objects {
		for seed := int64(1); seed <= int64(scaleMin(6, 4)); seed++ {
			m, err := New(obj, "", Options{Algorithm: Saturate, RemoveObsolete: true})
			if err != nil {
				t.Fatal(err)
			}
			enc := m.chk.(*satChecker).enc
			conc := 3 + int(seed%4)
			if obj == h.StringRegister {
				conc = 2 // see TestRemovalKeepsListsLive
			}
			cfg := gen.Config{Object: obj, Ops: scaleMin(300, 100), Concurrency: conc, Capacity: 6, Seed: seed,
				Values: []int{0, 2, 3, 5}[seed%4], Mutate: int(seed % 3 / 2)}
			steps := 0
			err = gen.Generate(cfg, func(a h.Action) error {
				steps++
				// A value new to the interner that gets no new ID
				// gets a freed one.
				before := m.win.vals.Cap()
				_, had := m.win.vals.Lookup(a.Label.Arg)
				v, err := m.Step(a)
				if err != nil || v {
					return err
				}
				if a.Kind == h.Call && !had && a.Label.Arg != h.Void && m.win.vals.Cap() == before {
					reused++
				}
				if err := checkValueIDs(m); err != nil {
					return err
				}
				return enc.CheckWindow()
			})
			if err != nil {
				t.Fatalf("%v %+v, step %d: %v", obj, cfg, steps, err)
			}
		}
	}
	t.Logf("%d IDs reused", reused)
	if reused == 0 {
		t.Fatal("no ID was ever reused: the test tests nothing")
	}
}

// TestValueIDsBounded: under -r, a queue log of ever new values keeps as
// many IDs as values are live, not one per value seen.
func TestValueIDsBounded(t *testing.T) {
	m, step := queueStepper(t)
	for i := 0; i < 5000; i++ {
		v := h.Value(strconv.Itoa(i))
		step(h.Call, "a", h.Label{Method: h.Add, Arg: v})
		step(h.Return, "a", h.Label{Method: h.Add, Arg: v, Ret: h.Void})
		step(h.Call, "r", h.Label{Method: h.Rem})
		step(h.Return, "r", h.Label{Method: h.Rem, Ret: v})
	}
	if n := m.win.vals.Cap(); n > 100 {
		t.Fatalf("%d IDs made for 5000 values, at most a few live at a time", n)
	}
	if err := checkValueIDs(m); err != nil {
		t.Fatal(err)
	}
}
