package encode

import (
	"fmt"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/saturate"
	"github.com/satmon/satmon/theory"
)

// satSink runs the encoder's clauses through the saturator, the way
// SATURATE does, for the tests of the lazy transitivity.
type satSink struct{ s *saturate.Solver }

func (k satSink) NewVar() z.Var { return k.s.NewVar() }

func (k satSink) AddClause(lits []Lit) { k.s.AddClause(lits...) }

func (k satSink) Assignment() *[]z.Value { return k.s.Assignment() }

// saturate propagates and feeds new facts back until nothing is new.
func (k satSink) saturate(t *testing.T, e *Encoder) {
	for {
		if !k.s.Propagate() {
			t.Fatal("unexpected conflict")
		}
		lits := k.s.TakeAssigned()
		if len(lits) == 0 && !e.Waiting() {
			return
		}
		e.Assigned(lits)
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
	e := New(k, sink, Config{Lazy: sink})
	return e, sink
}

// A triangle clause can become unit when its last guard does: y returned
// before p was called, p, overlapping x, is pending, and one more fact is
// known. Only when p returns does transitivity give the third; the lazy
// grounding must see it from the new used(p) alone. With x→y known that
// is x→p (p→x→y→p); with p→x known, y→x.
func TestLazyTransitivityUsedEvent(t *testing.T) {
	t.Parallel()
	const x, y, p = 1, 2, 3
	for _, c := range []struct {
		fact, want [2]int
	}{{[2]int{x, y}, [2]int{x, p}}, {[2]int{p, x}, [2]int{y, x}}} {
		e, sink := lazyEncoder(t, h.Stack)
		add := func(v string) h.Label { return h.Label{Method: h.Add, Arg: h.Value(v)} }
		e.Call(Op{Serial: x, Label: add("1"), Call: 0})
		e.Call(Op{Serial: y, Label: add("2"), Call: 1})
		e.Return(y, h.Void, 2)
		e.Call(Op{Serial: p, Label: add("3"), Call: 3}) // after y, during x
		e.Return(x, h.Void, 4)
		fact, _ := e.BLit(c.fact[0], c.fact[1])
		want, _ := e.BLit(c.want[0], c.want[1])
		if fact == z.LitNull || want == z.LitNull {
			t.Fatalf("b%v and b%v should be variables: the pairs overlap", c.fact, c.want)
		}
		sink.AddClause([]Lit{fact})
		sink.saturate(t, e)
		if v := sink.s.Value(want); v != 0 {
			t.Fatalf("with b%v: b%v = %d while p is pending and maybe unused; want unknown", c.fact, c.want, v)
		}
		e.Return(p, h.Void, 5)
		sink.saturate(t, e)
		if v := sink.s.Value(want); v != 1 {
			t.Fatalf("with b%v, after p returned: b%v = %d; want true", c.fact, c.want, v)
		}
	}
}

// The plain case: three overlapping operations, all returned; once x→y
// and y→z are facts, so is x→z, and z→x is a conflict.
func TestLazyTransitivityEdgeEvent(t *testing.T) {
	t.Parallel()
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
	if xy == z.LitNull || yz == z.LitNull || xz == z.LitNull {
		t.Fatal("overlapping pairs should have variables")
	}
	sink.AddClause([]Lit{xy})
	sink.saturate(t, e)
	if v := sink.s.Value(xz); v != 0 {
		t.Fatalf("b(x,z) = %d from x→y alone; want unknown", v)
	}
	sink.AddClause([]Lit{yz})
	sink.saturate(t, e)
	if v := sink.s.Value(xz); v != 1 {
		t.Fatalf("b(x,z) = %d after x→y and y→z; want true", v)
	}
}

// TestLazyTransitivityEdgeCandidates gives each kind of third operation
// that edgeAssigned visits for a new fact p→q a case of its own: z known
// after q, z known before p, z after q in real time, z before p in real
// time. In each, the last fact asserted makes the expected one unit, and
// nothing else does.
func TestLazyTransitivityEdgeCandidates(t *testing.T) {
	t.Parallel()
	type span struct{ call, ret int }
	cases := []struct {
		name string
		ops  []span // serials 1, 2, 3, in call order
		// facts are asserted in order: b(x,y) for each pair of serials.
		facts [][2]int
		want  [2]int
	}{
		{"z known after q", []span{{0, 3}, {1, 4}, {2, 5}}, [][2]int{{2, 3}, {1, 2}}, [2]int{1, 3}},
		{"z known before p", []span{{0, 3}, {1, 4}, {2, 5}}, [][2]int{{1, 2}, {2, 3}}, [2]int{1, 3}},
		// p = 1 overlaps q = 2 and z = 3; q returned before z was called.
		{"z after q in real time", []span{{0, 5}, {1, 2}, {3, 4}}, [][2]int{{1, 2}}, [2]int{1, 3}},
		// z = 1 returned before p = 3 was called; q = 2 overlaps both.
		{"z before p in real time", []span{{0, 2}, {1, 4}, {3, 5}}, [][2]int{{3, 2}}, [2]int{1, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, sink := lazyEncoder(t, h.Queue)
			type ev struct{ at, serial int }
			var events []ev
			for i, s := range c.ops {
				events = append(events, ev{s.call, i + 1}, ev{s.ret, -(i + 1)})
			}
			for at := 0; at <= 2*len(c.ops); at++ {
				for _, v := range events {
					switch {
					case v.at != at:
					case v.serial > 0:
						e.Call(Op{Serial: v.serial, Label: h.Label{Method: h.Add, Arg: h.Value(rune('0' + v.serial))}, Call: at})
					default:
						e.Return(-v.serial, h.Void, at)
					}
				}
			}
			sink.saturate(t, e)
			want, _ := e.BLit(c.want[0], c.want[1])
			if want == z.LitNull {
				t.Fatalf("b%v should be a variable", c.want)
			}
			for i, f := range c.facts {
				if v := sink.s.Value(want); v != 0 {
					t.Fatalf("b%v = %d before fact %d; want unknown", c.want, v, i+1)
				}
				l, _ := e.BLit(f[0], f[1])
				if l == z.LitNull {
					t.Fatalf("b%v should be a variable", f)
				}
				sink.AddClause([]Lit{l})
				sink.saturate(t, e)
			}
			if v := sink.s.Value(want); v != 1 {
				t.Fatalf("b%v = %d after the facts; want true", c.want, v)
			}
		})
	}
}

// TestLazyTransitivityUsedEventPairs covers the cycles p→x→y→p with x
// and y both overlapping p: two of the three facts are known while p is
// pending, and only p's return makes the third follow.
func TestLazyTransitivityUsedEventPairs(t *testing.T) {
	t.Parallel()
	const x, y, p = 1, 2, 3
	cases := []struct {
		name  string
		facts [][2]int
		want  [2]int
	}{
		{"p→x and y→p give y→x", [][2]int{{p, x}, {y, p}}, [2]int{y, x}},
		{"p→x and x→y give p→y", [][2]int{{p, x}, {x, y}}, [2]int{p, y}},
		{"x→y and y→p give x→p", [][2]int{{x, y}, {y, p}}, [2]int{x, p}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, sink := lazyEncoder(t, h.Queue)
			for i := 1; i <= 3; i++ {
				e.Call(Op{Serial: i, Label: h.Label{Method: h.Add, Arg: h.Value(rune('0' + i))}, Call: i})
			}
			e.Return(x, h.Void, 4)
			e.Return(y, h.Void, 5)
			for _, f := range c.facts {
				l, _ := e.BLit(f[0], f[1])
				if l == z.LitNull {
					t.Fatalf("b%v should be a variable", f)
				}
				sink.AddClause([]Lit{l})
			}
			sink.saturate(t, e)
			want, _ := e.BLit(c.want[0], c.want[1])
			if want == z.LitNull {
				t.Fatalf("b%v should be a variable", c.want)
			}
			if v := sink.s.Value(want); v != 0 {
				t.Fatalf("b%v = %d while p is pending and maybe unused; want unknown", c.want, v)
			}
			e.Return(p, h.Void, 6)
			sink.saturate(t, e)
			if v := sink.s.Value(want); v != 1 {
				t.Fatalf("after p returned, b%v = %d; want true", c.want, v)
			}
		})
	}
}

