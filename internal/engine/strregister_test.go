package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/testhist"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/seqmodel"
)

// repeatedStringHistory runs a random key-value store key with 1–6
// clients: put, append and get, appended tokens drawn from a tiny pool so
// that they repeat (a get's string then parses several ways), each
// operation taking effect at a random point between its call and return.
// Some operations stay pending to the end (taken effect or not), and half
// the histories have one get's result changed to a plausible wrong string
// (a token dropped, doubled or swapped): most of those are violations.
func repeatedStringHistory(rng *rand.Rand, maxOps int) *h.History {
	toks := []string{"a", "c", "ac", "a", "ca"}[:2+rng.IntN(4)]
	clients := 1 + rng.IntN(6)
	nOps := 2 + rng.IntN(maxOps-1)
	type run struct {
		op     int // index in hist.Ops, -1 when idle
		effect bool
	}
	hist := &h.History{Object: h.StringRegister}
	runs := make([]run, clients)
	for i := range runs {
		runs[i].op = -1
	}
	state, seq, called := "", 0, 0
	for {
		c := rng.IntN(clients)
		r := &runs[c]
		switch {
		case r.op < 0 && called < nOps:
			var l h.Label
			switch k := rng.IntN(5); {
			case k == 0:
				l = h.Label{Method: h.Write, Arg: h.Value(toks[rng.IntN(len(toks))]), Ret: h.Void}
			case k <= 2:
				l = h.Label{Method: h.Append, Arg: h.Value(toks[rng.IntN(len(toks))]), Ret: h.Void}
			default:
				l = h.Label{Method: h.Read}
			}
			hist.Ops = append(hist.Ops, h.Op{ID: fmt.Sprint(len(hist.Ops)), Label: l, Call: seq, Return: -1})
			seq++
			called++
			*r = run{op: len(hist.Ops) - 1}
		case r.op >= 0 && !r.effect:
			l := &hist.Ops[r.op].Label
			switch l.Method {
			case h.Write:
				state = string(l.Arg)
			case h.Append:
				state += string(l.Arg)
			case h.Read:
				l.Ret = h.Value(state)
			}
			r.effect = true
		case r.op >= 0:
			hist.Ops[r.op].Return = seq
			seq++
			r.op = -1
		}
		if called == nOps {
			busy := 0
			for _, r := range runs {
				if r.op >= 0 {
					busy++
				}
			}
			// The last few operations may stay pending.
			if busy == 0 || rng.IntN(4) == 0 {
				break
			}
		}
	}
	for _, r := range runs {
		if r.op >= 0 {
			o := &hist.Ops[r.op]
			o.Label.Pending = true
			o.Label.Ret = h.Void
		}
	}
	if rng.IntN(2) == 0 {
		var gets []int
		for i, o := range hist.Ops {
			if o.Label.Method == h.Read && !o.Pending() {
				gets = append(gets, i)
			}
		}
		if len(gets) > 0 {
			l := &hist.Ops[gets[rng.IntN(len(gets))]].Label
			s := string(l.Ret)
			tok := toks[rng.IntN(len(toks))]
			switch rng.IntN(3) {
			case 0:
				s += tok
			case 1:
				if i := strings.Index(s, tok); i >= 0 {
					s = s[:i] + s[i+len(tok):]
				} else {
					s = tok + s
				}
			default:
				s = tok + s
			}
			l.Ret = h.Value(s)
		}
	}
	return hist
}

// The default variant on string-register histories with repeated
// appended tokens, 1–6 clients and operations pending to the end: the
// verdict of Porcupine's key-value model and of the sequential model,
// every ok exact, every violation at the earliest violating prefix
// (Porcupine on the prefixes), and never a give-up.
func TestFrontierStringRepeatedTokens(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 7))
	n := scale(3000)
	var viol, ok, ambiguous, ambiguousViol, pending int
	for i := 0; i < n; i++ {
		hist := repeatedStringHistory(rng, 8)
		for _, o := range hist.Ops {
			if o.Pending() {
				pending++
			}
		}
		got := check(hist, Options{})
		if got.Algorithm != FrontierAlgorithm || !got.Exact {
			t.Fatalf("history %d: %s, exact %v\n%v", i, got.Algorithm, got.Exact, hist)
		}
		porc := testhist.PorcupineLinearizable(hist)
		if seq := seqmodel.Linearizable(hist); seq != porc {
			t.Fatalf("history %d: porcupine %v, sequential model %v\n%v", i, porc, seq, hist)
		}
		if porc != (got.Verdict == OK) {
			t.Fatalf("history %d: default %v at %v, porcupine linearizable %v\n%v", i, got.Verdict, testhist.Step(got.ViolationStep), porc, hist)
		}
		amb := ambiguousParse(hist.Ops)
		if amb {
			ambiguous++
		}
		if got.Verdict == Violation {
			if step := firstViolation(hist); step != *got.ViolationStep {
				t.Fatalf("history %d: default violation at %d, porcupine's first violating prefix %d\n%v", i, *got.ViolationStep, step, hist)
			}
			viol++
			if amb {
				ambiguousViol++
			}
		} else {
			ok++
		}
	}
	t.Logf("%d histories: %d violations (%d with an ambiguous parse), %d linearizable; %d with an ambiguous parse; %d operations pending to the end",
		n, viol, ambiguousViol, ok, ambiguous, pending)
	if ambiguousViol == 0 || ok == 0 {
		t.Fatalf("the draw is one-sided")
	}
}

