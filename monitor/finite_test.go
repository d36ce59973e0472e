package monitor

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testutil"
	"github.com/satmon/satmon/monitor/logfmt"
)

// streamSymbolic checks hist with exact SYMBOLIC at every return (no
// Finite): the reference that Finite's bisection must reproduce.
func streamSymbolic(t *testing.T, hist *h.History) Result {
	t.Helper()
	m, err := New(hist.Object, hist.Param, Options{Algorithm: Symbolic})
	if err != nil {
		t.Fatal(err)
	}
	for a := range actionSeq(hist) {
		if _, err := m.Step(a); err != nil {
			t.Fatal(err)
		}
		if m.Done() {
			break
		}
	}
	return m.Result()
}

func outcome(r Result) string {
	s := string(r.Verdict)
	if r.ViolationStep != nil {
		s += fmt.Sprintf("@%d line %d op %s; %d steps, %d ops, window max %d mean %.3f",
			*r.ViolationStep, r.ViolationLine, r.ViolationOp, r.Steps, r.Operations, r.Stats.MaxWindow, r.Stats.MeanWindow)
	}
	return s
}

// TestFiniteBisectionAgrees checks that a finite log's one solve and
// bisection (CheckHistory makes the monitor Finite) report what SYMBOLIC
// checking every return reports — verdict, step, line, operation and the
// counts up to the violation — and that the verdict is ENUMERATE -c's, on
// random histories of every object, half of them mutated.
func TestFiniteBisectionAgrees(t *testing.T) {
	t.Parallel()
	n := testutil.Scale(20)
	viol, total := 0, 0
	for _, obj := range h.Objects {
		rng := rand.New(rand.NewPCG(uint64(obj), 38))
		for i := 0; i < n; i++ {
			total++
			var hist *h.History
			if i%4 == 3 {
				hist, _ = gen.History(gen.Config{Object: obj, Ops: 10 + rng.IntN(20), Concurrency: 2 + rng.IntN(4),
					Seed: rng.Int64(), Mutate: rng.IntN(2), Capacity: 1 + rng.IntN(3)})
			}
			if hist == nil {
				hist = randomHistory(rng, obj, 8)
			}
			want := streamSymbolic(t, hist)
			got := check(hist, Options{Algorithm: Symbolic})
			if outcome(got) != outcome(want) {
				t.Fatalf("%s #%d: finite %s, every return %s\n%v", obj, i, outcome(got), outcome(want), hist)
			}
			if len(hist.Ops) <= 8 {
				if ref := check(hist, Options{Algorithm: Enumerate, Completion: true}); ref.Verdict != got.Verdict {
					t.Fatalf("%s #%d: symbolic %s, enumerate -c %s\n%v", obj, i, got.Verdict, ref.Verdict, hist)
				}
			}
			if got.Verdict == Violation {
				viol++
				// The bisection solves about log₂(returns) + 1 times.
				if ops := len(hist.Ops); got.Stats.Checks > 2+bitsLen(ops) {
					t.Errorf("%s #%d: %d checks for %d operations", obj, i, got.Stats.Checks, ops)
				}
			}
		}
	}
	if viol == 0 || viol == total {
		t.Errorf("%d violations in %d histories: the comparison tests one side only", viol, total)
	}
}

func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

// TestFiniteMultiAgrees checks that a log of many objects, each monitor
// Finite (MultiOptions.Finite), dropped when idle and settled at the
// end, gets the per-object and log verdicts, steps and lines of the check
// at every return.
func TestFiniteMultiAgrees(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 5))
	n := max(testutil.Scale(20), 6) // fewer may all violate, or none
	viol := 0
	for i := 0; i < n; i++ {
		// Interleave a few registers' histories, one object each.
		var hists []*h.History
		for k := 0; k < 3; k++ {
			obj := []h.Object{h.CASRegister, h.Register, h.Queue}[k]
			hist, _ := gen.History(gen.Config{Object: obj, Ops: 10 + rng.IntN(20), Concurrency: 2 + rng.IntN(3),
				Seed: rng.Int64(), Mutate: rng.IntN(2)})
			hists = append(hists, hist)
		}
		log := interleave(t, rng, hists)
		run := func(finite bool) string {
			lr, err := CheckMulti(context.Background(), strings.NewReader(log), logfmt.Native, logfmt.Options{Name: "x"},
				MultiOptions{Options: Options{Algorithm: Symbolic}, Workers: 2, Finite: finite}, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := outcomeNoStats(lr.Result)
			for _, o := range lr.Objects {
				s += fmt.Sprintf("\n%s %s", o.Name, outcomeNoStats(o.Result))
			}
			return s
		}
		got, want := run(true), run(false)
		if got != want {
			t.Fatalf("log %d: finite\n%s\nevery return\n%s\n%s", i, got, want, log)
		}
		if strings.HasPrefix(got, "violation") {
			viol++
		}
	}
	if viol == 0 || viol == n {
		t.Errorf("%d violating logs of %d: the comparison tests one side only", viol, n)
	}
}

func outcomeNoStats(r Result) string {
	s := string(r.Verdict)
	if r.ViolationStep != nil {
		s += fmt.Sprintf("@%d line %d op %s", *r.ViolationStep, r.ViolationLine, r.ViolationOp)
	}
	return s + fmt.Sprintf("; %d steps, %d ops", r.Steps, r.Operations)
}

// interleave writes the histories as one native log of named objects
// o0, o1, …, their actions merged in a random order that keeps each
// history's own.
func interleave(t *testing.T, rng *rand.Rand, hists []*h.History) string {
	t.Helper()
	var sb strings.Builder
	lines := make([][]string, len(hists))
	for i, hist := range hists {
		var buf bytes.Buffer
		if err := writeLog(&buf, hist); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "# @object o%d %s %s\n", i, hist.Object, hist.Param)
		for _, l := range strings.Split(buf.String(), "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			// "[ID] call m(args)" or "[ID] return v"
			id, rest, _ := strings.Cut(strings.TrimPrefix(l, "["), "] ")
			if c, ok := strings.CutPrefix(rest, "call "); ok {
				rest = fmt.Sprintf("call o%d.%s", i, c)
			}
			lines[i] = append(lines[i], fmt.Sprintf("[o%d_%s] %s", i, id, rest))
		}
	}
	for {
		var left []int
		for i := range lines {
			if len(lines[i]) > 0 {
				left = append(left, i)
			}
		}
		if len(left) == 0 {
			return sb.String()
		}
		i := left[rng.IntN(len(left))]
		sb.WriteString(lines[i][0] + "\n")
		lines[i] = lines[i][1:]
	}
}
