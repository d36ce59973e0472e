package engine

import (
	"fmt"
	"iter"
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/openset"
	"github.com/satmon/satmon/internal/valtab"
	"github.com/satmon/satmon/theory"
)

// window is the part of the history the monitor keeps: every operation
// seen, less those forgotten by -r. Operations are named by serials, given
// in call order from 1 and never reused (0 is the register's virtual
// initial write in the encoder).
//
// The live operations are found by serial without hashing, as every step
// looks several up: serials base, base+1, … sit in slots[lo:] (nil once
// removed). An operation that outlives many later ones (a stalled
// operation, a read kept back) would make that span grow with the log, so
// when the span is mostly holes the older half's live operations move to
// far, a short list sorted by serial.
type window struct {
	kernel *theory.Kernel
	obj    h.Object
	param  string
	slots  []*h.Op
	lo     int // slots[:lo] are unused: the span starts at slots[lo]
	base   int // the serial of slots[lo]
	// span is slots[lo:], kept for op, which a step calls several
	// times: it then reads one slice rather than slots and lo (setSpan
	// sets it). spanLen is its length, as op compares it:
	// without the conversion op's body is small enough to be inlined.
	span    []*h.Op
	spanLen uint
	far     []farOp
	n       int // live operations
	// pending holds the open operations' serials by id, in increasing
	// order, which is call order: pendingMinCall reads the first.
	pending openset.Set[int]
	next    int
	// shift is added to every action index of the log: summaries
	// (summary.go) insert operations between two actions, and each takes
	// two indices of its own. last is the largest index given so far.
	shift, last int
	summaryOps  int // live operations inserted by addCompleted

	view        *h.History // cached history of the live operations
	viewSerials []int
	// free holds the structs of removed operations for add: nothing keeps
	// a pointer to an operation past its removal (everything names
	// operations by serial and looks them up here).
	free []*h.Op
	// chunk holds structs allocated for newOp and not yet used.
	chunk []h.Op
	// vals names the values of the live operations (h.Op.ArgID, RetID),
	// each hashed once as its action enters. The window owns the
	// interner: it sees every action first, and the encoder of SATURATE
	// (encode.Config.Values) and the remover index their tables by these
	// IDs. Each holder takes its own references (the window one per live
	// operation, released by remove), so an ID is reused only once none
	// of them holds it, whatever order they forget in. Without -r
	// nothing is forgotten, and IDs only grow.
	vals *valtab.Interner
}

// farOp is a live operation older than the span of slots.
type farOp struct {
	serial int
	op     *h.Op
}

func newWindow(k *theory.Kernel, obj h.Object, param string) *window {
	w := &window{kernel: k, obj: obj, param: param, next: 1, base: 1, vals: valtab.NewValues()}
	w.pending = openset.Make(func(s int) string { return w.op(s).ID })
	return w
}

// add applies the call a and returns the serial of its operation. (A
// return, which the monitor validates first, goes to ret.)
//
// Not inlined: Step, its one caller, is large enough that the compiler
// inlines little into it, so add's own callees (push, intern, the open
// set's) would stay calls there; on its own add takes them in.
//
//go:noinline
func (w *window) add(a *h.Action) (int, error) {
	if a.Kind != h.Call {
		return 0, fmt.Errorf("bad action kind %d", a.Kind)
	}
	key := openset.Key(a.ID)
	if w.pending.MayHold(key) {
		if _, dup := openset.Lookup(&w.pending, a.ID, key); dup {
			return 0, fmt.Errorf("duplicate id [%s]: it is already open", a.ID)
		}
	}
	o := w.newOp()
	// Every field, one by one: a struct literal assigned through
	// the pointer is built aside and copied.
	o.ID, o.Call, o.Return, o.Line = a.ID, w.seq(a.Seq), -1, a.Line
	o.Label = a.Label
	o.Label.Pending, o.Label.Ret = true, h.Void
	o.ArgID, o.RetID = w.intern(o.Label.Arg), valtab.VoidID
	s := w.push(o)
	w.pending.Add(key, s)
	return s, nil
}

// openSerial finds the open operation with the given id.
func (w *window) openSerial(id string) (int, bool) { return w.pending.Find(id) }

// open is the number of open operations.
func (w *window) open() int { return w.pending.Len() }

