package encode

import (
	"cmp"
	"slices"
	"strconv"
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/saturate"
	"github.com/satmon/satmon/theory"
)

// pendingRemove sets up queueEncoder with two returned adds, add(1) and
// add(3) (serials 1 and 3), and a pending remove y (serial 4).
func pendingRemove(t *testing.T, lazy bool) (*Encoder, satSink) {
	e, k := queueEncoder(t, lazy)
	e.Call(Op{Serial: 1, Label: h.Label{Method: h.Add, Arg: "1"}, Call: 0})
	e.Return(1, h.Void, 1)
	e.Call(Op{Serial: 3, Label: h.Label{Method: h.Add, Arg: "3"}, Call: 2})
	e.Return(3, h.Void, 3)
	e.Call(Op{Serial: 4, Label: h.Label{Method: h.Rem}, Call: 4})
	return e, k
}

// queueEncoder is SATURATE's encoder for a queue over an observed
// saturator: lazy, or with the eager side and matching clauses.
func queueEncoder(t *testing.T, lazy bool) (*Encoder, satSink) {
	kern, err := theory.KernelOf(h.Queue, "")
	if err != nil {
		t.Fatal(err)
	}
	k := satSink{saturate.New()}
	k.s.Observe()
	cfg := Config{EagerMatching: true}
	if lazy {
		cfg = Config{Lazy: k}
	}
	e := New(kern, k, cfg)
	return e, k
}

// TestLazySideConditions checks each event of lazyret.go on a pending
// remove y (serial 4) with partners x and z (returned adds 1 and 3): what unit propagation
// derives about y's used, match and ret variables must be what the eager
// clauses (ladder and USED) give. Random histories rarely reach the
// used(y)-false and match-true cases, so each has its own case here.
func TestLazySideConditions(t *testing.T) {
	t.Parallel()
	type vars struct{ used, m, r1, r2 Lit }
	cases := []struct {
		name string
		// run asserts facts and creates variables; it returns the literals
		// that must then be true.
		run func(e *Encoder, k satSink, v vars, sat func()) []Lit
	}{
		{"match true makes used true", func(e *Encoder, k satSink, v vars, sat func()) []Lit {
			k.AddClause([]Lit{v.m})
			return []Lit{v.used}
		}},
		{"ret true excludes the other values and makes used true", func(e *Encoder, k satSink, v vars, sat func()) []Lit {
			k.AddClause([]Lit{v.r1})
			return []Lit{v.used, v.r2.Not()}
		}},
		{"used false makes match and ret false", func(e *Encoder, k satSink, v vars, sat func()) []Lit {
			k.AddClause([]Lit{v.used.Not()})
			return []Lit{v.m.Not(), v.r1.Not(), v.r2.Not()}
		}},
		{"variables made after used is false are false", func(e *Encoder, k satSink, v vars, sat func()) []Lit {
			k.AddClause([]Lit{v.used.Not()})
			sat()
			r3 := e.variable(varKey{kind: vRet, x: 4, v: "3"})
			m3 := e.variable(varKey{kind: vMatch, x: 3, y: 4})
			e.match.flushMatches()
			return []Lit{r3.Not(), m3.Not()}
		}},
		{"a ret variable made after another is true is false", func(e *Encoder, k satSink, v vars, sat func()) []Lit {
			k.AddClause([]Lit{v.r1})
			sat()
			return []Lit{e.variable(varKey{kind: vRet, x: 4, v: "3"}).Not()}
		}},
	}
	for _, c := range cases {
		for _, lazy := range []bool{true, false} {
			e, k := pendingRemove(t, lazy)
			v := vars{used: e.used(e.tab.op(4))}
			v.m = e.variable(varKey{kind: vMatch, x: 1, y: 4})
			v.r1 = e.variable(varKey{kind: vRet, x: 4, v: "1"})
			v.r2 = e.variable(varKey{kind: vRet, x: 4, v: "2"})
			e.match.flushMatches()
			k.saturate(t, e)
			want := c.run(e, k, v, func() { k.saturate(t, e) })
			k.saturate(t, e)
			for _, l := range want {
				if k.s.Value(l) != 1 {
					t.Errorf("%s (lazy %v): literal %v is %d, want true", c.name, lazy, l, k.s.Value(l))
				}
			}
		}
	}
}

