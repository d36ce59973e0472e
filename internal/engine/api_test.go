package engine

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/testhist"

	h "github.com/satmon/satmon/internal/history"
)

// Ill-typed labels and parameters are errors, not violations.
func TestLabelValidation(t *testing.T) {
	type step struct {
		call bool
		id   string
		l    h.Label
	}
	cases := []struct {
		obj   h.Object
		steps []step
		want  string // in the last step's error
	}{
		{h.Set, []step{{true, "a", h.Label{Method: h.Add, Arg: "x"}}, {false, "a", h.Label{Ret: "yes"}}}, `returns true or false, got "yes"`},
		{h.Queue, []step{{true, "a", h.Label{Method: h.Add}}}, "takes an argument"},
		{h.Queue, []step{{true, "a", h.Label{Method: h.Rem, Arg: "x"}}}, "takes no argument"},
		{h.Queue, []step{{true, "a", h.Label{Method: h.Contains, Arg: "x"}}}, "not a method of atomic-queue"},
		{h.Queue, []step{{true, "a", h.Label{Method: h.Add, Arg: "1"}}, {false, "a", h.Label{Ret: "1"}}}, "returns nothing"},
		{h.Stack, []step{{true, "a", h.Label{Method: h.Rem}}, {false, "a", h.Label{}}}, "returns a value, got none"},
		{h.Stack, []step{{true, "a", h.Label{Method: h.Add, Arg: "1", Prio: 3}}}, "priority"},
		{h.Stack, []step{{false, "a", h.Label{Ret: "1"}}}, "return without call"},
		{h.Stack, []step{{true, "a", h.Label{Method: h.Rem}}, {true, "a", h.Label{Method: h.Rem}}}, "duplicate id"},
		{h.Register, []step{{true, "", h.Label{Method: h.Read}}}, "empty operation id"},
		{h.Lock, []step{{true, "a", h.Label{Method: h.LockM}}, {false, "a", h.Label{Method: h.Unlock, Ret: ""}}}, "called as lock"},
	}
	for i, c := range cases {
		m, err := New(c.obj, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		for j, s := range c.steps {
			var err error
			if s.call {
				err = m.Call(s.id, s.l)
			} else {
				_, err = m.Step(h.Action{Kind: h.Return, ID: s.id, Label: s.l})
			}
			last := j == len(c.steps)-1
			if !last && err != nil {
				t.Fatalf("case %d step %d: %v", i, j, err)
			}
			if last && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("case %d (%v): error %v, want one saying %q", i, c.obj, err, c.want)
			}
		}
		if r := m.Result(); r.Verdict != OK {
			t.Errorf("case %d: an ill-typed action changed the verdict to %s", i, r.Verdict)
		}
	}
}

func TestParamValidation(t *testing.T) {
	for _, c := range []struct {
		obj   h.Object
		param string
		ok    bool
	}{
		{h.Semaphore, "abc", false}, {h.Semaphore, "0", false}, {h.Semaphore, "-2", false}, {h.Semaphore, "2", true}, {h.Semaphore, "", true},
		{h.Register, "7", true}, {h.Register, "a b", false}, {h.Queue, "3", false}, {h.Queue, "", true}, {h.NoObject, "", false},
	} {
		_, err := New(c.obj, c.param, Options{})
		if (err == nil) != c.ok {
			t.Errorf("New(%v, %q): error %v, want ok=%v", c.obj, c.param, err, c.ok)
		}
	}
}

// Actions fed with Seq left at 0 keep their real-time order: the monitor
// numbers them itself, under every variant. enqueue(1) returns before
// enqueue(2) is called, so a dequeue returning 2 first is a violation.
func TestStepNumbersActions(t *testing.T) {
	for _, opt := range []Options{{}, {Algorithm: Saturate}, {Algorithm: Symbolic}, {Algorithm: Symbolic, RemoveObsolete: true},
		{Algorithm: Symbolic, Incremental: true}, {Algorithm: Enumerate}, {Algorithm: Enumerate, Completion: true}} {
		m, err := New(h.Queue, "", opt)
		if err != nil {
			t.Fatal(err)
		}
		acts := []h.Action{
			{Kind: h.Call, ID: "1", Label: h.Label{Method: h.Add, Arg: "1"}},
			{Kind: h.Return, ID: "1"},
			{Kind: h.Call, ID: "2", Label: h.Label{Method: h.Add, Arg: "2"}},
			{Kind: h.Return, ID: "2"},
			{Kind: h.Call, ID: "3", Label: h.Label{Method: h.Rem}},
			{Kind: h.Return, ID: "3", Label: h.Label{Ret: "2"}},
		}
		for _, a := range acts {
			if _, err := m.Step(a); err != nil {
				t.Fatal(err)
			}
		}
		if r := m.Result(); r.Verdict != Violation || *r.ViolationStep != 6 {
			t.Errorf("%s: verdict %s at %v, want a violation at step 6", opt.Name(), r.Verdict, testhist.Step(r.ViolationStep))
		}
	}
}