// ret applies the return a of the open operation s (openSerial(a.ID)).
// Not inlined, as add is not.
//
//go:noinline
func (w *window) ret(s int, a *h.Action) {
	w.view = nil
	w.pending.DeleteStable(s)
	o := w.op(s)
	o.Return, o.Label.Ret, o.Label.Pending = w.seq(a.Seq), a.Label.Ret, false
	o.RetID = w.intern(a.Label.Ret) // a pending operation's is Void's, fixed
}

// intern is vals.Intern, without a look-up for Void, the argument of
// half the methods and the return value of the other half.
func (w *window) intern(v h.Value) valtab.ID {
	if v == h.Void {
		return valtab.VoidID
	}
	return w.vals.Intern(v)
}

// push adds o under the next serial and returns it.
func (w *window) push(o *h.Op) int {
	w.view = nil
	s := w.next
	w.next++
	if len(w.slots) == cap(w.slots) && 2*w.lo >= len(w.slots) {
		// At least half the array is unused before the span: move the
		// span down rather than grow.
		k := copy(w.slots, w.slots[w.lo:])
		clear(w.slots[k:])
		w.slots, w.lo = w.slots[:k], 0
	}
	if w.lo == len(w.slots) {
		w.slots, w.lo, w.base = w.slots[:0], 0, s
	}
	w.slots = append(w.slots, o)
	w.setSpan()
	w.n++
	return s
}

// seq maps a log's action index into the window's.
func (w *window) seq(logSeq int) int {
	s := logSeq + w.shift
	w.last = max(w.last, s)
	return s
}

// addCompleted inserts completed operations with the given labels after
// every action so far and before the next one, all overlapping each
// other (every call before every return), and returns their serials.
func (w *window) addCompleted(labels []h.Label) []int {
	base, k := w.last+1, len(labels)
	var out []int
	for i, l := range labels {
		l.Pending = false
		o := w.newOp()
		*o = h.Op{ID: "summary", Label: l, Call: base + i, Return: base + k + i, Line: summaryLine,
			ArgID: w.intern(l.Arg), RetID: w.intern(l.Ret)}
		out = append(out, w.push(o))
	}
	w.shift += 2 * k
	w.last += 2 * k
	w.summaryOps += k
	return out
}

// newOp returns a struct for an operation: a removed one's, or one of a
// chunk allocated at once, so that a window growing to a new size
// allocates once per opChunk operations.
func (w *window) newOp() *h.Op {
	if n := len(w.free); n > 0 {
		o := w.free[n-1]
		w.free = w.free[:n-1]
		return o
	}
	if len(w.chunk) == 0 {
		w.chunk = make([]h.Op, opChunk)
	}
	o := &w.chunk[0]
	w.chunk = w.chunk[1:]
	return o
}

// opChunk is how many operation structs newOp allocates at once.
const opChunk = 32

// maxFreeOps bounds the removed operations kept for reuse. The structs
// kept never number more than the window held at its largest, so the
// bound only matters after a window far larger than usual; below it, a
// window that shrinks and grows again reuses what it had.
const maxFreeOps = 1 << 12

// summaryLine marks the operations addCompleted inserts: no log line.
const summaryLine = -1

// setSpan sets span and spanLen after slots or lo changed.
func (w *window) setSpan() {
	w.span = w.slots[w.lo:]
	w.spanLen = uint(len(w.span))
}

// op is the live operation s, or nil. A step looks up several: the span
// is tried first, by one unsigned comparison, and the rest is left to
// opOutside.
func (w *window) op(s int) *h.Op {
	if i := uint(s - w.base); i < w.spanLen {
		return w.span[i]
	}
	return w.opOutside(s)
}

// opOutside is op for a serial outside the span: older ones may be in
// far, newer ones do not exist yet.
func (w *window) opOutside(s int) *h.Op {
	if s >= w.base {
		return nil
	}
	if i, ok := w.farIndex(s); ok {
		return w.far[i].op
	}
	return nil
}

func (w *window) farIndex(s int) (int, bool) {
	if len(w.far) == 0 {
		return 0, false
	}
	return slices.BinarySearchFunc(w.far, s, func(f farOp, s int) int { return f.serial - s })
}

// all yields the live operations with their serials, in call order.
func (w *window) all() iter.Seq2[int, *h.Op] {
	return func(yield func(int, *h.Op) bool) {
		for _, f := range w.far {
			if f.op != nil && !yield(f.serial, f.op) {
				return
			}
		}
		for i, o := range w.slots[w.lo:] {
			if o != nil && !yield(w.base+i, o) {
				return
			}
		}
	}
}

