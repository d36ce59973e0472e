package engine

import (
	"errors"
	"fmt"
	"os"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/sat"
)

// The default variant on the three registers: the frontier (frontier.go)
// decides every return exactly, with a window of the open operations.

// FrontierAlgorithm is the name Result.Algorithm gives the frontier.
const FrontierAlgorithm = "frontier"

// ConfirmOps is how many operations a string register's log may have for
// the window to keep them all, so that the kernel (SAT on the whole
// history) confirms a violation the frontier finds: its kernel admits
// some histories regStep does not (docs/theories.md, "Ambiguous
// parsings"), and the kernel is the specification. Past it, and on the
// plain and compare-and-set registers, whose kernels regStep matches
// (TestFrontierAgreesWithSAT), the window keeps only the open operations,
// and a violation rests on the frontier alone (docs/removal.md). SAT on
// the whole prefix would cost more than the frontier's check itself.
const ConfirmOps = 512

// frontierObject reports whether the default variant checks obj with the
// frontier.
func frontierObject(obj h.Object) bool {
	return obj == h.Register || obj == h.CASRegister || obj == h.StringRegister
}

// frontChecker is the frontier as a checker. It looks ahead: the frontier
// is told of a read's call only once the read has returned, so that it
// knows what the read returns and records, for the read, only whether that
// state came (fslot.known) instead of every state that came. The actions
// wait in q meanwhile, in log order; a violation is still found at the
// return that proves it (its step is kept with it), only possibly a few
// actions later. Past maxLookahead waiting actions, or when the verdict
// so far is asked for (flush), the read goes without its result.
type frontChecker struct {
	f *frontier
	m *Monitor
	q []fevent
	// base is the position of q[0]; callAt the position of each waiting
	// read call whose return has not come.
	base   int
	callAt map[int]int
	// viol is the action that proved the violation.
	viol fevent
}

// maxLookahead bounds the actions waiting for a read's return.
const maxLookahead = 4096

type fkind uint8

const (
	fNone fkind = iota // a crashed read's call: nothing to do
	fCall
	fRet
	fAbandon
)

// fevent is an action waiting for the frontier.
type fevent struct {
	kind  fkind
	known bool // a read's call: its result, ret, is known
	// released: a crashed compare-and-set's call, which no return will
	// make known
	released bool
	serial   int
	l        h.Label
	ret      h.Value
	step     int // the monitor's step (1-based)
	line     int
	id       string
	seq      int // the window's action index
	in       int // the action's Seq as fed (a multi-object log's position)
}

func (c *frontChecker) call(w *window, s int) error {
	o := w.op(s)
	if o.Label.Method == h.Read || o.Label.Method == h.CAS {
		c.callAt[s] = c.base + len(c.q)
	}
	c.q = append(c.q, fevent{kind: fCall, serial: s, l: o.Label, step: c.m.steps + 1, seq: o.Call})
	_, err := c.process(false)
	return err
}

func (c *frontChecker) ret(w *window, s int) (bool, error) {
	o := w.op(s)
	if at, ok := c.callAt[s]; ok {
		e := &c.q[at-c.base]
		e.known, e.ret = true, o.Label.Ret
		delete(c.callAt, s)
	}
	c.q = append(c.q, fevent{kind: fRet, serial: s, l: o.Label, step: c.m.steps + 1, line: c.m.curLine, id: o.ID, seq: o.Return, in: c.m.curSeq})
	return c.process(false)
}

// abandon is Monitor.Abandon's: a crashed read is dropped, whether or not
// the frontier was told of its call yet; a crashed compare-and-set whose
// call waits goes to the frontier without a result, and then to the pool.
func (c *frontChecker) abandon(s int) error {
	if at, ok := c.callAt[s]; ok {
		if e := &c.q[at-c.base]; e.l.Method == h.Read {
			e.kind = fNone
			delete(c.callAt, s)
			return nil
		}
		// Released from the look-ahead: its result never comes.
		c.q[at-c.base].released = true
		delete(c.callAt, s)
	}
	c.q = append(c.q, fevent{kind: fAbandon, serial: s})
	_, err := c.process(false)
	return err
}