// TestOrderShortcutsExact grounds random histories of every kernel with
// edgeAssigned and with edgeAssignedPlain, edgeAssigned without its
// shortcuts, over saturators whose facts feed back, forgetting returned
// operations at random, and requires the same clauses in the same order:
// a shortcut only spares work, never changes what is emitted. Pending
// operations that never return make the long p.conc lists the shortcuts
// are for.
func TestOrderShortcutsExact(t *testing.T) {
	for _, obj := range h.Objects {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		if !k.Sequential {
			continue // no lazy transitivity
		}
		for seed := int64(1); seed <= seeds(30); seed++ {
			cfg := gen.Config{Object: obj, Ops: 60, Concurrency: 2 + int(seed%7), Capacity: 4,
				Pending: int(seed % 4), Seed: seed, Mutate: int(seed % 2), Values: int(seed % 4)}
			if seed%3 == 0 {
				// Long windows: stalled operations overlap everything.
				cfg.Ops, cfg.Concurrency, cfg.Pending = 150, 8, 1+int(seed%3)
			}
			cfg.Pending = min(cfg.Pending, cfg.Concurrency)
			acts := generate(t, cfg)
			// The open lists (openAfter) are read for every part of
			// p.conc called after q once openScan is 0.
			for _, scan := range []int{16, 0} {
				openScan = scan
				compareVariants(t, fmt.Sprintf("%v/seed%d/openScan=%d", obj, seed, scan), k, acts, true, seed,
					[2]string{"plain", "with shortcuts"}, func(e *Encoder, first bool) {
						if first {
							e.test().plainEdge = e.edgeAssignedPlain
						}
					})
			}
			openScan = 16
		}
	}
}

