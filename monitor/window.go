package monitor

import (
	"fmt"
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// window is the part of the history the monitor keeps: every operation
// seen, less those forgotten by -r. Operations are named by serials, given
// in call order from 1 and never reused (0 is the register's virtual
// initial write in the encoder).
type window struct {
	kernel *theory.Kernel
	obj    h.Object
	param  string
	ops    map[int]*h.Op
	order  []int // serials in call order; removed ones are skipped
	dead   int   // removed serials still in order
	open   map[string]int
	next   int
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
}

func newWindow(k *theory.Kernel, obj h.Object, param string) *window {
	return &window{kernel: k, obj: obj, param: param, ops: map[int]*h.Op{}, open: map[string]int{}, next: 1}
}

// add applies an action and returns the serial of its operation.
func (w *window) add(a h.Action) (int, error) {
	w.view = nil
	switch a.Kind {
	case h.Call:
		if _, dup := w.open[a.ID]; dup {
			return 0, fmt.Errorf("duplicate id [%s]: it is already open", a.ID)
		}
		l := a.Label
		l.Pending, l.Ret = true, h.Void
		s := w.next
		w.next++
		var o *h.Op
		if n := len(w.free); n > 0 {
			o, w.free = w.free[n-1], w.free[:n-1]
		} else {
			o = new(h.Op)
		}
		*o = h.Op{ID: a.ID, Label: l, Call: w.seq(a.Seq), Return: -1, Line: a.Line}
		w.ops[s] = o
		w.order = append(w.order, s)
		w.open[a.ID] = s
		return s, nil
	case h.Return:
		s, ok := w.open[a.ID]
		if !ok {
			return 0, fmt.Errorf("return without call: [%s] is not open", a.ID)
		}
		delete(w.open, a.ID)
		o := w.ops[s]
		o.Return, o.Label.Ret, o.Label.Pending = w.seq(a.Seq), a.Label.Ret, false
		return s, nil
	}
	return 0, fmt.Errorf("bad action kind %d", a.Kind)
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
	w.view = nil
	base, k := w.last+1, len(labels)
	var out []int
	for i, l := range labels {
		s := w.next
		w.next++
		l.Pending = false
		w.ops[s] = &h.Op{ID: "summary", Label: l, Call: base + i, Return: base + k + i, Line: summaryLine}
		w.order = append(w.order, s)
		out = append(out, s)
	}
	w.shift += 2 * k
	w.last += 2 * k
	w.summaryOps += k
	return out
}

// maxFreeOps bounds the removed operations kept for reuse.
const maxFreeOps = 256

// summaryLine marks the operations addCompleted inserts: no log line.
const summaryLine = -1

func (w *window) op(s int) *h.Op { return w.ops[s] }

// live filters serials in place, keeping those still in the window.
func (w *window) live(serials []int) []int {
	out := serials[:0]
	for _, s := range serials {
		if _, ok := w.ops[s]; ok {
			out = append(out, s)
		}
	}
	return out
}

func (w *window) size() int { return len(w.ops) }

// remove forgets operations; they must have returned.
func (w *window) remove(serials []int) {
	w.view = nil
	for _, s := range serials {
		if o, ok := w.ops[s]; ok {
			if o.Line == summaryLine {
				w.summaryOps--
			}
			delete(w.ops, s)
			w.dead++
			if len(w.free) < maxFreeOps {
				w.free = append(w.free, o)
			}
		}
	}
	if w.dead > len(w.order)/2 {
		live := w.order[:0]
		for _, s := range w.order {
			if _, ok := w.ops[s]; ok {
				live = append(live, s)
			}
		}
		w.order, w.dead = live, 0
	}
}

// history is the live operations as a History, in call order, with the
// serial of each. Action indices are renumbered 0, 1, … in the same
// order: only their order means anything, and a History's consumers
// (Actions) size tables by the largest index, which grows with the log.
func (w *window) history() (*h.History, []int) {
	if w.view == nil {
		v := &h.History{Object: w.obj, Param: w.param}
		w.viewSerials = w.viewSerials[:0]
		for _, s := range w.order {
			if o, ok := w.ops[s]; ok {
				v.Ops = append(v.Ops, *o)
				w.viewSerials = append(w.viewSerials, s)
			}
		}
		compact(v)
		w.view = v
	}
	return w.view, w.viewSerials
}

// compact renumbers the action indices of hist's operations 0, 1, … in
// their order.
func compact(hist *h.History) {
	seqs := make([]int, 0, 2*len(hist.Ops))
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
}

// pendingMinCall is the earliest call among pending operations, or -1.
func (w *window) pendingMinCall() int {
	m := -1
	for _, s := range w.open {
		if c := w.ops[s].Call; m < 0 || c < m {
			m = c
		}
	}
	return m
}
