package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/monitor/logfmt"
	"github.com/satmon/satmon/theory"
)

// Algorithm selects one of the paper's three checking algorithms (§6).
type Algorithm uint8

// The algorithms.
const (
	Enumerate Algorithm = iota + 1 // explicit enumeration, exact
	Symbolic                       // reduction to SAT
	Saturate                       // unit propagation only: sound, fast
)

func (a Algorithm) String() string {
	switch a {
	case Enumerate:
		return "enumerate"
	case Symbolic:
		return "symbolic"
	case Saturate:
		return "saturate"
	}
	return fmt.Sprintf("algorithm(%d)", uint8(a))
}

// ParseAlgorithm reads an algorithm name.
func ParseAlgorithm(s string) (Algorithm, error) {
	switch strings.ToLower(s) {
	case "enumerate", "enum", "e":
		return Enumerate, nil
	case "symbolic", "sym", "s":
		return Symbolic, nil
	case "saturate", "sat":
		return Saturate, nil
	}
	return 0, fmt.Errorf("unknown algorithm %q (want enumerate, symbolic or saturate)", s)
}

// Options choose the algorithm and its variations (§6's flags).
type Options struct {
	Algorithm      Algorithm
	Completion     bool          // -c: enumerate completions explicitly
	Incremental    bool          // -i: one live solver, clauses added as actions arrive
	RemoveObsolete bool          // -r: forget obsolete matches (§5)
	Solver         string        // SAT backend for SYMBOLIC: "gini" (default) or "gophersat"
	Timeout        time.Duration // per history; 0 means none

	// eager, for tests: SATURATE grounds every transitivity and matching
	// instance up front, as SYMBOLIC does, instead of when it can matter.
	eager bool
	// activation, for tests and benchmarks: SYMBOLIC -i -r retires the
	// clauses of forgotten operations with activation literals instead of
	// rebuilding its solver.
	activation bool
	// maxWait, for tests: overrides defaultMaxWait (see remover) when
	// positive; negative means a cap of 0 (forget at once).
	maxWait int
}

// Name is the variant's name in the paper's notation, e.g. "symbolic -c -i".
func (o Options) Name() string {
	s := o.Algorithm.String()
	if o.Completion {
		s += " -c"
	}
	if o.Incremental {
		s += " -i"
	}
	if o.RemoveObsolete {
		s += " -r"
	}
	return s
}

// Validate reports whether the variant exists.
func (o Options) Validate() error {
	switch o.Algorithm {
	case Enumerate:
		if o.Incremental || o.RemoveObsolete {
			return fmt.Errorf("enumerate takes only -c")
		}
		return nil
	case Symbolic:
		return nil
	case Saturate:
		if o.Completion || o.Incremental {
			return fmt.Errorf("saturate takes only -r: it is incremental by nature and never completes pending operations")
		}
		return nil
	}
	return fmt.Errorf("no algorithm %d", o.Algorithm)
}

// Verdict is the outcome of checking one history.
type Verdict string

// The verdicts.
const (
	OK        Verdict = "ok"        // no violation found (proven member for exact algorithms)
	Violation Verdict = "violation" // proven not linearizable
	Timeout   Verdict = "timeout"   // the time limit expired first
	Error     Verdict = "error"     // the log could not be read
)

// Stats are an algorithm's counters, shown by -v.
type Stats struct {
	Checks       int     `json:"checks"`                  // membership tests run (one per return)
	Clauses      int     `json:"clauses,omitempty"`       // clauses in the live encoding
	Vars         int     `json:"vars,omitempty"`          // variables in the live encoding
	Propagations int64   `json:"propagations,omitempty"`  // unit propagations (SATURATE)
	MaxWindow    int     `json:"max_window"`              // most operations held at once
	MeanWindow   float64 `json:"mean_window"`             // mean operations held, over steps
	Removed      int     `json:"removed,omitempty"`       // operations forgotten by -r
	RepeatedTags int     `json:"repeated_tags,omitempty"` // tags seen twice: their operations are never removed
	// ForcedRemovals counts operations forgotten, although a pending
	// operation overlapped them, because too many were waiting (docs/removal.md).
	ForcedRemovals int `json:"forced_removals,omitempty"`
}

// Result reports the check of one history.
type Result struct {
	File          string  `json:"file"`
	Object        string  `json:"object"`
	Algorithm     string  `json:"algorithm"`
	Verdict       Verdict `json:"verdict"`
	Steps         int     `json:"steps"`
	Operations    int     `json:"operations"`
	ViolationStep *int    `json:"violation_step"`
	ViolationLine int     `json:"violation_line,omitempty"`
	ViolationOp   string  `json:"violation_op,omitempty"`
	Seconds       float64 `json:"seconds"`
	Error         string  `json:"error,omitempty"`
	Stats         *Stats  `json:"stats,omitempty"`
	// Core and Witness are filled by CheckLogExplain (explain.go).
	Core    []CoreOp `json:"core,omitempty"`
	Witness *Witness `json:"witness,omitempty"`
}

