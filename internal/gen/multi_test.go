package gen

import (
	"fmt"
	"testing"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/seqmodel"
)

// Drained histories stay linearizable, and end where a fresh monitor
// starts: appending a second, independent history drawn from the initial
// state keeps the whole linearizable (the second history's operations all
// come after the first's). The register ends with a lone write instead.
func TestDrain(t *testing.T) {
	for _, obj := range history.Objects {
		if obj == history.CASRegister || obj == history.StringRegister {
			// No way back to the initial (absent, empty) state: Drain
			// leaves them as they are, and the driver parks them.
			continue
		}
		for seed := int64(0); seed < 40; seed++ {
			k := 1 + int(seed%4)
			cfg := Config{Object: obj, Ops: 10, Concurrency: k, Capacity: int(seed % 3), Values: int(seed % 3), Seed: seed, Drain: true}
			first, err := History(cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Seed += 1000
			second, err := History(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if obj == history.Register {
				// The register ends with a write called after every
				// other operation returned: its value is the state.
				last := first.Ops[len(first.Ops)-1]
				for _, o := range first.Ops[:len(first.Ops)-1] {
					if last.Label.Method != history.Write || o.Return < 0 || o.Return > last.Call {
						t.Fatalf("register drain: %s", first)
					}
				}
				continue
			}
			joined := join(first, second)
			if !seqmodel.Linearizable(first) || !seqmodel.Linearizable(joined) {
				t.Fatalf("%+v: not linearizable: %s", cfg, joined)
			}
		}
	}
}

// join puts b after a in real time, ids kept apart.
func join(a, b *history.History) *history.History {
	j := &history.History{Object: a.Object, Param: a.Param}
	j.Ops = append(j.Ops, a.Ops...)
	off := a.Steps() + 2
	for i, o := range b.Ops {
		o.ID = fmt.Sprintf("b%d", i)
		o.Call += off
		if o.Return >= 0 {
			o.Return += off
		}
		j.Ops = append(j.Ops, o)
	}
	return j
}

// Interleave keeps each object's actions in order, numbers the log's
// actions and lines, and declares each object before its first action.
func TestInterleave(t *testing.T) {
	var specs []ObjectSpec
	for i := 0; i < 20; i++ {
		specs = append(specs, ObjectSpec{Name: fmt.Sprintf("x%d", i), Config: Config{Object: history.Objects[i%8], Ops: 6, Concurrency: 2, Seed: int64(i)}})
	}
	declared := map[int]bool{}
	perObj := map[int][]history.Action{}
	seq, line, active, maxActive := 0, 0, 0, 0
	err := Interleave(specs, 3, 7, func(e MultiEvent) error {
		line++
		if e.Declare {
			declared[e.Object] = true
			active++
			maxActive = max(maxActive, active)
			return nil
		}
		if !declared[e.Object] || e.Action.Seq != seq || e.Action.Line != line {
			t.Fatalf("event %+v at seq %d line %d", e, seq, line)
		}
		seq++
		perObj[e.Object] = append(perObj[e.Object], e.Action)
		if n, _ := History(specs[e.Object].Config); len(perObj[e.Object]) == n.Steps() {
			active--
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(declared) != 20 || maxActive > 3 {
		t.Fatalf("%d declared, %d active at once (want 20, ≤ 3)", len(declared), maxActive)
	}
	for i, s := range specs {
		var want []history.Action
		Generate(s.Config, func(a history.Action) error { want = append(want, a); return nil })
		got := perObj[i]
		if len(got) != len(want) {
			t.Fatalf("object %d: %d actions, want %d", i, len(got), len(want))
		}
		for k := range got {
			if got[k].ID != s.Name+":"+want[k].ID || got[k].Kind != want[k].Kind || got[k].Label != want[k].Label {
				t.Fatalf("object %d action %d: %+v, want %+v", i, k, got[k], want[k])
			}
		}
	}
}
