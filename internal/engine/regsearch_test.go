package engine

import (
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testhist"
	"github.com/satmon/satmon/theory"
)

// The search that finds a register's states at a summary (regsearch.go)
// against the kernel: on random complete segments of the three registers,
// it finds a segment linearizable iff SYMBOLIC does, and a state v is
// among those it returns iff the segment followed by a read ⇒ v is
// linearizable, for v among the values written (and, for the string
// register, the states it returns). A state it missed would make a later
// read of it a false violation; one too many could hide a violation.
func TestRegisterSearchAgreesWithSAT(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 8))
	n := scale(400)
	checked := 0
	for i := 0; i < n; i++ {
		obj := []h.Object{h.Register, h.CASRegister, h.StringRegister}[i%3]
		hist := completeOnly(repeatedHistory(rng, obj, 8))
		if len(hist.Ops) == 0 {
			continue
		}
		k, err := theory.KernelOf(obj, hist.Param)
		if err != nil {
			t.Fatal(err)
		}
		var starts []regState
		if v, ok := k.InitialWrite(); ok {
			starts = []regState{{v, true}}
		}
		seg := &h.History{Object: obj, Param: hist.Param, Ops: slices.Clone(hist.Ops)}
		compact(seg)
		finals, ok := searchStates(seg, starts, 0)
		if !ok {
			t.Fatalf("history %d: search gave up on %d operations", i, len(seg.Ops))
		}
		// The string register's kernel admits more than the register
		// where an appended token occurs twice in a get's result: its ok
		// is then not exact (docs/theories.md, "Ambiguous parsings"), for
		// SYMBOLIC and ENUMERATE alike. There the search, which steps the
		// sequential specification, is held to Porcupine's model.
		sym := check(hist, Options{Algorithm: Symbolic, Warn: io.Discard})
		member := sym.Verdict == OK
		if member && !sym.Exact {
			member = testhist.PorcupineLinearizable(hist)
		}
		if member != (len(finals) > 0) {
			t.Fatalf("history %d: search finds %d states, symbolic says member %v\n%v", i, len(finals), member, hist)
		}
		cands := map[h.Value]bool{}
		for _, f := range finals {
			if f.has {
				cands[f.val] = true
			}
		}
		for _, st := range starts {
			cands[st.val] = true
		}
		for _, o := range hist.Ops {
			if o.Label.Method == h.Write || o.Label.Method == h.CAS {
				cands[o.Label.Arg] = true
			}
		}
		for v := range cands {
			want := check(withFinalRead(hist, v), Options{Algorithm: Symbolic}).Verdict == OK
			if got := slices.Contains(finals, regState{v, true}); got != want {
				t.Fatalf("history %d: state %q found by the search %v, by symbolic %v\n%v", i, v, got, want, hist)
			}
			checked++
		}
	}
	t.Logf("%d histories, %d states checked", n, checked)
}

// completeOnly drops a history's pending operations.
func completeOnly(hist *h.History) *h.History {
	out := &h.History{Object: hist.Object, Param: hist.Param}
	for _, o := range hist.Ops {
		if !o.Pending() {
			out.Ops = append(out.Ops, o)
		}
	}
	return out
}

// withFinalRead appends a read ⇒ v called after every action of hist.
func withFinalRead(hist *h.History, v h.Value) *h.History {
	out := &h.History{Object: hist.Object, Param: hist.Param, Ops: slices.Clone(hist.Ops)}
	end := 0
	for _, o := range out.Ops {
		end = max(end, o.Call+1, o.Return+1)
	}
	out.Ops = append(out.Ops, h.Op{ID: "final", Label: h.Label{Method: h.Read, Ret: v}, Call: end, Return: end + 1})
	return out
}

// The compare-and-set register forgets its writes only at summaries: on
// generated logs the largest window must not grow with the log's length,
// and summaries must happen.
func TestCASWindowBounded(t *testing.T) {
	for _, obj := range []h.Object{h.CASRegister} {
		var windows []int
		for _, ops := range []int{500, 4000} {
			cfg := gen.Config{Object: obj, Ops: ops, Concurrency: 4, Values: 4, Seed: 7}
			r := streamLinearizable(t, cfg, Options{Algorithm: Saturate, RemoveObsolete: true})
			if r.Stats.Summaries == 0 {
				t.Fatalf("%v: no summary", obj)
			}
			windows = append(windows, r.Stats.MaxWindow)
		}
		if windows[1] > 2*windows[0]+20 {
			t.Errorf("%v: largest window %d at 500 operations, %d at 4,000", obj, windows[0], windows[1])
		}
		t.Logf("%v: largest window %v", obj, windows)
	}
}

// The string register is not summarized (summary.go): on this log, from
// the golden recording, a summary would fold append(x1y) into put(x1y),
// and SATURATE -r would miss the violation (a get of x2y while the append
// of x2y is pending) that it finds with the append kept.
func TestStringRegisterNotSummarized(t *testing.T) {
	hist := &h.History{Object: h.StringRegister, Ops: []h.Op{
		{ID: "1", Label: h.Label{Method: h.Append, Arg: "x1y"}, Call: 0, Return: 1},
		{ID: "2", Label: h.Label{Method: h.Read, Ret: "x2y"}, Call: 2, Return: 6},
		{ID: "3", Label: h.Label{Method: h.Append, Arg: "x2y"}, Call: 3, Return: 7},
		{ID: "4", Label: h.Label{Method: h.Append, Arg: "x3y", Pending: true}, Call: 4, Return: -1},
		{ID: "5", Label: h.Label{Method: h.Read, Pending: true}, Call: 5, Return: -1},
	}}
	for _, opt := range []Options{{Algorithm: Saturate}, {Algorithm: Saturate, RemoveObsolete: true}} {
		r := check(hist, opt)
		if r.Verdict != Violation || *r.ViolationStep != 7 {
			t.Errorf("%s: %v at %v, want a violation at step 7", opt.Name(), r.Verdict, testhist.Step(r.ViolationStep))
		}
		if r.Stats.Summaries != 0 {
			t.Errorf("%s: %d summaries of a string register", opt.Name(), r.Stats.Summaries)
		}
	}
}
