package monitor

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/engine"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testhist"
	"github.com/satmon/satmon/internal/testutil"
)

// The library's vocabulary is numbered as internal/history's, which the
// conversions rely on: every constant must name the same thing.
func TestVocabulary(t *testing.T) {
	t.Parallel()
	objects := []Object{NoObject, Queue, Stack, PQueue, Set, Register, Lock, Semaphore, Exchanger, CASRegister, StringRegister}
	want := append([]h.Object{h.NoObject}, h.Objects...)
	if len(objects) != len(want) {
		t.Fatalf("%d objects, internal/history has %d", len(objects), len(want))
	}
	for i, o := range objects {
		if h.Object(o) != want[i] || o.String() != want[i].String() {
			t.Errorf("object %d: %v, internal/history's %v", i, o, want[i])
		}
	}
	methods := map[Method]h.Method{Add: h.Add, Rem: h.Rem, Contains: h.Contains, Write: h.Write, Read: h.Read, LockM: h.LockM,
		Unlock: h.Unlock, Acquire: h.Acquire, Release: h.Release, Exchange: h.Exchange, CAS: h.CAS, Append: h.Append}
	for m, hm := range methods {
		if h.Method(m) != hm || m.String() != hm.String() {
			t.Errorf("method %v: internal/history's %v", m, hm)
		}
	}
	values := map[Value]h.Value{Void: h.Void, Empty: h.Empty, True: h.True, False: h.False, Null: h.Null, Nil: h.Nil, CASOK: h.OK, CASFail: h.Fail}
	for v, hv := range values {
		if h.Value(v) != hv {
			t.Errorf("value %q: internal/history's %q", v, hv)
		}
	}
	verdicts := map[Verdict]engine.Verdict{OK: engine.OK, Violation: engine.Violation, Timeout: engine.Timeout, Error: engine.Error}
	for v, ev := range verdicts {
		if string(v) != string(ev) {
			t.Errorf("verdict %q: the engine's %q", v, ev)
		}
	}
	algs := map[Algorithm]engine.Algorithm{Enumerate: engine.Enumerate, Symbolic: engine.Symbolic, Saturate: engine.Saturate}
	for a, ea := range algs {
		if engine.Algorithm(a) != ea {
			t.Errorf("algorithm %d: the engine's %v", a, ea)
		}
	}
	l := Label{Method: CAS, Arg: "2", Old: "1", Prio: 3, Ret: CASOK, Pending: true}
	if labelOf(l.internal()) != l || l.String() != l.internal().String() {
		t.Errorf("label %v does not survive the round trip", l)
	}
}

// operations turns a history into the library's operations, in the order
// of their calls (so that an index is also a Monitor's call number).
func operations(hist *h.History) ([]Operation, []h.Op) {
	hops := slices.Clone(hist.Ops)
	slices.SortStableFunc(hops, func(a, b h.Op) int { return a.Call - b.Call })
	ops := make([]Operation, len(hops))
	for i, o := range hops {
		ops[i] = Operation{Label: labelOf(o.Label), Call: int64(o.Call), Return: int64(o.Return)}
	}
	return ops, hops
}

