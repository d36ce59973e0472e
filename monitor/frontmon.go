package monitor

import (
	"fmt"
	"os"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/sat"
)

// The default variant on the three registers: the frontier (frontier.go)
// decides every return exactly, with a window of the open operations.

// FrontierAlgorithm is the name Result.Algorithm gives the frontier.
const FrontierAlgorithm = "frontier"

// confirmOps is how many operations a register log may have for the
// window to keep them all, so that the kernel (SAT on the whole history)
// confirms a violation the frontier finds. Past it the window keeps only
// the open operations, and a violation rests on the frontier alone, whose
// transitions are the kernel's specification (regStep; see
// docs/removal.md).
const confirmOps = 512

// frontierObject reports whether the default variant checks obj with the
// frontier.
func frontierObject(obj h.Object) bool {
	return obj == h.Register || obj == h.CASRegister || obj == h.StringRegister
}

// frontChecker is the frontier as a checker.
type frontChecker struct {
	f *frontier
	m *Monitor
}

func (c *frontChecker) call(w *window, s int) error {
	c.f.call(s, w.op(s).Label)
	return nil
}

func (c *frontChecker) ret(w *window, s int) (bool, error) {
	if c.f.ret(s, w.op(s).Label) {
		return true, nil
	}
	return c.m.confirmFrontier()
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
	m.chk = &frontChecker{f: m.front, m: m}
	m.confirming = true
	m.res.Algorithm = FrontierAlgorithm
	m.res.Exact = true
}

// frontierStep forgets, after the return of serial, what the window no
// longer needs: once the log is past confirmOps operations, every
// returned and crashed operation.
func (m *Monitor) frontierStep(serial int) {
	if m.front.top {
		m.frontierGaveUp()
	}
	if m.confirming {
		if m.res.Operations <= confirmOps {
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

// confirmFrontier is called where the frontier found no linearization:
// while the window holds the whole history, the kernel decides (SAT on its
// complete encoding) before the violation is reported.
func (m *Monitor) confirmFrontier() (bool, error) {
	if !m.confirming {
		return false, nil
	}
	hist, _ := m.win.history()
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
	// The kernel finds a linearization the frontier did not (or could
	// not decide): never report a violation the kernel does not confirm.
	m.front.giveUp("the kernel did not confirm a violation the frontier found")
	m.frontierGaveUp()
	return true, nil
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
	m.front.abandon(s)
	if m.confirming {
		m.crashed = append(m.crashed, s)
	} else {
		m.win.abandon(s)
	}
	return nil
}

// exactOn reports whether the variant decides histories of obj exactly.
func (o Options) exactOn(obj h.Object) bool {
	o = o.withDefaults()
	return o.Exact() || o.auto && frontierObject(obj)
}
