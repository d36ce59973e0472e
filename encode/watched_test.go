package encode

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/saturate"
	"github.com/satmon/satmon/theory"
)

// TestWatchedCountsSweep runs SATURATE's watched grounding of random
// histories of every kernel twice: with the counts and watch lists that
// decide when an instance is evaluated, and with every stored instance
// evaluated from scratch at every assignment and forgetting (evalAll).
// Both forget returned operations at random, with and without
// ClosedRemoval, and sweep their arenas often (minCompact lowered), so
// that forgotten witnesses and universal operations, operation structs
// recycled, literals assigned before Assigned is told of them and
// watch lists rebuilt by a sweep all happen. After every action and every
// forgetting the two must agree on conflict and on the value of every
// variable: an instance is woken whenever an event can make it unit or
// false, and never after it is dead. (Not on how many instances were
// materialised: evaluating all may find an instance unit on a literal
// assigned in the batch being told, where the counts, told of it later,
// find the instance satisfied by then.)
func TestWatchedCountsSweep(t *testing.T) {
	defer func(m int) { minCompact = m }(minCompact)
	minCompact = 8
	materialised := 0
	for _, closed := range []bool{false, true} {
		for _, obj := range h.Objects {
			k, err := theory.KernelOf(obj, "")
			if err != nil {
				t.Fatal(err)
			}
			for seed := int64(1); seed <= seeds(400); seed++ {
				cfg := seedConfig(obj, seed, 60, 1+int(seed%6))
				cfg.Capacity = 3
				acts := generate(t, cfg)
				name := fmt.Sprintf("%v/seed%d/closed=%v", obj, seed, closed)
				materialised += compareSweep(t, name, k, acts, seed, closed)
			}
		}
	}
	if materialised == 0 {
		t.Fatal("no watched instance was materialised: the comparison tests nothing")
	}
}

// compareSweep returns how many instances the counted run materialised.
func compareSweep(t *testing.T, name string, k *theory.Kernel, acts []h.Action, seed int64, closed bool) int {
	t.Helper()
	mk := func(all bool) *run {
		sink := &recSink{s: saturate.New()}
		sink.s.Observe()
		e := New(k, sink, Config{Lazy: sink, Watch: true, ClosedRemoval: closed})
		e.test().evalAll = all
		e.Begin()
		return &run{e: e, sink: sink}
	}
	runs := [2]*run{mk(true), mk(false)}
	if !runs[1].e.watches().on {
		return 0
	}
	values := func(r *run) []int8 {
		out := make([]int8, r.sink.nvars+1)
		for v := z.Var(1); int(v) <= r.sink.nvars; v++ {
			out[v] = r.e.val(v.Pos())
		}
		return out
	}
	rng := rand.New(rand.NewSource(seed))
	serial, next := map[string]int{}, 1
	var returned []int
	for i, a := range acts {
		if sr := feed(runs[:], a, serial, &next, nil); a.Kind == h.Return {
			returned = append(returned, sr)
		}
		check := func(when string) bool {
			t.Helper()
			if runs[0].dead != runs[1].dead {
				t.Fatalf("%s: %s action %d: conflict %v swept, %v counted", name, when, i, runs[0].dead, runs[1].dead)
			}
			if runs[0].dead {
				return true
			}
			// Both make the same variables in the same order: the
			// grounding does not depend on when instances are evaluated.
			if want, got := values(runs[0]), values(runs[1]); !slices.Equal(want, got) {
				t.Fatalf("%s: %s action %d: values differ\nswept   %v\ncounted %v", name, when, i, want, got)
			}
			return false
		}
		if check("after") {
			return runs[1].e.watches().materialised
		}
		if len(returned) > 0 && rng.Intn(2) == 0 {
			var gone []int
			for n := 1 + rng.Intn(2); n > 0 && len(returned) > 0; n-- {
				j := rng.Intn(len(returned))
				gone = append(gone, returned[j])
				returned = slices.Delete(returned, j, j+1)
			}
			for _, r := range runs {
				if err := r.sink.s.ForgetVars(r.e.Remove(gone)); err != nil {
					t.Fatal(err)
				}
				r.step()
			}
			if check("forgetting after") {
				return runs[1].e.watches().materialised
			}
		}
	}
	return runs[1].e.watches().materialised
}