// live filters serials in place, keeping those still in the window.
func (w *window) live(serials []int) []int {
	out := serials[:0]
	for _, s := range serials {
		// op, written out: a step calls live on what it may forget.
		var o *h.Op
		if i := s - w.base; uint(i) < uint(len(w.span)) {
			o = w.span[i]
		} else {
			o = w.opOutside(s)
		}
		if o != nil {
			out = append(out, s)
		}
	}
	return out
}

func (w *window) size() int { return w.n }

// remove forgets operations; they must have returned.
func (w *window) remove(serials []int) {
	w.view = nil
	farDead := false
	for _, s := range serials {
		var o *h.Op
		if i := s - w.base; i >= 0 {
			if i < len(w.slots)-w.lo {
				o, w.slots[w.lo+i] = w.slots[w.lo+i], nil
			}
		} else if i, ok := w.farIndex(s); ok {
			o, w.far[i].op = w.far[i].op, nil
			farDead = true
		}
		if o == nil {
			continue
		}
		if o.Line == summaryLine {
			w.summaryOps--
		}
		w.vals.Release(o.ArgID)
		w.vals.Release(o.RetID)
		w.n--
		if len(w.free) < maxFreeOps {
			w.free = append(w.free, o)
		}
	}
	for w.lo < len(w.slots) && w.slots[w.lo] == nil {
		w.lo++
		w.base++
	}
	if farDead {
		w.far = slices.DeleteFunc(w.far, func(f farOp) bool { return f.op == nil })
	}
	if span := len(w.slots) - w.lo; span > 2*w.n+64 {
		// Mostly holes: the older half's survivors go to far, after
		// those already there (their serials are smaller).
		half := w.lo + span/2
		for i := w.lo; i < half; i++ {
			if o := w.slots[i]; o != nil {
				w.far = append(w.far, farOp{w.base + i - w.lo, o})
				w.slots[i] = nil
			}
		}
		w.base += half - w.lo
		w.lo = half
		for w.lo < len(w.slots) && w.slots[w.lo] == nil {
			w.lo++
			w.base++
		}
	}
	w.setSpan()
}

// history is the live operations as a History, in call order, with the
// serial of each. Action indices are renumbered 0, 1, … in the same
// order: only their order means anything, and a History's consumers
// (Actions) size tables by the largest index, which grows with the log.
func (w *window) history() (*h.History, []int) {
	if w.view == nil {
		v := &h.History{Object: w.obj, Param: w.param}
		w.viewSerials = w.viewSerials[:0]
		for s, o := range w.all() {
			v.Ops = append(v.Ops, *o)
			w.viewSerials = append(w.viewSerials, s)
		}
		compact(v)
		w.view = v
	}
	return w.view, w.viewSerials
}

// compact renumbers the action indices of hist's operations 0, 1, … in
// their order.
func compact(hist *h.History) { compactBuf(hist, nil) }

// compactBuf is compact using buf for its scratch, and returns it.
func compactBuf(hist *h.History, buf []int) []int {
	seqs := buf[:0]
	if n := 2 * len(hist.Ops); cap(seqs) < n {
		// Twice the room needed now, for the histories to come (see
		// summarizeScope).
		seqs = make([]int, 0, 2*n)
	}
	for i := range hist.Ops {
		seqs = append(seqs, hist.Ops[i].Call)
		if hist.Ops[i].Return >= 0 {
			seqs = append(seqs, hist.Ops[i].Return)
		}
	}
	slices.Sort(seqs)
	rank := func(s int) int { i, _ := slices.BinarySearch(seqs, s); return i }
	for i := range hist.Ops {
		o := &hist.Ops[i]
		o.Call = rank(o.Call)
		if o.Return >= 0 {
			o.Return = rank(o.Return)
		}
	}
	return seqs
}

// pendingMinCall is the earliest call among pending operations, or -1.
func (w *window) pendingMinCall() int {
	if w.pending.Len() == 0 {
		return -1
	}
	return w.op(w.pending.Values()[0]).Call
}

// abandon forgets the open operation s, which will never return (the
// exact register check keeps crashed operations as counted labels,
// frontier.go): it leaves the open operations and the window.
func (w *window) abandon(s int) {
	o := w.op(s)
	if o == nil {
		return
	}
	if p, open := w.pending.Find(o.ID); !open || p != s {
		return
	}
	w.pending.DeleteStable(s)
	o.Return = w.last // returned, as far as remove goes
	w.remove([]int{s})
}