// The case of issue 38: put(a) ‖ append(c) ‖ append(a), then two gets
// that return different strings. Every string the three can leave is one
// string: a violation at the second get's return.
func TestFrontierStringTwoGets(t *testing.T) {
	t.Parallel()
	log := `# @object atomic-string-register
[1] call put(a)
[2] call append(c)
[3] call append(a)
[1] return
[2] return
[3] return
[4] call get
[5] call get
[4] return ac
[5] return acac
`
	got, err := checkLogTuned(strings.NewReader(log), "two-gets", tuned{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != Violation || *got.ViolationStep != 10 || !got.Exact {
		t.Fatalf("got %v at %v, exact %v; want a violation at step 10", got.Verdict, testhist.Step(got.ViolationStep), got.Exact)
	}
}

// searchLinearizable, which confirms the frontier's string-register
// violations where the kernel's parse is ambiguous, is the sequential
// specification: it agrees with the sequential model on every history,
// and with the kernel (ENUMERATE -c) wherever the kernel is exact.
func TestSearchLinearizableAgrees(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 8))
	n := scale(1500)
	var lin, byKernel int
	for i := 0; i < n; i++ {
		hist := repeatedStringHistory(rng, 7)
		got, decided := searchLinearizable(hist, regState{h.Void, true})
		if !decided {
			t.Fatalf("history %d: the search gave up\n%v", i, hist)
		}
		if want := seqmodel.Linearizable(hist); got != want {
			t.Fatalf("history %d: search %v, sequential model %v\n%v", i, got, want, hist)
		}
		if got {
			lin++
		}
		if !ambiguousParse(hist.Ops) {
			byKernel++
			if want := check(hist, Options{Algorithm: Enumerate, Completion: true}); (want.Verdict == OK) != got {
				t.Fatalf("history %d: search %v, enumerate -c %v\n%v", i, got, want.Verdict, hist)
			}
		}
	}
	t.Logf("%d histories, %d linearizable; %d compared with the kernel", n, lin, byKernel)
	if lin == 0 || lin == n {
		t.Fatal("the draw is one-sided")
	}
}

// SYMBOLIC and ENUMERATE decide the string register's kernel, which may
// admit a violation where a get's result parses several ways: their ok
// on such a history is marked inexact, with a warning, and stays exact
// where every parse is unique.
func TestStringAmbiguousParseInexact(t *testing.T) {
	t.Parallel()
	amb := "# @object string-register\n[1] call append(a)\n[1] return\n[2] call append(a)\n[2] return\n[3] call get\n[3] return aaa\n"
	uniq := "# @object string-register\n[1] call append(a)\n[1] return\n[2] call append(b)\n[2] return\n[3] call get\n[3] return ab\n"
	for _, alg := range []Options{{Algorithm: Symbolic}, {Algorithm: Enumerate, Completion: true}} {
		var warn strings.Builder
		alg.Warn = &warn
		got, err := CheckLog(strings.NewReader(amb), "amb", h.NoObject, "", alg)
		if err != nil {
			t.Fatal(err)
		}
		if got.Verdict != OK || got.Exact || !strings.Contains(warn.String(), "appended token occurs twice") {
			t.Errorf("%s on an ambiguous get: %v exact %v, warning %q", alg.Name(), got.Verdict, got.Exact, warn.String())
		}
		warn.Reset()
		if got, _ = CheckLog(strings.NewReader(uniq), "uniq", h.NoObject, "", alg); got.Verdict != OK || !got.Exact || warn.Len() > 0 {
			t.Errorf("%s on a unique parse: %v exact %v, warning %q", alg.Name(), got.Verdict, got.Exact, warn.String())
		}
	}
	if got, _ := CheckLog(strings.NewReader(amb), "amb", h.NoObject, "", Options{}); got.Verdict != Violation || !got.Exact {
		t.Errorf("default on the ambiguous get: %v exact %v", got.Verdict, got.Exact)
	}
}
