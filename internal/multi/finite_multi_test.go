package multi

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testhist"
	"github.com/satmon/satmon/internal/testutil"
)

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
				MultiOptions{Options: engine.Options{Algorithm: engine.Symbolic}, Workers: 2, Finite: finite}, nil)
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

func outcomeNoStats(r engine.Result) string {
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
		if err := testhist.WriteLog(&buf, hist, engine.Actions(hist)); err != nil {
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