// TestLazyMatchClause checks each event of lazypair.go: MATCH's clause
// ¬match(x,y) ∨ ret(y)=arg(x) for the pending remove y must give what the
// eager clause gives. Random histories do not reach a return variable
// made false by another axiom, so that case is here.
func TestLazyMatchClause(t *testing.T) {
	t.Parallel()
	match := func(e *Encoder, x int) Lit {
		m := e.variable(varKey{kind: vMatch, x: x, y: 4})
		e.match.flushMatches()
		return m
	}
	ret := func(e *Encoder, v h.Value) Lit { return e.variable(varKey{kind: vRet, x: 4, v: v}) }
	cases := []struct {
		name string
		// run asserts facts; it returns the literals that must then hold.
		run func(e *Encoder, k satSink, sat func()) []Lit
	}{
		{"match true makes the value true", func(e *Encoder, k satSink, sat func()) []Lit {
			m := match(e, 1)
			k.AddClause([]Lit{m})
			sat()
			return []Lit{ret(e, "1")}
		}},
		{"value false makes match false", func(e *Encoder, k satSink, sat func()) []Lit {
			m := match(e, 1)
			r := ret(e, "1")
			sat()
			k.AddClause([]Lit{r.Not()})
			return []Lit{m.Not()}
		}},
		{"another value true makes match false", func(e *Encoder, k satSink, sat func()) []Lit {
			m := match(e, 1)
			sat()
			k.AddClause([]Lit{ret(e, "3")})
			return []Lit{m.Not()}
		}},
		{"match made after another value is true is false", func(e *Encoder, k satSink, sat func()) []Lit {
			k.AddClause([]Lit{ret(e, "3")})
			sat()
			return []Lit{match(e, 1).Not()}
		}},
		{"returning another value makes match false", func(e *Encoder, k satSink, sat func()) []Lit {
			m := match(e, 3)
			sat()
			e.Return(4, "1", 5)
			return []Lit{m.Not()}
		}},
	}
	for _, c := range cases {
		for _, lazy := range []bool{true, false} {
			e, k := pendingRemove(t, lazy)
			k.saturate(t, e)
			want := c.run(e, k, func() { k.saturate(t, e) })
			k.saturate(t, e)
			for _, l := range want {
				if k.s.Value(l) != 1 {
					t.Errorf("%s (lazy %v): literal %v is %d, want true", c.name, lazy, l, k.s.Value(l))
				}
			}
		}
	}
}

// TestLazyExclusions checks INJECTIVE's clauses generated when unit
// (lazymatch.go): once add(1) is matched to one pending remove, its match
// with the other is false, whether that variable exists already or is
// made afterwards.
func TestLazyExclusions(t *testing.T) {
	t.Parallel()
	for _, later := range []bool{false, true} {
		for _, lazy := range []bool{true, false} {
			e, k := queueEncoder(t, lazy)
			e.Call(Op{Serial: 1, Label: h.Label{Method: h.Add, Arg: "1"}, Call: 0})
			e.Return(1, h.Void, 1)
			e.Call(Op{Serial: 4, Label: h.Label{Method: h.Rem}, Call: 2})
			e.Call(Op{Serial: 5, Label: h.Label{Method: h.Rem}, Call: 3})
			match := func(y int) Lit {
				m := e.variable(varKey{kind: vMatch, x: 1, y: y})
				e.match.flushMatches()
				return m
			}
			var other Lit
			if !later {
				other = match(5)
			}
			k.AddClause([]Lit{match(4)})
			k.saturate(t, e)
			if later {
				other = match(5)
				k.saturate(t, e)
			}
			if v := k.s.Value(other.Not()); v != 1 {
				t.Errorf("made later %v, lazy %v: ¬match(add(1), second remove) is %d, want true", later, lazy, v)
			}
		}
	}
}