// The Seq a caller puts in an action is ignored: random histories give
// the same results fed with their log positions, with every Seq 0, and
// with positions in reverse.
func TestStepIgnoresSeq(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(44, 1))
	n := scale(300)
	for i := 0; i < n; i++ {
		obj := h.Objects[i%len(h.Objects)]
		hist := testhist.RandomHistory(rng, obj, 8)
		for _, opt := range []Options{{}, {Algorithm: Symbolic}} {
			var res [3]Result
			for k := range res {
				m, err := New(hist.Object, hist.Param, opt)
				if err != nil {
					t.Fatal(err)
				}
				acts := Actions(hist)
				for j, a := range acts {
					switch k {
					case 1:
						a.Seq = 0
					case 2:
						a.Seq = len(acts) - j
					}
					if _, err := m.Step(a); err != nil {
						t.Fatal(err)
					}
				}
				res[k] = m.Result()
			}
			for k := 1; k < len(res); k++ {
				if res[k].Verdict != res[0].Verdict || !sameStep(res[k].ViolationStep, res[0].ViolationStep) {
					t.Fatalf("history %d, %s: fed with Seq variant %d, %s at %v; with log positions %s at %v\n%v", i, opt.Name(),
						k, res[k].Verdict, testhist.Step(res[k].ViolationStep), res[0].Verdict, testhist.Step(res[0].ViolationStep), hist)
				}
			}
		}
	}
}

// Check's interval convention: a precedes b iff a.Return < b.Call.
func TestCheckIntervals(t *testing.T) {
	enq := func(v h.Value, call, ret int64) Operation {
		return Operation{Label: h.Label{Method: h.Add, Arg: v}, Call: call, Return: ret}
	}
	deq := func(v h.Value, call, ret int64) Operation {
		return Operation{Label: h.Label{Method: h.Rem, Ret: v}, Call: call, Return: ret}
	}
	exact := Options{Algorithm: Symbolic}
	for _, c := range []struct {
		ops  []Operation
		want Verdict
	}{
		{[]Operation{enq("1", 0, 10), enq("2", 11, 20), deq("2", 30, 40)}, Violation}, // 10 < 11: ordered
		{[]Operation{enq("1", 0, 10), enq("2", 10, 20), deq("2", 30, 40)}, OK},        // touching: overlap
		{[]Operation{enq("1", 0, 10), deq(h.Empty, 5, 7)}, OK},
		{[]Operation{enq("1", 0, 10), deq(h.Empty, 11, 12)}, Violation},
		{[]Operation{enq("2", 50, 60), enq("1", 0, 10), deq("2", 70, 80)}, Violation}, // any order of ops
		{[]Operation{enq("1", 0, 10), {Label: h.Label{Method: h.Rem, Pending: true}, Call: 20}}, OK},
	} {
		res, err := CheckOperations(context.Background(), h.Queue, "", c.ops, exact)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != c.want || !res.Exact {
			t.Errorf("%v: %s (exact %v), want %s", c.ops, res.Verdict, res.Exact, c.want)
		}
	}
	_, err := Check(context.Background(), h.Queue, []Operation{enq("1", 10, 5)})
	if err == nil || !strings.Contains(err.Error(), "before its call") {
		t.Errorf("a return before its call: %v", err)
	}
	res, err := Check(context.Background(), h.Set, []Operation{{Label: h.Label{Method: h.Add, Arg: "x", Ret: "yes"}, Call: 1, Return: 2}})
	if err == nil || res.Verdict != Error {
		t.Errorf("an ill-typed operation: %s, %v", res.Verdict, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := Check(ctx, h.Queue, []Operation{enq("1", 0, 1)}); err != nil || res.Verdict != Timeout {
		t.Errorf("a done context: %s, %v; want timeout", res.Verdict, err)
	}
}

// CheckHistory's contract: verdict Error comes with a Go error.
func TestCheckHistoryError(t *testing.T) {
	hist := &h.History{Object: h.Set, Ops: []h.Op{{ID: "a", Label: h.Label{Method: h.Add, Arg: "x", Ret: "yes"}, Call: 0, Return: 1}}}
	res, err := CheckHistory(hist, Options{})
	if err == nil || res.Verdict != Error || res.Error == "" {
		t.Errorf("ill-typed history: verdict %s, error %v", res.Verdict, err)
	}
	res, err = CheckHistory(&h.History{Object: h.Semaphore, Param: "abc"}, Options{})
	if err == nil || res.Verdict != Error {
		t.Errorf("bad parameter: verdict %s, error %v", res.Verdict, err)
	}
	hist.Ops[0].Label.Ret = h.True
	if res, err = CheckHistory(hist, Options{}); err != nil || res.Verdict != OK || res.Algorithm != "saturate -r" {
		t.Errorf("well-typed history: %s by %s, error %v", res.Verdict, res.Algorithm, err)
	}
}

func TestOptionsExact(t *testing.T) {
	for _, c := range []struct {
		opt   Options
		exact bool
	}{
		{Options{}, false}, {DefaultOptions(), false}, {Options{Algorithm: Saturate}, false},
		{Options{Algorithm: Symbolic}, true}, {Options{Algorithm: Symbolic, Completion: true, Incremental: true}, true},
		{Options{Algorithm: Symbolic, RemoveObsolete: true}, false},
		{Options{Algorithm: Enumerate}, true}, {Options{Algorithm: Enumerate, Completion: true}, true},
	} {
		if c.opt.Exact() != c.exact {
			t.Errorf("%s: Exact %v", c.opt.Name(), c.opt.Exact())
		}
	}
	if n := (Options{}).Name(); n != "saturate -r" {
		t.Errorf("the zero Options is %q, want saturate -r", n)
	}
	if err := (Options{Timeout: -1}).Validate(); err == nil {
		t.Error("a negative timeout is accepted")
	}
}
