package engine

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/testhist"

	"github.com/satmon/satmon/internal/forget"
	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
)

// The search a queue's or stack's summary tries first (internal/forget)
// against the kernel: on random complete segments, with values unique and
// repeated, linearizable or not, it finds a linearization iff SYMBOLIC
// finds the segment linearizable. Only one direction is needed for the
// summaries to stay the same (a linearization found where SYMBOLIC finds
// none would hide a violation); the other shows the search answers where
// it should, so that summaries rarely need SAT. One search is reused
// throughout, as the monitor reuses it.
func TestCollSearchAgreesWithSAT(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 7))
	n := scale(1500)
	var s forget.CollSearch
	bad, tried := 0, 0
	for i := 0; i < n; i++ {
		obj := []h.Object{h.Queue, h.Stack}[i%2]
		var hist *h.History
		switch rng.IntN(3) {
		case 0:
			hist = repeatedHistory(rng, obj, 10)
		case 1:
			hist = testhist.RandomHistory(rng, obj, 10)
		default:
			cfg := gen.Config{Object: obj, Ops: 2 + rng.IntN(11), Concurrency: 1 + rng.IntN(5), Seed: rng.Int64(),
				Mutate: rng.IntN(2), Capacity: rng.IntN(4)}
			var err error
			if hist, err = gen.History(cfg); err != nil {
				t.Fatal(err)
			}
		}
		hist = completeOnly(hist)
		if len(hist.Ops) == 0 {
			continue
		}
		tried++
		seg := &h.History{Object: obj, Param: hist.Param, Ops: slices.Clone(hist.Ops)}
		compact(seg)
		got := s.Linearizable(seg)
		if s.GaveUp() {
			t.Fatalf("history %d: the search gave up on %d operations", i, len(seg.Ops))
		}
		want := check(hist, Options{Algorithm: Symbolic}).Verdict == OK
		if got != want {
			t.Fatalf("history %d: the search finds a linearization: %v; symbolic says member %v\n%v", i, got, want, hist)
		}
		if !want {
			bad++
		}
	}
	if bad == 0 || bad == tried {
		t.Fatalf("%d of %d segments not linearizable: degenerate sample", bad, tried)
	}
	t.Logf("%d segments (%d not linearizable) agree", tried, bad)
}

// Streaming random queue and stack histories through SATURATE -r gives
// the same results — verdict, violation step, summaries made, operations
// forgotten, window — whether the summaries try the search first or ask
// SAT alone.
func TestCollSummariesMatchSAT(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(32, 9))
	n := scale(600)
	summaries, violations := 0, 0
	for i := 0; i < n; i++ {
		obj := []h.Object{h.Queue, h.Stack}[i%2]
		var hist *h.History
		if i%3 == 0 {
			hist = blocks(rng, obj, 4+rng.IntN(30))
		} else {
			cfg := gen.Config{Object: obj, Ops: 10 + rng.IntN(60), Concurrency: 1 + rng.IntN(4), Seed: rng.Int64(),
				Mutate: rng.IntN(2), Capacity: 1 + rng.IntN(3), Values: rng.IntN(4)}
			var err error
			if hist, err = gen.History(cfg); err != nil {
				t.Fatal(err)
			}
		}
		opt := Options{Algorithm: Saturate, RemoveObsolete: true}
		fast := checkTuned(hist, tuned{Options: opt})
		slow := checkTuned(hist, tuned{Options: opt, tuning: tuning{satOnly: true}})
		if fast.Verdict != slow.Verdict || !sameStep(fast.ViolationStep, slow.ViolationStep) ||
			*fast.Stats != *slow.Stats {
			t.Fatalf("history %d: with the search %s at %v %+v; SAT alone %s at %v %+v\n%v", i,
				fast.Verdict, fast.ViolationStep, *fast.Stats, slow.Verdict, slow.ViolationStep, *slow.Stats, hist)
		}
		summaries += fast.Stats.Summaries
		if fast.Verdict == Violation {
			violations++
		}
	}
	if summaries == 0 || violations == 0 {
		t.Fatalf("%d summaries, %d violations: degenerate sample", summaries, violations)
	}
	t.Logf("%d histories, %d summaries, %d violations: the same", n, summaries, violations)
}

func sameStep(a, b *int) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
