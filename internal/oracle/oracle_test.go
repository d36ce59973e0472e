package oracle

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"

	"github.com/satmon/satmon/internal/history"
)

// op builds a complete operation from call to ret.
func op(id string, l history.Label, call, ret int) history.Op {
	return history.Op{ID: id, Label: l, Call: call, Return: ret}
}

func add(v string) history.Label {
	return history.Label{Method: history.Add, Arg: history.Value(v)}
}

func addP(v string, p int64) history.Label {
	return history.Label{Method: history.Add, Arg: history.Value(v), Prio: p}
}

func rem(v string) history.Label {
	return history.Label{Method: history.Rem, Ret: history.Value(v)}
}

func setOp(m history.Method, x string, ret bool) history.Label {
	r := history.False
	if ret {
		r = history.True
	}
	return history.Label{Method: m, Arg: history.Value(x), Ret: r}
}

func TestHandMade(t *testing.T) {
	cases := []struct {
		name string
		h    history.History
		want bool
	}{
		{"empty history", history.History{Object: history.Stack}, true},
		{"stack lifo", history.History{Object: history.Stack, Ops: []history.Op{
			op("1", add("a"), 0, 1), op("2", add("b"), 2, 3), op("3", rem("b"), 4, 5), op("4", rem("a"), 6, 7)}}, true},
		{"stack fifo order", history.History{Object: history.Stack, Ops: []history.Op{
			op("1", add("a"), 0, 1), op("2", add("b"), 2, 3), op("3", rem("a"), 4, 5), op("4", rem("b"), 6, 7)}}, false},
		{"stack concurrent pushes", history.History{Object: history.Stack, Ops: []history.Op{
			op("1", add("a"), 0, 3), op("2", add("b"), 1, 2), op("3", rem("a"), 4, 5), op("4", rem("b"), 6, 7)}}, true},
		{"queue fifo", history.History{Object: history.Queue, Ops: []history.Op{
			op("1", add("a"), 0, 1), op("2", add("b"), 2, 3), op("3", rem("a"), 4, 5), op("4", rem("b"), 6, 7)}}, true},
		{"queue lifo order", history.History{Object: history.Queue, Ops: []history.Op{
			op("1", add("a"), 0, 1), op("2", add("b"), 2, 3), op("3", rem("b"), 4, 5), op("4", rem("a"), 6, 7)}}, false},
		{"empty while full", history.History{Object: history.Queue, Ops: []history.Op{
			op("1", add("a"), 0, 1), op("2", rem(string(history.Empty)), 2, 3)}}, false},
		{"empty concurrent with add", history.History{Object: history.Queue, Ops: []history.Op{
			op("1", add("a"), 0, 3), op("2", rem(string(history.Empty)), 1, 2)}}, true},
		// Touching intervals are concurrent: Before needs Return < Call.
		{"touching is concurrent", history.History{Object: history.Queue, Ops: []history.Op{
			op("1", add("a"), 0, 2), op("2", rem(string(history.Empty)), 2, 3)}}, true},
		{"remove before add", history.History{Object: history.Stack, Ops: []history.Op{
			op("2", rem("a"), 0, 1), op("1", add("a"), 2, 3)}}, false},
		{"remove of unknown value", history.History{Object: history.Stack, Ops: []history.Op{
			op("1", add("a"), 0, 1), op("2", rem("b"), 2, 3)}}, false},
		{"pq max first", history.History{Object: history.PQueue, Ops: []history.Op{
			op("1", addP("a", 1), 0, 1), op("2", addP("b", 5), 2, 3), op("3", rem("b"), 4, 5), op("4", rem("a"), 6, 7)}}, true},
		{"pq min first", history.History{Object: history.PQueue, Ops: []history.Op{
			op("1", addP("a", 1), 0, 1), op("2", addP("b", 5), 2, 3), op("3", rem("a"), 4, 5), op("4", rem("b"), 6, 7)}}, false},
		{"pq concurrent add", history.History{Object: history.PQueue, Ops: []history.Op{
			op("1", addP("a", 1), 0, 1), op("2", addP("b", 5), 2, 5), op("3", rem("a"), 3, 4), op("4", rem("b"), 6, 7)}}, true},
		{"set add remove contains", history.History{Object: history.Set, Ops: []history.Op{
			op("1", setOp(history.Add, "x", true), 0, 1), op("2", setOp(history.Contains, "x", true), 2, 3),
			op("3", setOp(history.Rem, "x", true), 4, 5), op("4", setOp(history.Contains, "x", false), 6, 7)}}, true},
		{"set stale contains", history.History{Object: history.Set, Ops: []history.Op{
			op("1", setOp(history.Add, "x", true), 0, 1), op("2", setOp(history.Contains, "x", false), 2, 3)}}, false},
		{"set failed add needs presence", history.History{Object: history.Set, Ops: []history.Op{
			op("1", setOp(history.Add, "x", false), 0, 1)}}, false},
		{"set remove without add", history.History{Object: history.Set, Ops: []history.Op{
			op("1", setOp(history.Rem, "x", true), 0, 1)}}, false},
		{"set concurrent contains", history.History{Object: history.Set, Ops: []history.Op{
			op("1", setOp(history.Add, "x", true), 0, 3), op("2", setOp(history.Contains, "x", true), 1, 2)}}, true},
	}
	for _, c := range cases {
		got, err := Check(&c.h)
		if err != nil {
			t.Errorf("%s: unexpected error %v", c.name, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s: Check = %v, want %v", c.name, got, c.want)
		}
		if b := bruteCheck(&c.h); b != c.want {
			t.Errorf("%s: the brute-force checker says %v, want %v", c.name, b, c.want)
		}
	}
}

func TestUnsupported(t *testing.T) {
	cases := []struct {
		name string
		h    history.History
	}{
		{"pending", history.History{Object: history.Queue, Ops: []history.Op{
			{ID: "1", Label: history.Label{Method: history.Rem, Pending: true}, Call: 0, Return: -1}}}},
		{"register", history.History{Object: history.Register, Ops: []history.Op{
			op("1", history.Label{Method: history.Write, Arg: "1"}, 0, 1)}}},
		{"repeated add", history.History{Object: history.Stack, Ops: []history.Op{
			op("1", add("a"), 0, 1), op("2", add("a"), 2, 3)}}},
		{"pq tie", history.History{Object: history.PQueue, Ops: []history.Op{
			op("1", addP("a", 1), 0, 1), op("2", addP("b", 1), 2, 3)}}},
		{"set re-add", history.History{Object: history.Set, Ops: []history.Op{
			op("1", setOp(history.Add, "x", true), 0, 1), op("2", setOp(history.Rem, "x", true), 2, 3),
			op("3", setOp(history.Add, "x", true), 4, 5)}}},
		{"set bad return", history.History{Object: history.Set, Ops: []history.Op{
			op("1", history.Label{Method: history.Add, Arg: "x", Ret: "1"}, 0, 1)}}},
		{"contains on a stack", history.History{Object: history.Stack, Ops: []history.Op{
			op("1", setOp(history.Contains, "x", true), 0, 1)}}},
	}
	for _, c := range cases {
		got, err := Check(&c.h)
		if !errors.Is(err, ErrUnsupported) || got {
			t.Errorf("%s: Check = %v, %v; want false, ErrUnsupported", c.name, got, err)
		}
	}
	// A value decided non-linearizable decides a set history even if
	// another value is outside the domain.
	h := history.History{Object: history.Set, Ops: []history.Op{
		op("1", setOp(history.Add, "x", true), 0, 1), op("2", setOp(history.Add, "x", true), 2, 3),
		op("3", setOp(history.Contains, "y", true), 4, 5)}}
	if got, err := Check(&h); got || err != nil {
		t.Errorf("set with a violating value: Check = %v, %v; want false, nil", got, err)
	}
}

// timed is a label with the real-time interval it is stretched over.
type timed struct {
	l         history.Label
	call, ret int
}

func build(obj history.Object, ops []timed) *history.History {
	h := &history.History{Object: obj}
	for i, o := range ops {
		h.Ops = append(h.Ops, op(fmt.Sprint(i), o.l, o.call, o.ret))
	}
	return h
}

// genLegal draws a legal sequential run and stretches each operation into an
// interval around its linearization point, so the result is linearizable.
// Values are distinct (for sets: each element is added and removed
// successfully at most once).
func genLegal(r *rand.Rand, obj history.Object, n int) []timed {
	s := newSeqState(obj)
	width := 1 + r.Intn(40)
	var out []timed
	fresh := 0
	prios := r.Perm(100)
	retired := map[history.Value]bool{} // set elements that were removed
	for i := range n {
		var l history.Label
		switch obj {
		case history.Set:
			x := history.Value(string(rune('a' + r.Intn(3))))
			m := []history.Method{history.Add, history.Rem, history.Contains}[r.Intn(3)]
			if m == history.Add && retired[x] && !s.set[x] {
				m = history.Contains
			}
			if m == history.Rem && s.set[x] {
				retired[x] = true
			}
			l = history.Label{Method: m, Arg: x, Ret: history.False}
			if _, ok := s.step(l); !ok {
				l.Ret = history.True
			}
		default:
			if r.Intn(2) == 0 {
				fresh++
				l = history.Label{Method: history.Add, Arg: history.Value(fmt.Sprint("v", fresh))}
				if obj == history.PQueue {
					l.Prio = int64(prios[fresh])
				}
			} else {
				l = history.Label{Method: history.Rem, Ret: history.Empty}
				if len(s.elems) > 0 {
					probe := seqState{obj: obj, elems: s.elems}
					for _, e := range s.elems {
						if _, ok := probe.step(history.Label{Method: history.Rem, Ret: e.val}); ok {
							l.Ret = e.val
						}
					}
				}
			}
		}
		next, ok := s.step(l)
		if !ok {
			panic("generator produced an illegal step")
		}
		s = next
		p := 10*i + 5
		out = append(out, timed{l, p - r.Intn(width), p + 1 + r.Intn(width)})
	}
	return out
}

// mutate changes one result, or swaps two, so that the history may stop
// being linearizable.
func mutate(r *rand.Rand, obj history.Object, ops []timed) {
	if len(ops) == 0 {
		return
	}
	i := r.Intn(len(ops))
	if obj == history.Set {
		if r.Intn(2) == 0 {
			j := r.Intn(len(ops))
			ops[i].l.Ret, ops[j].l.Ret = ops[j].l.Ret, ops[i].l.Ret
			return
		}
		if ops[i].l.Ret == history.True {
			ops[i].l.Ret = history.False
		} else {
			ops[i].l.Ret = history.True
		}
		return
	}
	var rems []int
	var vals []history.Value
	for j, o := range ops {
		if o.l.Method == history.Rem {
			rems = append(rems, j)
		} else {
			vals = append(vals, o.l.Arg)
		}
	}
	if len(rems) == 0 {
		return
	}
	a := rems[r.Intn(len(rems))]
	if r.Intn(2) == 0 {
		b := rems[r.Intn(len(rems))]
		ops[a].l.Ret, ops[b].l.Ret = ops[b].l.Ret, ops[a].l.Ret
		return
	}
	if len(vals) == 0 || r.Intn(4) == 0 {
		ops[a].l.Ret = history.Empty
	} else {
		ops[a].l.Ret = vals[r.Intn(len(vals))]
	}
}

// genGarbage draws labels and intervals at random. With distinct set, adds
// use fresh values (and priorities); otherwise values come from a tiny pool.
func genGarbage(r *rand.Rand, obj history.Object, n int, distinct bool) []timed {
	span := 2 + r.Intn(4*n)
	var out []timed
	var added []history.Value
	prios := r.Perm(100)
	for i := range n {
		var l history.Label
		switch obj {
		case history.Set:
			x := history.Value(string(rune('a' + r.Intn(2))))
			m := []history.Method{history.Add, history.Rem, history.Contains}[r.Intn(3)]
			ret := history.False
			if r.Intn(2) == 0 {
				ret = history.True
			}
			l = history.Label{Method: m, Arg: x, Ret: ret}
		default:
			if r.Intn(2) == 0 {
				v := history.Value(fmt.Sprint("v", i))
				p := int64(prios[i])
				if !distinct {
					v = history.Value(fmt.Sprint("v", r.Intn(3)))
					p = int64(r.Intn(3))
				}
				l = history.Label{Method: history.Add, Arg: v, Prio: p}
				added = append(added, v)
			} else {
				l = history.Label{Method: history.Rem, Ret: history.Empty}
				if len(added) > 0 && r.Intn(4) != 0 {
					l.Ret = added[r.Intn(len(added))]
				}
			}
		}
		c := r.Intn(span)
		out = append(out, timed{l, c, c + 1 + r.Intn(span)})
	}
	// Removals draw from values added so far in generation order, which is
	// not time order; shuffle so either can come first.
	r.Shuffle(len(out), func(i, j int) { out[i].l, out[j].l = out[j].l, out[i].l })
	return out
}

type tally struct {
	total, unsupported, lin, nonlin int
	distinct, distinctUnsupported   int
}

func TestDifferential(t *testing.T) {
	per := 6000
	maxOps := 8
	// Longer runs for exploration, e.g. ORACLE_ITER=200000 ORACLE_MAXOPS=12.
	if s := os.Getenv("ORACLE_ITER"); s != "" {
		per, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("ORACLE_MAXOPS"); s != "" {
		maxOps, _ = strconv.Atoi(s)
		maxOps = min(max(maxOps, 1), 60)
	}
	if testing.Short() {
		per = 600
	}
	for _, obj := range []history.Object{history.Queue, history.Stack, history.PQueue, history.Set} {
		t.Run(obj.String(), func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(obj) * 7919))
			var tl tally
			for it := range per {
				n := 1 + r.Intn(maxOps)
				var ops []timed
				distinct := true
				kind := it % 4
				switch kind {
				case 0, 1:
					ops = genLegal(r, obj, n)
					if kind == 1 {
						mutate(r, obj, ops)
						distinct = obj != history.Set
					}
				case 2:
					ops = genGarbage(r, obj, n, true)
					distinct = obj != history.Set
				case 3:
					ops = genGarbage(r, obj, n, false)
					distinct = false
				}
				h := build(obj, ops)
				got, err := Check(h)
				tl.total++
				if distinct {
					tl.distinct++
				}
				if err != nil {
					if !errors.Is(err, ErrUnsupported) {
						t.Fatalf("unexpected error %v on %v", err, h)
					}
					tl.unsupported++
					if distinct {
						tl.distinctUnsupported++
					}
					if kind == 0 {
						t.Fatalf("legal distinct-value history unsupported: %v", h)
					}
					continue
				}
				want := bruteCheck(h)
				if got != want {
					t.Fatalf("Check = %v, brute force = %v on %v", got, want, h)
				}
				if kind == 0 && !got {
					t.Fatalf("a stretched legal run must be linearizable: %v", h)
				}
				if got {
					tl.lin++
				} else {
					tl.nonlin++
				}
			}
			t.Logf("%s: %d histories, %d linearizable, %d not, %d unsupported; distinct-value: %d, of them unsupported %d (%.2f%%)",
				obj, tl.total, tl.lin, tl.nonlin, tl.unsupported, tl.distinct, tl.distinctUnsupported,
				100*float64(tl.distinctUnsupported)/float64(max(tl.distinct, 1)))
			// Both verdicts must be well represented for the comparison to
			// mean anything.
			if tl.lin < per/10 || tl.nonlin < per/10 {
				t.Errorf("unbalanced sample: %d linearizable, %d not", tl.lin, tl.nonlin)
			}
			if tl.distinctUnsupported*100 > tl.distinct {
				t.Errorf("ErrUnsupported on %d of %d distinct-value histories", tl.distinctUnsupported, tl.distinct)
			}
		})
	}
}