// checker is one algorithm's incremental state. call and ret are told of
// each action after the window has been updated; ret answers whether the
// window is still (possibly) a member of the object's library.
type checker interface {
	call(w *window, serial int) error
	ret(w *window, serial int) (member bool, err error)
	// remove is told which operations -r is about to forget.
	remove(w *window, serials []int) error
	stats() Stats
}

// Monitor checks one history action by action.
type Monitor struct {
	ctx      context.Context // cancels every phase; Options.Timeout adds a deadline
	opt      Options
	kernel   *theory.Kernel
	win      *window
	chk      checker
	start    time.Time
	deadline time.Time
	steps    int
	winSum   int
	maxWin   int
	res      Result
	done     bool
	rem      *remover // -r
	removed  int
}

// ErrNotImplemented is returned for algorithm variants that do not exist yet.
var ErrNotImplemented = errors.New("not yet implemented")

// New starts monitoring a history of object obj with parameter param.
func New(obj h.Object, param string, opt Options) (*Monitor, error) {
	return NewContext(context.Background(), obj, param, opt)
}

// NewContext is New under ctx: once ctx is done, the monitor stops with
// verdict Timeout, as when Options.Timeout expires.
func NewContext(ctx context.Context, obj h.Object, param string, opt Options) (*Monitor, error) {
	k, err := theory.KernelOf(obj, param)
	if err != nil {
		return nil, err
	}
	if opt.Algorithm == 0 {
		opt.Algorithm = Saturate
	}
	m := &Monitor{ctx: ctx, opt: opt, kernel: k, start: time.Now()}
	if opt.Timeout > 0 {
		m.deadline = m.start.Add(opt.Timeout)
	}
	m.win = newWindow(k, obj, param)
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	switch opt.Algorithm {
	case Enumerate:
		m.chk = &enumChecker{k: k, opt: opt, limit: m.remaining, stop: m.expired}
	case Saturate:
		m.chk = newSatChecker(k, opt.eager)
	case Symbolic:
		if m.chk, err = newSymChecker(k, opt, m.remaining, m.expired); err != nil {
			return nil, err
		}
	}
	if opt.RemoveObsolete {
		m.rem = newRemover(obj)
		if opt.maxWait != 0 {
			m.rem.maxWait = max(opt.maxWait, 0)
		}
	}
	m.res = Result{Object: obj.String(), Algorithm: opt.Name(), Verdict: OK}
	return m, nil
}

// remaining is the time left before the deadline (0: no limit).
func (m *Monitor) remaining() time.Duration {
	if m.deadline.IsZero() {
		return 0
	}
	if d := time.Until(m.deadline); d > time.Millisecond {
		return d
	}
	return time.Millisecond
}

func (m *Monitor) expired() bool {
	return m.ctx.Err() != nil || !m.deadline.IsZero() && time.Now().After(m.deadline)
}

