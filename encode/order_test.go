package encode

import (
	"testing"

	h "github.com/satmon/satmon/monitor/history"
	"github.com/satmon/satmon/saturate"
	"github.com/satmon/satmon/theory"
)

// satSink runs the encoder's clauses through the saturator, the way
// SATURATE does, for the tests of the lazy transitivity.
type satSink struct{ s *saturate.Solver }

func (k satSink) NewVar() int { return int(k.s.NewVar()) }

func (k satSink) AddClause(lits []Lit) {
	var cl []saturate.Lit
	for _, l := range lits {
		cl = append(cl, saturate.FromDimacs(l))
	}
	k.s.AddClause(cl...)
}

func (k satSink) Value(l Lit) int8 {
	// saturate.Value already is +1, -1 or 0.
	return int8(k.s.Value(saturate.FromDimacs(l)))
}

// saturate propagates and feeds new facts back until nothing is new.
func (k satSink) saturate(t *testing.T, e *Encoder) {
	for {
		if !k.s.Propagate() {
			t.Fatal("unexpected conflict")
		}
		lits := k.s.TakeAssigned()
		if len(lits) == 0 {
			return
		}
		var out []Lit
		for _, l := range lits {
			out = append(out, l.Dimacs())
		}
		e.Assigned(out)
	}
}

// lazyEncoder is SATURATE's set-up: an encoder with lazy transitivity over
// an observed saturator.
func lazyEncoder(t *testing.T, obj h.Object) (*Encoder, satSink) {
	k, err := theory.KernelOf(obj, "")
	if err != nil {
		t.Fatal(err)
	}
	sink := satSink{saturate.New()}
	sink.s.Observe()
	e := New(k, sink)
	e.LazyTransitivity(sink)
	return e, sink
}

// A triangle clause can become unit when its last guard does: x→y is
// known, y returned before p was called, and p, overlapping x, was
// pending. Only when p returns does transitivity give x→p; the lazy
// grounding must see it from the new used(p) alone.
func TestLazyTransitivityUsedEvent(t *testing.T) {
	e, sink := lazyEncoder(t, h.Stack)
	add := func(v string) h.Label { return h.Label{Method: h.Add, Arg: h.Value(v)} }
	e.Call(Op{Serial: 1, Label: add("1"), Call: 0}) // x
	e.Call(Op{Serial: 2, Label: add("2"), Call: 1}) // y
	e.Return(2, h.Void, 2)
	e.Call(Op{Serial: 3, Label: add("3"), Call: 3}) // p: after y, during x
	e.Return(1, h.Void, 4)
	xy, _ := e.BLit(1, 2)
	if xy == 0 {
		t.Fatal("b(x,y) should be a variable: x and y overlap")
	}
	sink.AddClause([]Lit{xy})
	sink.saturate(t, e)
	xp, _ := e.BLit(1, 3)
	if xp == 0 {
		t.Fatal("b(x,p) should be a variable: x and p overlap")
	}
	if v := sink.Value(xp); v != 0 {
		t.Fatalf("b(x,p) = %d while p is pending and maybe unused; want unknown", v)
	}
	e.Return(3, h.Void, 5)
	sink.saturate(t, e)
	if v := sink.Value(xp); v != 1 {
		t.Fatalf("after p returned, b(x,p) = %d; want true (x→y, y before p)", v)
	}
}

// The plain case: three overlapping operations, all returned; once x→y
// and y→z are facts, so is x→z, and z→x is a conflict.
func TestLazyTransitivityEdgeEvent(t *testing.T) {
	e, sink := lazyEncoder(t, h.Queue)
	for i := 1; i <= 3; i++ {
		e.Call(Op{Serial: i, Label: h.Label{Method: h.Add, Arg: h.Value(rune('0' + i))}, Call: i})
	}
	for i := 1; i <= 3; i++ {
		e.Return(i, h.Void, 3+i)
	}
	sink.saturate(t, e)
	xy, _ := e.BLit(1, 2)
	yz, _ := e.BLit(2, 3)
	xz, _ := e.BLit(1, 3)
	if xy == 0 || yz == 0 || xz == 0 {
		t.Fatal("overlapping pairs should have variables")
	}
	sink.AddClause([]Lit{xy})
	sink.saturate(t, e)
	if v := sink.Value(xz); v != 0 {
		t.Fatalf("b(x,z) = %d from x→y alone; want unknown", v)
	}
	sink.AddClause([]Lit{yz})
	sink.saturate(t, e)
	if v := sink.Value(xz); v != 1 {
		t.Fatalf("b(x,z) = %d after x→y and y→z; want true", v)
	}
}
