package gen

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/seqmodel"
)

func actions(t *testing.T, cfg Config) []history.Action {
	t.Helper()
	var out []history.Action
	if err := Generate(cfg, func(a history.Action) error { out = append(out, a); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDeterministic(t *testing.T) {
	for _, obj := range history.Objects {
		cfg := Config{Object: obj, Ops: 200, Concurrency: 4, Capacity: 5, Pending: 2, Seed: 42, Mutate: 3}
		a, b := actions(t, cfg), actions(t, cfg)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%v: two runs with seed 42 differ", obj)
		}
		cfg.Seed = 43
		if c := actions(t, cfg); reflect.DeepEqual(a, c) {
			t.Errorf("%v: seeds 42 and 43 gave the same history", obj)
		}
	}
}

// TestShape checks the log's structure: ids in call order, sequence
// numbers, the concurrency bound, the pending count, and that concurrency
// is actually used.
func TestShape(t *testing.T) {
	for _, obj := range history.Objects {
		for _, k := range []int{1, 2, 3, 8} {
			for _, p := range []int{0, 1, k} {
				cfg := Config{Object: obj, Ops: 300, Concurrency: k, Pending: p, Capacity: 4, Seed: int64(k*10 + p)}
				acts := actions(t, cfg)
				open := map[string]bool{}
				calls, maxOpen := 0, 0
				for i, a := range acts {
					if a.Seq != i || a.Line != i+2 {
						t.Fatalf("%+v: action %d has Seq %d Line %d", cfg, i, a.Seq, a.Line)
					}
					switch a.Kind {
					case history.Call:
						calls++
						if a.ID != strconv.Itoa(calls) {
							t.Fatalf("%+v: call %d has id %q, want ids in call order", cfg, calls, a.ID)
						}
						if !a.Label.Pending || a.Label.Ret != history.Void {
							t.Fatalf("%+v: call label %v carries a return", cfg, a.Label)
						}
						open[a.ID] = true
						maxOpen = max(maxOpen, len(open))
					case history.Return:
						if !open[a.ID] {
							t.Fatalf("%+v: return of [%s] which is not open", cfg, a.ID)
						}
						delete(open, a.ID)
					}
				}
				if calls != cfg.Ops {
					t.Errorf("%+v: %d calls, want %d", cfg, calls, cfg.Ops)
				}
				if len(open) != p {
					t.Errorf("%+v: %d pending ops, want %d", cfg, len(open), p)
				}
				if maxOpen > k {
					t.Errorf("%+v: %d ops open at once, bound is %d", cfg, maxOpen, k)
				}
				if maxOpen < k {
					t.Errorf("%+v: never more than %d ops open: the bound %d is not exercised", cfg, maxOpen, k)
				}
			}
		}
	}
}

// TestCapacity replays sequential (concurrency 1) runs: the collection
// never holds more than Capacity elements.
func TestCapacity(t *testing.T) {
	for _, obj := range []history.Object{history.Queue, history.Stack, history.PQueue} {
		for c := 1; c <= 4; c++ {
			h, err := History(Config{Object: obj, Ops: 500, Concurrency: 1, Capacity: c, Seed: int64(c)})
			if err != nil {
				t.Fatal(err)
			}
			size, most, empties := 0, 0, 0
			for _, o := range h.Ops {
				switch {
				case o.Label.Method == history.Add:
					size++
				case o.Label.Ret == history.Empty:
					empties++
				default:
					size--
				}
				most = max(most, size)
			}
			if most != c {
				t.Errorf("%v capacity %d: size peaked at %d", obj, c, most)
			}
			if empties == 0 {
				t.Errorf("%v capacity %d: no removal from empty in 500 ops", obj, c)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []Config{
		{Object: history.NoObject, Ops: 1, Concurrency: 1},
		{Object: history.Queue, Ops: 1, Concurrency: 0},
		{Object: history.Queue, Ops: -1, Concurrency: 1},
		{Object: history.Queue, Ops: 5, Concurrency: 2, Pending: 3},
		{Object: history.Queue, Ops: 1, Concurrency: 4, Pending: 2},
		{Object: history.Queue, Ops: 1, Concurrency: 1, Mutate: -1},
	}
	for _, c := range bad {
		if err := Generate(c, func(history.Action) error { return nil }); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	h, err := History(Config{Object: history.Stack, Concurrency: 1})
	if err != nil || len(h.Ops) != 0 {
		t.Errorf("zero ops: %v, %v", h, err)
	}
}

func TestEmitError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Generate(Config{Object: history.Queue, Ops: 100, Concurrency: 2, Seed: 1}, func(history.Action) error {
		n++
		if n == 5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 5 {
		t.Errorf("Generate went on after emit failed: err %v after %d actions", err, n)
	}
}

// TestLinearizable: without faults every history is linearizable, for
// every object, across seeds, concurrency levels and pending counts.
func TestLinearizable(t *testing.T) {
	for _, obj := range history.Objects {
		for seed := int64(0); seed < 60; seed++ {
			k := 1 + int(seed%5)
			cfg := Config{Object: obj, Ops: 10, Concurrency: k, Pending: int(seed) % min(k+1, 3), Capacity: int(seed % 3), Values: int(seed % 4), Seed: seed}
			h, err := History(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !seqmodel.Linearizable(h) {
				t.Fatalf("%+v: not linearizable: %s", cfg, h)
			}
		}
	}
}

// TestMutate: faults make a good fraction of small histories
// non-linearizable.
func TestMutate(t *testing.T) {
	const runs = 60
	for _, obj := range history.Objects {
		bad := 0
		for seed := int64(0); seed < runs; seed++ {
			cfg := Config{Object: obj, Ops: 10, Concurrency: 2 + int(seed%2), Capacity: 3, Pending: int(seed % 2), Mutate: 1, Seed: seed}
			h, err := History(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !seqmodel.Linearizable(h) {
				bad++
			}
		}
		t.Logf("%v: %d of %d histories with one fault are not linearizable", obj, bad, runs)
		if bad < runs/3 {
			t.Errorf("%v: only %d of %d mutated histories are violations", obj, bad, runs)
		}
	}
}

// TestStreaming draws a million queue operations and checks that the
// generator's live state stays within its O(Concurrency + Capacity) bound
// the whole time.
func TestStreaming(t *testing.T) {
	if testing.Short() {
		t.Skip("a million operations")
	}
	cfg := Config{Object: history.Queue, Ops: 1_000_000, Concurrency: 8, Capacity: 16, Pending: 3, Seed: 7, Mutate: 10}
	var g *generator
	count, most, items := 0, 0, 0
	g, err := newGenerator(cfg, func(history.Action) error {
		count++
		most = max(most, len(g.ops)+len(g.returnable))
		items = max(items, len(g.model.(*collection).items))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.run(); err != nil {
		t.Fatal(err)
	}
	if want := 2*cfg.Ops - cfg.Pending; count != want {
		t.Errorf("%d actions, want %d", count, want)
	}
	// ops holds open ops and ops drawn ahead (fewer than Concurrency
	// each); returnable is a subset of the open ones.
	if most > 3*cfg.Concurrency {
		t.Errorf("generator held %d ops at once, want at most %d", most, 3*cfg.Concurrency)
	}
	if items > cfg.Capacity {
		t.Errorf("queue held %d elements, capacity %d", items, cfg.Capacity)
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, obj := range []history.Object{history.Queue, history.PQueue, history.Set, history.Exchanger} {
		b.Run(fmt.Sprint(obj), func(b *testing.B) {
			cfg := Config{Object: obj, Ops: 100_000, Concurrency: 8, Capacity: 16, Seed: 1}
			for b.Loop() {
				n := 0
				if err := Generate(cfg, func(history.Action) error { n++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cfg.Ops), "ops/run")
		})
	}
}