// process tells the frontier of the waiting actions, up to the call of a
// read whose result is not known yet (all of them when flush), and
// reports whether no violation was found.
func (c *frontChecker) process(flush bool) (bool, error) {
	i := 0
	for ; i < len(c.q); i++ {
		e := &c.q[i]
		if e.kind == fCall && (e.l.Method == h.Read || e.l.Method == h.CAS) && !e.known && !e.released && !flush && len(c.q)-i <= maxLookahead {
			break
		}
		switch e.kind {
		case fCall:
			delete(c.callAt, e.serial)
			c.f.call(e.serial, e.l, e.known, e.ret)
		case fAbandon:
			c.f.abandon(e.serial)
		case fRet:
			if !c.f.ret(e.serial, e.l) {
				member, err := c.m.confirmFrontier(e.seq)
				if err != nil || !member {
					c.viol = *e
					c.drop(i + 1)
					return member, err
				}
			}
		}
		c.noteLost(e)
	}
	c.drop(i)
	return true, nil
}

// drop forgets the first n waiting actions.
func (c *frontChecker) drop(n int) {
	if n == 0 {
		return
	}
	c.base += n
	k := copy(c.q, c.q[n:])
	clear(c.q[k:])
	c.q = c.q[:k]
}

func (c *frontChecker) remove(*window, []int) error { return nil }
func (c *frontChecker) refuted() bool               { return false }
func (c *frontChecker) stats() Stats {
	return Stats{Checks: c.f.checks, Configurations: c.f.maxConfs}
}

// startFrontier makes the frontier the monitor's checker.
func (m *Monitor) startFrontier() {
	init, hasInit := m.kernel.InitialWrite()
	m.front = newFrontier(m.win.obj, regState{init, hasInit}, hasInit)
	m.fc = &frontChecker{f: m.front, m: m, callAt: map[int]int{}}
	m.chk = m.fc
	m.confirming = m.win.obj == h.StringRegister
	m.res.Algorithm = FrontierAlgorithm
	m.res.Exact = true
}

// frontierStep forgets, after the return of serial, what the window no
// longer needs: once the log is past ConfirmOps operations, every
// returned and crashed operation.
func (m *Monitor) frontierStep(serial int) {
	if m.front.top {
		m.frontierGaveUp()
	}
	m.frontierLost()
	if m.confirming {
		if m.res.Operations <= ConfirmOps {
			return
		}
		m.confirming = false
		var gone []int
		for s, o := range m.win.all() {
			if !o.Pending() {
				gone = append(gone, s)
			}
		}
		m.win.remove(gone)
		m.removed += len(gone)
		for _, s := range m.crashed {
			m.win.abandon(s)
		}
		m.crashed = nil
		return
	}
	m.win.remove([]int{serial})
	m.removed++
}