// edgeAssignedPlain is edgeAssigned as it was before its shortcuts (the
// literal an operation remembers, Op.bFromKey, and the edges passed to
// checkCycle as known): every edge is read by checkCycle, every literal
// looked up in the table.
func (e *Encoder) edgeAssignedPlain(p, q *Op, l Lit) {
	p.succ = e.tab.push(p.succ, q)
	q.pred = e.tab.push(q.pred, p)
	e.stamp++
	seen := e.stamp
	p.mark, q.mark = seen, seen
	// Each z is visited once (marked seen): the loops below test the
	// mark themselves, with no closure to call per z.
	pq := edgeVal{l: l, t: vTrue, known: true, read: true}
	for _, z := range q.succ {
		if z.mark != seen {
			z.mark = seen
			e.lazy.checkCycle(p, q, z, pq, edgeVal{}, edgeVal{})
		}
	}
	for _, z := range p.pred {
		if z.mark != seen {
			z.mark = seen
			e.lazy.checkCycle(p, q, z, pq, edgeVal{}, edgeVal{})
		}
	}
	// For these z two edges of the cycle are true (p→q, and q→z or z→p
	// by real time), so the third decides: if its variable is false the
	// clause is satisfied, whether Assigned was told so (checkCycle reads
	// it from the lists) or it was assigned in the batch being told
	// (checkCycle asks the solver). Asking first spares the list scans of
	// the many z for which it is: p→z is mostly known or derived in the
	// same batch as p→q.
	// The z in p.succ have z→p false, told: they are marked first, so
	// that only the others are looked up, when the part of p.conc called
	// after q is longer than p.succ (a stalled p has most of the window
	// in its conc, and p→z is known for most of it).
	after := e.lazy.calledAfter(p.conc, q)
	if len(after) > len(p.succ) {
		for _, z := range p.succ {
			z.mark = seen
		}
	}
	// z is called after p while serials follow calls (p→q is not false
	// by real time, so p was called before q returned): b(p,z) is then
	// the variable, and its key differs from p's prefix only in z's
	// serial.
	kp := varPair{vB, int32(p.Serial), 0}.key()
	for _, z := range after {
		if before(q, z) && z.mark != seen {
			if z.Serial > p.Serial {
				if pz, ok := e.reg.vars.get(kp | uint64(uint32(z.Serial))); ok && e.val(pz) == 1 {
					z.mark = seen
					continue
				}
			} else if zp, ok := e.reg.bExisting(z, p); ok && e.val(zp) == -1 {
				z.mark = seen
				continue
			}
			z.mark = seen
			e.lazy.checkCycle(p, q, z, pq, edgeVal{}, edgeVal{})
		}
	}
	// z returned before p was called, so was called before p: while
	// calls are in window order (opTable.unordered), q.conc is read up to
	// the first operation called after p.
	ordered := !e.tab.unordered
	for _, z := range q.conc {
		if ordered && z.Call > p.Call {
			break
		}
		if before(z, p) && z.mark != seen {
			if qz, ok := e.reg.bExisting(q, z); ok && e.val(qz) == -1 {
				z.mark = seen
				continue
			}
			z.mark = seen
			e.lazy.checkCycle(p, q, z, pq, edgeVal{}, edgeVal{})
		}
	}
}
