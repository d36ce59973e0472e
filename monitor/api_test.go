package monitor

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	h "github.com/satmon/satmon/internal/history"
)

// Ill-typed labels and parameters are errors, not violations.
func TestLabelValidation(t *testing.T) {
	type step struct {
		call bool
		id   string
		l    Label
	}
	cases := []struct {
		obj   Object
		steps []step
		want  string // in the last step's error
	}{
		{Set, []step{{true, "a", Label{Method: Add, Arg: "x"}}, {false, "a", Label{Ret: "yes"}}}, `returns true or false, got "yes"`},
		{Queue, []step{{true, "a", Label{Method: Add}}}, "takes an argument"},
		{Queue, []step{{true, "a", Label{Method: Rem, Arg: "x"}}}, "takes no argument"},
		{Queue, []step{{true, "a", Label{Method: Contains, Arg: "x"}}}, "not a method of atomic-queue"},
		{Queue, []step{{true, "a", Label{Method: Add, Arg: "1"}}, {false, "a", Label{Ret: "1"}}}, "returns nothing"},
		{Stack, []step{{true, "a", Label{Method: Rem}}, {false, "a", Label{}}}, "returns a value, got none"},
		{Stack, []step{{true, "a", Label{Method: Add, Arg: "1", Prio: 3}}}, "priority"},
		{Stack, []step{{false, "a", Label{Ret: "1"}}}, "return without call"},
		{Stack, []step{{true, "a", Label{Method: Rem}}, {true, "a", Label{Method: Rem}}}, "duplicate id"},
		{Register, []step{{true, "", Label{Method: Read}}}, "empty operation id"},
		{Lock, []step{{true, "a", Label{Method: LockM}}, {false, "a", Label{Method: Unlock, Ret: ""}}}, "called as lock"},
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
				_, err = m.Step(Action{Kind: ReturnAction, ID: s.id, Label: s.l})
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
		obj   Object
		param string
		ok    bool
	}{
		{Semaphore, "abc", false}, {Semaphore, "0", false}, {Semaphore, "-2", false}, {Semaphore, "2", true}, {Semaphore, "", true},
		{Register, "7", true}, {Register, "a b", false}, {Queue, "3", false}, {Queue, "", true}, {NoObject, "", false},
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
		m, err := New(Queue, "", opt)
		if err != nil {
			t.Fatal(err)
		}
		acts := []Action{
			{Kind: CallAction, ID: "1", Label: Label{Method: Add, Arg: "1"}},
			{Kind: ReturnAction, ID: "1"},
			{Kind: CallAction, ID: "2", Label: Label{Method: Add, Arg: "2"}},
			{Kind: ReturnAction, ID: "2"},
			{Kind: CallAction, ID: "3", Label: Label{Method: Rem}},
			{Kind: ReturnAction, ID: "3", Label: Label{Ret: "2"}},
		}
		for _, a := range acts {
			if _, err := m.Step(a); err != nil {
				t.Fatal(err)
			}
		}
		if r := m.Result(); r.Verdict != Violation || *r.ViolationStep != 6 {
			t.Errorf("%s: verdict %s at %v, want a violation at step 6", opt.Name(), r.Verdict, deref(r.ViolationStep))
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
		hist := randomHistory(rng, obj, 8)
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
						k, res[k].Verdict, deref(res[k].ViolationStep), res[0].Verdict, deref(res[0].ViolationStep), hist)
				}
			}
		}
	}
}

// Check's interval convention: a precedes b iff a.Return < b.Call.
func TestCheckIntervals(t *testing.T) {
	enq := func(v Value, call, ret int64) Operation {
		return Operation{Label: Label{Method: Add, Arg: v}, Call: call, Return: ret}
	}
	deq := func(v Value, call, ret int64) Operation {
		return Operation{Label: Label{Method: Rem, Ret: v}, Call: call, Return: ret}
	}
	exact := Options{Algorithm: Symbolic}
	for _, c := range []struct {
		ops  []Operation
		want Verdict
	}{
		{[]Operation{enq("1", 0, 10), enq("2", 11, 20), deq("2", 30, 40)}, Violation}, // 10 < 11: ordered
		{[]Operation{enq("1", 0, 10), enq("2", 10, 20), deq("2", 30, 40)}, OK},        // touching: overlap
		{[]Operation{enq("1", 0, 10), deq(Empty, 5, 7)}, OK},
		{[]Operation{enq("1", 0, 10), deq(Empty, 11, 12)}, Violation},
		{[]Operation{enq("2", 50, 60), enq("1", 0, 10), deq("2", 70, 80)}, Violation}, // any order of ops
		{[]Operation{enq("1", 0, 10), {Label: Label{Method: Rem, Pending: true}, Call: 20}}, OK},
	} {
		res, err := CheckOperations(context.Background(), Queue, "", c.ops, exact)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != c.want || !res.Exact {
			t.Errorf("%v: %s (exact %v), want %s", c.ops, res.Verdict, res.Exact, c.want)
		}
	}
	_, err := Check(context.Background(), Queue, []Operation{enq("1", 10, 5)})
	if err == nil || !strings.Contains(err.Error(), "before its call") {
		t.Errorf("a return before its call: %v", err)
	}
	res, err := Check(context.Background(), Set, []Operation{{Label: Label{Method: Add, Arg: "x", Ret: "yes"}, Call: 1, Return: 2}})
	if err == nil || res.Verdict != Error {
		t.Errorf("an ill-typed operation: %s, %v", res.Verdict, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := Check(ctx, Queue, []Operation{enq("1", 0, 1)}); err != nil || res.Verdict != Timeout {
		t.Errorf("a done context: %s, %v; want timeout", res.Verdict, err)
	}
}

// CheckHistory's contract: verdict Error comes with a Go error.
func TestCheckHistoryError(t *testing.T) {
	hist := &h.History{Object: Set, Ops: []Op{{ID: "a", Label: Label{Method: Add, Arg: "x", Ret: "yes"}, Call: 0, Return: 1}}}
	res, err := CheckHistory(hist, Options{})
	if err == nil || res.Verdict != Error || res.Error == "" {
		t.Errorf("ill-typed history: verdict %s, error %v", res.Verdict, err)
	}
	res, err = CheckHistory(&h.History{Object: Semaphore, Param: "abc"}, Options{})
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