// confirmFrontier is called where the frontier found no linearization of
// the history up to the return at window index cut. On a string register
// whose gets may parse two ways, while the window holds the whole
// history, the kernel (SAT on the complete encoding of that prefix) and
// then the search of the sequential specification decide before the
// violation is reported.
func (m *Monitor) confirmFrontier(cut int) (bool, error) {
	if !m.confirming {
		return false, nil
	}
	hist := &h.History{Object: m.win.obj, Param: m.win.param}
	for _, o := range m.win.all() {
		if o.Call > cut {
			continue
		}
		op := *o
		if op.Return > cut {
			op.Return = -1
			op.Label.Pending, op.Label.Ret = true, h.Void
		}
		hist.Ops = append(hist.Ops, op)
	}
	compact(hist)
	if !ambiguousParse(hist.Ops) {
		// Where no get's string parses two ways, the string register's
		// kernel and the frontier's transitions (regStep) agree
		// (TestFrontierAgreesWithSAT, TestFrontierStringRepeatedTokens
		// against Porcupine's model): the violation stands, without a
		// SAT call on the whole prefix, which cost more than the check.
		return false, nil
	}
	s, err := sat.New(m.opt.Solver)
	if err != nil {
		return false, err
	}
	encodeWhole(m.kernel, hist, s)
	switch s.Solve(m.expired) {
	case sat.Unsat:
		return false, nil
	case sat.Unknown:
		if m.expired() {
			return false, errStopped
		}
	}
	if m.win.obj == h.StringRegister && ambiguousParse(hist.Ops) {
		// The kernel may admit a violation here (strconfirm.go): the
		// search of the sequential specification decides instead.
		init, _ := m.kernel.InitialWrite()
		if member, decided := searchLinearizable(hist, regState{init, true}); decided && !member {
			return false, nil
		}
	}
	// The kernel finds a linearization the frontier did not (or could
	// not decide): never report a violation the kernel does not confirm.
	m.front.giveUp("the kernel did not confirm a violation the frontier found")
	m.frontierGaveUp()
	return true, nil
}

// flushFrontier tells the frontier of every waiting action, reads whose
// result is not known yet included, so that the verdict covers every
// action fed; a violation found ends monitoring as Step would have.
func (m *Monitor) flushFrontier() {
	defer m.frontierLost()
	if m.fc == nil || m.done || len(m.fc.q) == 0 {
		return
	}
	member, err := m.fc.process(true)
	switch {
	case errors.Is(err, errStopped):
		m.finish(Timeout)
	case err == nil && !member:
		m.frontierViolation()
	}
}

// frontierViolation records the violation the frontier proved, at the
// action that proved it.
func (m *Monitor) frontierViolation() {
	e := &m.fc.viol
	step := e.step
	m.res.ViolationStep = &step
	m.res.ViolationLine = e.line
	m.res.ViolationOp = e.id
	m.finish(Violation)
}

// frontierGaveUp marks the result inexact and says why, once.
func (m *Monitor) frontierGaveUp() {
	if m.frontWarned {
		return
	}
	m.frontWarned = true
	m.res.Exact = false
	out := m.opt.Warn
	if out == nil {
		out = os.Stderr
	}
	fmt.Fprintf(out, "satmon: warning: the exact register check gave up at step %d (%s): the rest of the log is not checked, and ok is not a proof; use -a saturate or -a symbolic; see docs/removal.md\n", m.steps+1, m.front.why)
}

// Abandon tells the monitor that the open operation id will never return
// (Jepsen's :info): it may have taken effect at any time after its call,
// or never, as any operation pending at the end of the log. Only the
// exact register check uses it, to stop following the operation as open;
// the other checkers keep it pending, which means the same.
func (m *Monitor) Abandon(id string) error {
	if m.done || m.front == nil {
		return nil
	}
	s, ok := m.win.openSerial(id)
	if !ok {
		return fmt.Errorf("abandon: [%s] is not open", id)
	}
	if err := m.fc.abandon(s); err != nil {
		if errors.Is(err, errStopped) {
			m.finish(Timeout)
			return nil
		}
		return err
	}
	if m.confirming {
		m.crashed = append(m.crashed, s)
	} else {
		m.win.abandon(s)
	}
	return nil
}

// ExactOn reports whether the variant decides histories of obj exactly.
func (o Options) ExactOn(obj h.Object) bool {
	o = o.WithDefaults()
	return o.Exact() || o.auto && frontierObject(obj)
}

// ViolationSeq is the Seq, as fed to Step, of the return at which the
// exact register check proved a violation.
func (m *Monitor) ViolationSeq() (int, bool) {
	if m.fc == nil || m.res.Verdict != Violation {
		return 0, false
	}
	return m.fc.viol.in, true
}
