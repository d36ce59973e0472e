package engine

import (
	"context"
	"io"

	"github.com/satmon/satmon/encode"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/saturate"

	"github.com/satmon/satmon/internal/logfmt"
)

// tuning holds knobs that only tests and benchmarks turn, out of the
// exported types and of the monitor's constructor: newTuned applies them
// to a monitor New made, before its first action.
type tuning struct {
	// eager: SATURATE grounds every transitivity and matching instance up
	// front, as SYMBOLIC does, instead of when it can matter.
	eager bool
	// plainLimit: LIMIT is evaluated and grounded tuple by tuple, as
	// written, instead of by counting (theory.Kernel.Literal).
	plainLimit bool
	// maxWait overrides defaultMaxWait (see remover) when positive;
	// negative means a cap of 0 (forget at once).
	maxWait int
	// noSummary: -r without summaries (summary.go).
	noSummary bool
	// satOnly: summaries decide every queue or stack segment by SAT
	// (internal/forget).
	satOnly bool
	// warnWindow overrides defaultWarnWindow when positive.
	warnWindow int
	// frontOpen, frontBudget: the frontier's limits (maxFrontSlots,
	// frontBudget) when positive, to make it lose exactness on small
	// histories (frontfall.go).
	frontOpen, frontBudget int
}

// tuned is a variant with test-only knobs.
type tuned struct {
	Options
	tuning
}

// newTuned is NewContext with test-only knobs.
func newTuned(ctx context.Context, obj h.Object, param string, opt Options, t tuning) (*Monitor, error) {
	m, err := NewContext(ctx, obj, param, opt)
	if err == nil && m.front != nil {
		m.front.maxOpen, m.front.budget = t.frontOpen, t.frontBudget
	}
	if err != nil || m.chk == nil {
		return m, err // a timeout, or the exact register check: no other knob applies
	}
	stop := m.stopper()
	if t.plainLimit {
		m.kernel = m.kernel.Literal()
		m.win = newWindow(m.kernel, obj, param)
		if err := m.startChecker(stop); err != nil {
			return nil, err
		}
	}
	if t.eager && m.opt.Algorithm == Saturate {
		sink := &satSink{s: saturate.New()}
		enc := encode.New(m.kernel, sink, encode.Config{EagerMatching: true, Stop: stop, Values: m.win.vals})
		enc.Begin()
		m.chk = &satChecker{sink: sink, enc: enc}
	}
	if t.maxWait != 0 && m.rem != nil {
		m.rem.maxWait = max(t.maxWait, 0)
	}
	if t.warnWindow > 0 {
		m.warnWindow = t.warnWindow
	}
	if t.noSummary || t.satOnly {
		m.hk = &hooks{noSummary: t.noSummary, satOnly: t.satOnly}
	}
	return m, nil
}

// check is CheckHistory for histories the tests built. An error is
// returned as verdict Error in the Result, which no test expects, so a
// test that meets one fails on the verdict.
func check(hist *h.History, opt Options) Result {
	r, _ := CheckHistory(hist, opt)
	return r
}

// checkTuned is check with test-only knobs.
func checkTuned(hist *h.History, opt tuned) Result {
	m, err := newTuned(context.Background(), hist.Object, hist.Param, opt.Options, opt.tuning)
	if err != nil {
		return Result{Object: hist.Object.String(), Algorithm: opt.Name(), Verdict: Error, Error: err.Error()}
	}
	r, _ := m.replay(hist)
	return r
}

// checkLogTuned is CheckLog with test-only knobs.
func checkLogTuned(r io.Reader, name string, opt tuned) (Result, error) {
	hist, err := logfmt.ReadHistory(r, logfmt.Options{Name: name})
	if err != nil {
		return Result{}, err
	}
	m, err := newTuned(context.Background(), hist.Object, hist.Param, opt.Options, opt.tuning)
	if err != nil {
		return Result{}, err
	}
	return m.replay(hist)
}

// checkFrontLimits is check with the frontier's limits lowered: at most
// open operations followed open at once, at most budget configurations
// per return (0: the production limit).
func checkFrontLimits(hist *h.History, opt Options, open, budget int) Result {
	return checkTuned(hist, tuned{Options: opt, tuning: tuning{frontOpen: open, frontBudget: budget}})
}