// Step feeds one action. It returns true when this action proves a
// violation; after that, or after a timeout, further actions are ignored.
func (m *Monitor) Step(a h.Action) (violation bool, err error) {
	if m.done {
		return false, nil
	}
	if m.expired() {
		m.finish(Timeout)
		return false, nil
	}
	i, err := m.win.add(a)
	if err != nil {
		return false, err
	}
	var member = true
	if a.Kind == h.Call {
		m.res.Operations++
		err = m.chk.call(m.win, i)
	} else {
		member, err = m.chk.ret(m.win, i)
	}
	if errors.Is(err, errStopped) {
		m.finish(Timeout)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if member && a.Kind == h.Return && m.rem != nil {
		// Forget obsolete operations only now, after saturation, so that
		// what was derived through them stays (§5.3, Example 5.8).
		if gone := m.rem.returned(m.win, i); len(gone) > 0 {
			if err := m.chk.remove(m.win, gone); err != nil {
				return false, err
			}
			m.win.remove(gone)
			m.removed += len(gone)
		}
	}
	m.steps++
	n := m.win.size()
	m.winSum += n
	if n > m.maxWin {
		m.maxWin = n
	}
	if !member {
		step := m.steps
		m.res.ViolationStep = &step
		m.res.ViolationLine = a.Line
		m.res.ViolationOp = a.ID
		m.finish(Violation)
		return true, nil
	}
	return false, nil
}

func (m *Monitor) finish(v Verdict) {
	m.done = true
	m.res.Verdict = v
}

// Result reports the verdict so far: OK unless a violation or timeout
// happened.
func (m *Monitor) Result() Result {
	r := m.res
	r.Steps = m.steps
	r.Seconds = time.Since(m.start).Seconds()
	st := m.chk.stats()
	st.MaxWindow = m.maxWin
	st.Removed = m.removed
	if m.rem != nil {
		st.RepeatedTags = m.rem.repeats
		st.ForcedRemovals = m.rem.forced
	}
	if m.steps > 0 {
		st.MeanWindow = float64(m.winSum) / float64(m.steps)
	}
	r.Stats = &st
	return r
}

// Done reports whether the verdict is final (violation or timeout).
func (m *Monitor) Done() bool { return m.done }

// CheckLog reads a log from r and checks it; name is used in messages.
// A malformed log yields an error (a *logfmt.Error names the position)
// and a Result with verdict Error.
func CheckLog(r io.Reader, name string, obj h.Object, param string, opt Options) (Result, error) {
	return CheckLogFunc(r, logfmt.Options{Name: name, Object: obj, Param: param}, opt, nil)
}

// CheckLogFunc is CheckLog with a hook called as soon as a violation is
// proven, before the rest of the log is read.
func CheckLogFunc(r io.Reader, lo logfmt.Options, opt Options, onViolation func(Result)) (Result, error) {
	rd := logfmt.NewReader(r, lo)
	var m *Monitor
	fail := func(err error) (Result, error) {
		res := Result{File: lo.Name, Algorithm: opt.Name(), Verdict: Error, Error: err.Error()}
		if m != nil {
			res = m.Result()
			res.File = lo.Name
			res.Verdict = Error
			res.Error = err.Error()
		}
		return res, err
	}
	for {
		a, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		if m == nil {
			m, err = New(rd.Object(), rd.Param(), opt)
			if err != nil {
				return fail(err)
			}
		}
		v, err := m.Step(a)
		if err != nil {
			return fail(fmt.Errorf("%s:%d: %w", lo.Name, a.Line, err))
		}
		if v && onViolation != nil {
			res := m.Result()
			res.File = lo.Name
			onViolation(res)
		}
		if m.Done() {
			break
		}
	}
	if m == nil {
		obj := rd.Object()
		if obj == h.NoObject {
			obj = lo.Object
		}
		if obj == h.NoObject {
			return fail(fmt.Errorf("%s: empty log: no object and no actions", lo.Name))
		}
		var err error
		m, err = New(obj, rd.Param(), opt)
		if err != nil {
			return fail(err)
		}
	}
	res := m.Result()
	res.File = lo.Name
	return res, nil
}

// CheckHistory checks a whole history, replaying its actions in order.
func CheckHistory(hist *h.History, opt Options) Result {
	m, err := New(hist.Object, hist.Param, opt)
	if err != nil {
		return Result{Object: hist.Object.String(), Algorithm: opt.Name(), Verdict: Error, Error: err.Error()}
	}
	for _, a := range Actions(hist) {
		if _, err := m.Step(a); err != nil {
			r := m.Result()
			r.Verdict, r.Error = Error, err.Error()
			return r
		}
		if m.Done() {
			break
		}
	}
	return m.Result()
}

// Actions lists a history's call and return actions in log order.
func Actions(hist *h.History) []h.Action {
	n := 0
	for i := range hist.Ops {
		if c := hist.Ops[i].Call + 1; c > n {
			n = c
		}
		if r := hist.Ops[i].Return + 1; r > n {
			n = r
		}
	}
	acts := make([]h.Action, n)
	present := make([]bool, n)
	for i := range hist.Ops {
		o := &hist.Ops[i]
		l := o.Label
		l.Pending, l.Ret = true, h.Void
		acts[o.Call] = h.Action{Kind: h.Call, ID: o.ID, Label: l, Seq: o.Call, Line: o.Line}
		present[o.Call] = true
		if !o.Pending() {
			acts[o.Return] = h.Action{Kind: h.Return, ID: o.ID, Label: o.Label, Seq: o.Return, Line: o.Line}
			present[o.Return] = true
		}
	}
	out := acts[:0]
	for i, a := range acts {
		if present[i] {
			out = append(out, a)
		}
	}
	return out
}

// enumChecker runs ENUMERATE at every return: exact with -c, with the
// completions left to the solver without.
type enumChecker struct {
	k      *theory.Kernel
	opt    Options
	limit  func() time.Duration
	stop   func() bool
	checks int
}

func (c *enumChecker) call(*window, int) error { return nil }

func (c *enumChecker) remove(*window, []int) error { return nil }

func (c *enumChecker) ret(w *window, _ int) (bool, error) {
	c.checks++
	hist, _ := w.history()
	if c.opt.Completion {
		return EnumerateMember(c.k, hist, c.stop)
	}
	return EnumerateLinearizations(c.k, hist, c.opt.Solver, c.limit, c.stop)
}

func (c *enumChecker) stats() Stats { return Stats{Checks: c.checks} }
