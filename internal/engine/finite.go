package engine

import (
	"errors"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/valtab"
)

// A finite log lets exact SYMBOLIC skip most of its checks. Checking at
// every return solves one SAT problem per return, each from scratch and
// each as large as the log so far: a log of n operations costs n solves
// of growing size. When the whole log is at hand, one solve of the whole
// history decides it; and since a history that is not linearizable has
// no linearizable extension (every prefix of a linearizable history is
// linearizable, its pending operations completed or dropped), the
// returns whose prefix is not linearizable form a suffix of the log's
// returns, and bisection finds the first of them in about log₂ n more
// solves. That first return is the one at which checking every return
// would have stopped, so the verdict, step, line and operation reported
// are the same; only the checks made (Stats.Checks) differ.

// finite is what Finite keeps: every return fed since, in order.
type finite struct {
	rets []finiteRet
}

type finiteRet struct {
	pos  int    // the return's position in the window
	step int    // its step (Result.ViolationStep if it proves the violation)
	line int    // its log line
	id   string // its operation's id
}

func (f *finite) note(pos, step int, a *h.Action) {
	f.rets = append(f.rets, finiteRet{pos: pos, step: step, line: a.Line, id: a.ID})
}

// Finite tells the monitor that the log it is fed is finite, all of it
// fed before the verdict is read, and that End will be called after its
// last action: a file, not a live stream. Call it before the first Step.
// Exact SYMBOLIC (without -c, -i or -r) then defers its checks: Step
// reports no violation, and End decides the whole history at once and,
// if it is not linearizable, finds the earliest return that proves it
// (bisection over the returns), reporting the step, line and operation
// that checking every return would have reported. Other variants check
// at every return as before, and End does nothing for them. Until End,
// Result's OK is not a verdict: nothing has been checked yet.
func (m *Monitor) Finite() {
	o := m.opt
	if m.done || m.steps > 0 || m.chk == nil || o.Algorithm != Symbolic || o.Completion || o.Incremental || o.RemoveObsolete {
		return
	}
	m.fin = &finite{}
}

// End settles what Finite deferred, and reports whether the log fed is
// a violation (the Result then names its earliest proving return, as
// Step would have). After End the monitor checks each further return as
// it is fed, as without Finite.
func (m *Monitor) End() (violation bool, err error) {
	fin := m.fin
	if fin == nil || m.done {
		return false, nil
	}
	m.fin = nil
	if len(fin.rets) == 0 {
		return false, nil
	}
	if m.opt.Timeout > 0 {
		m.beginWork()
		defer m.endWork()
	}
	c := m.chk.(*symChecker)
	var ops []h.Op
	for _, o := range m.win.all() {
		ops = append(ops, *o)
	}
	var buf h.History
	member := func(pos int) (bool, error) {
		if m.expired() {
			return false, errStopped
		}
		prefixInto(&buf, m.win, ops, pos)
		c.checks++
		return c.scratch(&buf)
	}
	last := len(fin.rets) - 1
	ok, err := member(fin.rets[last].pos)
	if err == nil && !ok {
		// fin.rets[lo]'s prefix is linearizable (lo = -1: the empty one),
		// fin.rets[hi]'s is not.
		lo, hi := -1, last
		for hi-lo > 1 && err == nil {
			mid := lo + (hi-lo)/2
			if ok, err = member(fin.rets[mid].pos); ok {
				lo = mid
			} else {
				hi = mid
			}
		}
		if err == nil {
			m.violationAt(fin.rets[hi], ops)
			return true, nil
		}
	}
	if errors.Is(err, errStopped) {
		m.finish(Timeout)
		return false, nil
	}
	return false, err
}

// prefixInto sets hist to the window's history cut just after position
// pos: the operations called before it, those returning after it
// pending. ops are the window's operations in call order.
func prefixInto(hist *h.History, w *window, ops []h.Op, pos int) {
	hist.Object, hist.Param, hist.Ops = w.obj, w.param, hist.Ops[:0]
	for _, o := range ops {
		if o.Call > pos {
			break
		}
		if o.Return > pos {
			o.Return, o.Label.Pending, o.Label.Ret, o.RetID = -1, true, h.Void, valtab.VoidID
		}
		hist.Ops = append(hist.Ops, o)
	}
	compact(hist)
}

// violationAt makes the Result what Step would have made of the
// violation proven at r: the steps, operations and window counted up to
// r, as if the log had ended there.
func (m *Monitor) violationAt(r finiteRet, ops []h.Op) {
	m.steps = r.step
	n, sum := 0, 0
	for _, o := range ops {
		if o.Call > r.pos {
			break
		}
		// Without -r the window only grows: the operation called at
		// position c is held from step c+1 on.
		n++
		sum += r.step - o.Call
	}
	m.res.Operations, m.maxWin, m.winSum = n, n, sum
	step := r.step
	m.res.ViolationStep = &step
	m.res.ViolationLine = r.line
	m.res.ViolationOp = r.id
	m.finish(Violation)
}
