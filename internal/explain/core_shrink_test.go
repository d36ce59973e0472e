package explain

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/enumerate"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testutil"
	"github.com/satmon/satmon/theory"
)

// genLog writes the log satmon gen writes for cfg.
func genLog(t *testing.T, cfg gen.Config) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := logfmt.NewWriter(&b, cfg.Object, cfg.Param())
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.Generate(cfg, w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A queue that loses one element among 10,000 operations (satmon gen
// --object queue --ops 10000 --concurrency 4 --mutate 1 --seed 3) gets a
// core of a few operations, shown 1-minimal by ENUMERATE -c, and a
// derivation in the words of docs/explain.md; so do a stack, and a queue
// (seed 1) with no point to cut its history at before the violation.
func TestCoreLostElement(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		obj  h.Object
		seed int64
	}{{h.Queue, 3}, {h.Stack, 3}, {h.Queue, 1}} {
		obj := c.obj
		cfg := gen.Config{Object: obj, Ops: 10000, Concurrency: 4, Mutate: 1, Seed: c.seed}
		res, x, err := CheckLogExplain(bytes.NewReader(genLog(t, cfg)), logfmt.Options{Name: "gen.log"}, engine.DefaultOptions(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != engine.Violation {
			t.Fatalf("%s: verdict %s, want a violation", obj, res.Verdict)
		}
		if len(x.Core) > 10 {
			t.Errorf("%s: core of %d operations, want at most 10 (%s)", obj, len(x.Core), x.Note)
		}
		verifyCore(t, fmt.Sprintf("%s seed %d", obj, c.seed), x, nil)
		deriv, err := Derive(x.History, x.Core)
		if err != nil {
			t.Fatalf("%s: %v", obj, err)
		}
		for _, l := range deriv {
			if bytes.Contains([]byte(l), []byte("ladder")) || bytes.Contains([]byte(l), []byte("helper")) {
				t.Errorf("%s: derivation step in internal words: %s", obj, l)
			}
		}
		if len(deriv) > 20 {
			t.Errorf("%s: derivation of %d steps for a core of %d", obj, len(deriv), len(x.Core))
		}
		t.Logf("%s seed %d: core of %d among %d operations (cut: %v), derivation of %d steps", obj, c.seed, len(x.Core), len(x.History.Ops), x.Cut != nil, len(deriv))
	}
}

// Leaving out the operations on values a core does not name (queue and
// stack with distinct values) must never make a linearizable history's
// sub-history fail: for random linearizable histories and random sets C,
// ENUMERATE -c finds every sub-history linearizable.
func TestSubHistoryValuesSound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(39, 1))
	for _, obj := range []h.Object{h.Queue, h.Stack} {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for seed := range int64(testutil.Scale(60)) {
			hist, err := gen.History(gen.Config{Object: obj, Ops: 9, Concurrency: 3, Pending: int(seed % 2), Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if namedValues(hist, make([]bool, len(hist.Ops))) == nil {
				continue // repeated values: no values are left out
			}
			for range 5 {
				keep := make([]bool, len(hist.Ops))
				for i := range keep {
					keep[i] = rng.IntN(3) == 0
				}
				sub, _ := subHistory(hist, keep)
				ok, err := enumerate.Member(k, sub, func() bool { return false })
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					t.Fatalf("%s seed %d: the linearizable history\n%v\nhas a sub-history that is not:\n%v", obj, seed, hist, sub)
				}
				checked++
			}
		}
		if checked == 0 {
			t.Fatalf("%s: no sub-history checked", obj)
		}
	}
}