// Check, a Monitor fed the same calls and returns, and the engine's own
// CheckOperations (the CLI's path) agree on the verdict, the operation
// that proved a violation and its step, on random histories of every
// object, with the default and an exact algorithm.
func TestCheckAgreesWithEngine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(37, 39))
	violations := 0
	for _, obj := range h.Objects {
		for range testutil.Scale(30) {
			hist := testhist.RandomHistory(rng, obj, 8)
			ops, hops := operations(hist)
			for _, a := range []Algorithm{Saturate, Symbolic} {
				c := configure([]Option{WithAlgorithm(a)})
				eops := make([]engine.Operation, len(ops))
				for i, o := range ops {
					eops[i] = engine.Operation{Label: o.Label.internal(), Call: o.Call, Return: o.Return}
				}
				er, eerr := engine.CheckOperations(ctx, hist.Object, hist.Param, eops, c.Opt)
				want := fromEngine(er, opIndex)
				got, err := Check(ctx, Object(obj), ops, WithAlgorithm(a), WithParam(hist.Param))
				if (err != nil) != (eerr != nil) {
					t.Fatalf("%v: Check error %v, engine's %v\n%v", obj, err, eerr, hist)
				}
				if err != nil {
					continue
				}
				show := func(r Result) string {
					return fmt.Sprintf("%v exact %v by %s, op %d at step %d, %d ops %d steps", r.Verdict, r.Exact, r.Algorithm, r.ViolationOp, r.ViolationStep, r.Operations, r.Steps)
				}
				if show(got) != show(want) {
					t.Fatalf("%v %v:\n Check  %s\n engine %s\n%v", obj, a, show(got), show(want), hist)
				}
				if got.Verdict == Violation {
					violations++
				}

				m, err := NewMonitor(ctx, Object(obj), WithAlgorithm(a), WithParam(hist.Param))
				if err != nil {
					t.Fatal(err)
				}
				index := map[string]int{}
				for i, o := range hops {
					index[o.ID] = i
				}
				for _, act := range engine.Actions(&h.History{Object: hist.Object, Param: hist.Param, Ops: hops}) {
					if act.Kind == h.Call {
						err = m.Call(act.ID, labelOf(act.Label))
					} else {
						_, err = m.Return(act.ID, Value(act.Label.Ret))
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				mr := m.Result()
				// A monitor does not know the history is finite: it
				// decides at each return (the same verdict, maybe by
				// another variant's name: compare what it proved).
				if mr.Verdict == Violation || want.Verdict == Violation {
					if mr.Verdict != want.Verdict || mr.ViolationOp != want.ViolationOp || mr.ViolationStep != want.ViolationStep {
						t.Fatalf("%v %v:\n Monitor %s\n engine  %s\n%v", obj, a, show(mr), show(want), hist)
					}
				}
			}
		}
	}
	if violations == 0 {
		t.Error("no violation among the random histories: the test compares nothing that matters")
	}
}

// WithExplanation's core is a set of operations whose sub-history alone
// is not linearizable, and its witness a linearization: the operations
// in its order, one after the other, are linearizable, and the order
// keeps real time.
func TestExplanation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(39, 37))
	cores, witnesses := 0, 0
	for _, obj := range h.Objects {
		if obj == h.Exchanger { // not sequential: its witness is a pairing
			continue
		}
		for range testutil.Scale(20) {
			hist := testhist.RandomHistory(rng, obj, 8)
			ops, _ := operations(hist)
			res, err := Check(ctx, Object(obj), ops, WithAlgorithm(Symbolic), WithParam(hist.Param), WithExplanation())
			if err != nil {
				continue
			}
			exact := []Option{WithAlgorithm(Symbolic), WithParam(hist.Param)}
			switch res.Verdict {
			case Violation:
				if len(res.Core) == 0 {
					if res.Note == "" {
						t.Errorf("%v: a violation without core or note\n%v", obj, hist)
					}
					continue
				}
				var sub []Operation
				for _, i := range res.Core {
					sub = append(sub, ops[i])
				}
				if r, err := Check(ctx, Object(obj), sub, exact...); err != nil || r.Verdict != Violation {
					t.Errorf("%v: core %v is %v (%v)\n%v", obj, res.Core, r.Verdict, err, hist)
				}
				cores++
			case OK:
				if res.Witness == nil {
					if res.Note == "" && len(ops) > 0 {
						t.Errorf("%v: an exact ok without witness or note\n%v", obj, hist)
					}
					continue
				}
				seen := map[int]bool{}
				var seq []Operation
				for p, i := range res.Witness {
					if seen[i] {
						t.Fatalf("%v: operation %d twice in the witness %v", obj, i, res.Witness)
					}
					seen[i] = true
					for _, j := range res.Witness[p+1:] {
						if !ops[j].Label.Pending && ops[j].Return < ops[i].Call {
							t.Errorf("%v: witness %v puts %d before %d, which returned before it was called\n%v", obj, res.Witness, i, j, hist)
						}
					}
					o := ops[i]
					o.Call, o.Return = int64(2*p), int64(2*p+1)
					seq = append(seq, o)
				}
				for i, o := range ops {
					if !o.Label.Pending && !seen[i] {
						t.Errorf("%v: operation %d returned but is not in the witness %v", obj, i, res.Witness)
					}
				}
				if r, err := Check(ctx, Object(obj), seq, exact...); err != nil || r.Verdict != OK {
					t.Errorf("%v: the witness %v, one after the other, is %v (%v)\n%v", obj, res.Witness, r.Verdict, err, hist)
				}
				witnesses++
			}
		}
	}
	if cores == 0 || witnesses == 0 {
		t.Errorf("%d cores and %d witnesses checked: the histories should give both", cores, witnesses)
	}
}