// TestExcludedWitness: once add x1 is matched (to r1), FIFO's witnesses
// for x1 need no match variable with any other remove — INJECTIVE makes
// it false the moment it exists — so none is made; and FIFO, left with
// r1 as x1's only witness, still orders r1 before r2.
func TestExcludedWitness(t *testing.T) {
	t.Parallel()
	e, k := queueEncoder(t, true)
	add := func(v string) h.Label { return h.Label{Method: h.Add, Arg: h.Value(v)} }
	rem := h.Label{Method: h.Rem}
	e.Call(Op{Serial: 1, Label: add("1"), Call: 0}) // x1
	e.Return(1, h.Void, 1)
	e.Call(Op{Serial: 2, Label: add("2"), Call: 2}) // x2
	e.Return(2, h.Void, 3)
	e.Call(Op{Serial: 3, Label: rem, Call: 4}) // rp, pending throughout
	e.Call(Op{Serial: 4, Label: rem, Call: 5}) // r1
	e.Call(Op{Serial: 5, Label: rem, Call: 6}) // r2, overlapping r1
	e.Return(4, "1", 7)
	k.saturate(t, e)
	e.Return(5, "2", 8)
	k.saturate(t, e)
	if m, ok := e.reg.vars.get(varPair{vMatch, 1, 4}.key()); !ok || k.s.Value(m) != 1 {
		t.Fatal("match(x1,r1) should be a true variable")
	}
	if _, ok := e.reg.vars.get(varPair{vMatch, 1, 3}.key()); ok {
		t.Error("match(x1,rp) was made, though x1 is matched to r1")
	}
	if l, _ := e.BLit(4, 5); l == z.LitNull || k.s.Value(l) != 1 {
		t.Errorf("b(r1,r2) should be true: FIFO with r1 as x1's only witness")
	}
}

// TestRetTrueOrder makes one of a pending remove's several return
// variables true: retTrue's clauses against the others must come in the
// order the variables were made, whatever order Go's map gives o.rets.
func TestRetTrueOrder(t *testing.T) {
	t.Parallel()
	kern, err := theory.KernelOf(h.Queue, "")
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 20; round++ {
		sink := &recSink{s: saturate.New()}
		sink.s.Observe()
		e := New(kern, sink, Config{Lazy: sink})
		e.Call(Op{Serial: 1, Label: h.Label{Method: h.Rem}, Call: 0})
		var rets []Lit
		for v := 1; v <= 8; v++ {
			rets = append(rets, e.variable(varKey{kind: vRet, x: 1, v: h.Value(strconv.Itoa(v))}))
		}
		e.match.flushMatches()
		k := satSink{sink.s}
		k.saturate(t, e)
		from := len(sink.clauses)
		sink.AddClause([]Lit{rets[0]})
		k.saturate(t, e)
		var others []Lit
		for _, c := range sink.clauses[from:] {
			if len(c) == 2 && slices.Contains(c, rets[0].Not()) {
				w := c[0]
				if w == rets[0].Not() {
					w = c[1]
				}
				if slices.Contains(rets, w.Not()) {
					others = append(others, w.Not())
				}
			}
		}
		if len(others) != len(rets)-1 {
			t.Fatalf("round %d: %d clauses ¬r1 ∨ ¬w, want %d: %v", round, len(others), len(rets)-1, sink.clauses[from:])
		}
		if !slices.IsSortedFunc(others, func(a, b Lit) int { return cmp.Compare(a.Var(), b.Var()) }) {
			t.Fatalf("round %d: retTrue's clauses in map order: %v", round, others)
		}
	}
}
