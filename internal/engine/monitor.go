package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/satmon/satmon/internal/forget"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
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
//
// The zero Options selects the default variant, SATURATE with
// RemoveObsolete (DefaultOptions): whenever Algorithm is 0, RemoveObsolete
// is turned on. Name an Algorithm explicitly to choose every flag yourself,
// for example the paper's variants in experiments.
type Options struct {
	Algorithm      Algorithm
	Completion     bool          // -c: enumerate completions explicitly
	Incremental    bool          // -i: one live solver, clauses added as actions arrive
	RemoveObsolete bool          // -r: forget obsolete matches (§5)
	Solver         string        // SAT backend for SYMBOLIC: "gini" (default) or "gophersat"
	Timeout        time.Duration // per history; 0 means none
	// Warn receives -r's warning that a window keeps growing (see
	// docs/removal.md); nil means standard error.
	Warn io.Writer
	// auto: no algorithm was named. The registers are then checked
	// exactly by the frontier (frontmon.go), the other objects by
	// SATURATE -r.
	auto bool
}

// DefaultOptions is the variant satmon runs unless told otherwise: on
// the three registers (register, compare-and-set register, string
// register) the exact frontier check, whose ok is a proof and whose window
// holds the open operations (docs/removal.md); on the other objects
// SATURATE -r, which never reports a false violation, keeps bounded
// memory on endless logs, and can miss violations (see Exact). Naming
// Saturate explicitly runs SATURATE on the registers too.
func DefaultOptions() Options { return Options{}.WithDefaults() }

// WithDefaults fills in the default variant when no algorithm is named.
func (o Options) WithDefaults() Options {
	if o.Algorithm == 0 {
		o.Algorithm, o.RemoveObsolete, o.auto = Saturate, true, true
	}
	return o
}

// Exact reports whether the variant decides linearizability exactly, so
// that its ok is a proof that the history is linearizable: ENUMERATE (with
// or without -c) and SYMBOLIC without -r. SATURATE never branches, and
// SYMBOLIC -r forgets what it derived through removed operations, so their
// ok means only that no violation was found. A violation is a proof under
// every variant. The default variant is exact on the registers, which
// Result.Exact says per history.
func (o Options) Exact() bool {
	o = o.WithDefaults()
	switch o.Algorithm {
	case Enumerate:
		return true
	case Symbolic:
		return !o.RemoveObsolete
	}
	return false
}

// Name is the variant's name in the paper's notation, e.g. "symbolic -c -i".
func (o Options) Name() string {
	o = o.WithDefaults()
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
	o = o.WithDefaults()
	if o.Timeout < 0 {
		return fmt.Errorf("negative timeout %v", o.Timeout)
	}
	if o.Solver != "" && o.Solver != "gini" && o.Solver != "gophersat" {
		return fmt.Errorf("unknown solver %q (want gini or gophersat)", o.Solver)
	}
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
	OK        Verdict = "ok"        // no violation found; a proof of linearizability when Result.Exact
	Violation Verdict = "violation" // proven not linearizable, by every algorithm
	Timeout   Verdict = "timeout"   // the time limit expired, or the context was done, first: undecided
	Error     Verdict = "error"     // the input could not be read; always comes with a Go error
)

// Stats are an algorithm's counters, shown by -v.
type Stats struct {
	Checks       int   `json:"checks"`                 // membership tests run (one per return)
	Clauses      int   `json:"clauses,omitempty"`      // clauses in the live encoding
	Vars         int   `json:"vars,omitempty"`         // variables in the live encoding
	Propagations int64 `json:"propagations,omitempty"` // unit propagations (SATURATE)
	MaxWindow    int   `json:"max_window"`             // most operations held at once
	// Configurations is the largest set of configurations the exact
	// register check kept at once (frontier.go).
	Configurations int     `json:"configurations,omitempty"`
	MeanWindow     float64 `json:"mean_window"`             // mean operations held, over steps
	Removed        int     `json:"removed,omitempty"`       // operations forgotten by -r
	RepeatedTags   int     `json:"repeated_tags,omitempty"` // tags seen twice: matching is not unique
	Summaries      int     `json:"summaries,omitempty"`     // quiescent points where -r summarized repeated values
	// ForcedRemovals counts operations forgotten, although a pending
	// operation overlapped them, because too many were waiting (docs/removal.md).
	ForcedRemovals int `json:"forced_removals,omitempty"`
}

// Result reports the check of one history. docs/output.md documents its
// JSON form.
type Result struct {
	File      string  `json:"file"`
	Object    string  `json:"object"`
	Algorithm string  `json:"algorithm"`
	Verdict   Verdict `json:"verdict"`
	// Exact is Options.Exact of the variant that ran: whether an OK
	// verdict proves the history linearizable, or only says that no
	// violation was found.
	Exact         bool    `json:"exact"`
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
	// refuted reports whether what remove forgot left a window that is
	// not linearizable: then neither is the history, since forgetting
	// keeps every linearizable history linearizable.
	refuted() bool
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
	deadline time.Time // of the current piece of work (beginWork)
	// spent is the time spent working so far, in New and Step: what
	// Options.Timeout limits. workStart is when the current piece began.
	spent     time.Duration
	workStart time.Time
	steps     int
	winSum    int
	maxWin    int
	res       Result
	done      bool
	timing    bool     // stepTimed is timing the current step
	rem       *remover // -r
	gone      []int    // what rem released last; swapped with rem.out
	removed   int
	seq       int // the number of actions fed so far: the next action's Seq
	// summaries made (summary.go), and whether -r warned that the
	// window grows
	summaries int
	warned    bool
	initGone  bool // the register's virtual initial write was forgotten
	// chain: a compare-and-set register's states at its last
	// quiescent point, when too many to summarize (summary.go).
	chain *chain
	// rmwRetry: the window size from which such a register is searched
	// again after a search gave up.
	rmwRetry int
	hk       *hooks // tests' switches (hooks.go); nil outside tests
	// warnWindow is the window size from which -r says, once, that it
	// cannot keep the window bounded and why (warnGrowing).
	warnWindow int
	// front is the exact register check of the default variant
	// (frontmon.go); confirming while the window still holds the whole
	// history, crashed the operations abandoned meanwhile.
	front       *frontier
	fc          *frontChecker
	curLine     int // the line of the action being stepped
	curSeq      int // its Seq as fed
	confirming  bool
	crashed     []int
	frontWarned bool
	strp        *strParse         // a string register's ambiguous gets (strhonest.go)
	coll        forget.CollSearch // a queue's or stack's summaries
	// seg, segSerials and seqs are summarizeScope's buffers.
	seg        h.History
	segSerials []int
	seqs       []int
	sigs       []h.Signature // the object's methods (validate)
	// sigAt[m] is 1 + method m's index in sigs, 0 if m is not a
	// method of the object: validate finds a signature at every step.
	sigAt [256]uint8
	fin   *finite // Finite: the returns whose checks End settles (finite.go)
}

// New starts monitoring a history of object obj with parameter param (the
// semaphore's capacity, the register's initial value, or "": see
// ValidateParam). The zero Options runs DefaultOptions.
func New(obj h.Object, param string, opt Options) (*Monitor, error) {
	return NewContext(context.Background(), obj, param, opt)
}

// NewContext is New under ctx: once ctx is done, the monitor stops with
// verdict Timeout, as when Options.Timeout expires. Both interrupt every
// phase of the work — preparing the kernel, grounding, SAT solving,
// enumeration — within milliseconds (a gophersat search is abandoned, not
// stopped: see internal/sat). Options.Timeout limits the time spent
// working: in New and in Step, not between steps, so that time spent
// waiting for the next action of a live log does not count.
func NewContext(ctx context.Context, obj h.Object, param string, opt Options) (*Monitor, error) {
	if err := ValidateParam(obj, param); err != nil {
		return nil, err
	}
	opt = opt.WithDefaults()
	m := &Monitor{ctx: ctx, opt: opt, warnWindow: defaultWarnWindow, start: time.Now(), sigs: h.Signatures(obj)}
	for i, sg := range m.sigs {
		m.sigAt[sg.Method] = uint8(i + 1)
	}
	m.beginWork()
	defer m.endWork()
	stop := m.stopper()
	k, err := kernelOf(obj, param, stop)
	if errors.Is(err, theory.ErrStopped) {
		m.res = Result{Object: obj.String(), Algorithm: opt.Name(), Exact: opt.Exact()}
		m.finish(Timeout)
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	m.kernel = k
	m.win = newWindow(k, obj, param)
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.auto && frontierObject(obj) {
		m.res = Result{Object: obj.String(), Algorithm: opt.Name(), Verdict: OK}
		m.startFrontier()
		return m, nil
	}
	if err := m.startChecker(stop); err != nil {
		return nil, err
	}
	m.res = Result{Object: obj.String(), Algorithm: opt.Name(), Verdict: OK, Exact: opt.Exact()}
	return m, nil
}

// startChecker makes the checker of the chosen algorithm, and the remover
// of -r, over m.kernel and m.win.
func (m *Monitor) startChecker(stop func() bool) error {
	k, opt := m.kernel, m.opt
	switch opt.Algorithm {
	case Enumerate:
		m.chk = &enumChecker{k: k, opt: opt, stop: stop}
	case Saturate:
		m.chk = newSatChecker(k, opt.RemoveObsolete, stop, m.win.vals)
	case Symbolic:
		var err error
		if m.chk, err = newSymChecker(k, opt, stop); err != nil {
			return err
		}
	}
	if opt.RemoveObsolete {
		m.rem = newRemover(m.win.obj, m.win.vals)
	}
	return nil
}

// kernels keeps the kernels New built last, by object and parameter. A
// kernel is read-only once built, so monitors of one object share it, and
// the encoder finds the axioms it prepared for it in its own cache
// (encode.preparedAxioms, keyed by the kernel): building a kernel and
// preparing its axioms is most of what making a monitor costs, and a
// multi-object check makes one per object, again whenever an idle one was
// dropped.
var kernels struct {
	sync.Mutex
	entries [cachedKernels]kernelEntry
	next    int
}

type kernelEntry struct {
	obj   h.Object
	param string
	k     *theory.Kernel
}

// cachedKernels is how many kernels kernels keeps, as many as the
// encoder's cache.
const cachedKernels = 8

// maxCachedCapacity bounds the semaphore capacities whose kernels are
// kept: LIMIT(n) has n²/2 conjuncts, too large to hold on to.
const maxCachedCapacity = 64

// kernelOf is theory.KernelOfStop through kernels.
func kernelOf(obj h.Object, param string, stop func() bool) (*theory.Kernel, error) {
	kernels.Lock()
	for _, e := range kernels.entries {
		if e.k != nil && e.obj == obj && e.param == param {
			kernels.Unlock()
			return e.k, nil
		}
	}
	kernels.Unlock()
	k, err := theory.KernelOfStop(obj, param, stop)
	if err != nil || obj == h.Semaphore && (&h.History{Param: param}).Capacity() > maxCachedCapacity {
		return k, err
	}
	kernels.Lock()
	kernels.entries[kernels.next] = kernelEntry{obj, param, k}
	kernels.next = (kernels.next + 1) % cachedKernels
	kernels.Unlock()
	return k, nil
}

// beginWork starts timing a piece of work: the deadline is what is left
// of Options.Timeout after the work done so far. Without a time limit
// nothing is timed: the time spent only ever sets the deadline, and
// reading the clock twice a step is a measurable part of a cheap step.
func (m *Monitor) beginWork() {
	if m.opt.Timeout <= 0 {
		return
	}
	m.workStart = time.Now()
	m.deadline = m.workStart.Add(m.opt.Timeout - m.spent)
}

// stepTimed is Step under a time limit: it times the step (beginWork,
// endWork) around Step itself, called again with timing set. It is apart
// so that Step keeps no deferred call, which each of its many returns
// would otherwise test for, in the usual step, without a time limit.
func (m *Monitor) stepTimed(a h.Action) (bool, error) {
	m.beginWork()
	m.timing = true
	defer func() {
		m.timing = false
		m.endWork()
	}()
	return m.Step(a)
}

// timedOut ends monitoring with verdict Timeout; Step returns it.
func (m *Monitor) timedOut() (bool, error) {
	m.finish(Timeout)
	return false, nil
}

// endWork adds the piece of work's time to the time spent.
func (m *Monitor) endWork() {
	if m.opt.Timeout > 0 {
		m.spent += time.Since(m.workStart)
	}
}

// stopper is the stop function the phases poll: expired, or nil when
// nothing can stop the work (no time limit, and a context that is never
// done). With nil the SAT solver searches in one piece; with a stop it
// searches in slices so as to poll it, which costs hard searches up to
// about twice their time (see internal/sat).
func (m *Monitor) stopper() func() bool {
	if m.opt.Timeout <= 0 && m.ctx.Done() == nil {
		return nil
	}
	return m.expired
}

// expired reports whether ctx is done or the time limit is used up. It
// is every phase's stop function, polled often: a context check and a
// clock read.
func (m *Monitor) expired() bool {
	return m.ctx.Err() != nil || !m.deadline.IsZero() && time.Now().After(m.deadline)
}

// Call feeds the call of an operation: id names it until its Return (an
// id may be reused once the operation has returned), l is its method and
// argument (and for a priority-queue add its priority; Ret and Pending are
// ignored). The monitor numbers actions in the order they are fed, so feed
// them in an order consistent with real time: a call fed after a return
// means that the returned operation precedes the called one.
func (m *Monitor) Call(id string, l h.Label) error {
	_, err := m.Step(h.Action{Kind: h.Call, ID: id, Label: l})
	return err
}

// Return feeds the return of the open operation id with result v (Void
// for methods that return nothing). It returns true when this return
// proves a violation.
func (m *Monitor) Return(id string, v h.Value) (violation bool, err error) {
	return m.Step(h.Action{Kind: h.Return, ID: id, Label: h.Label{Ret: v}})
}

// Step feeds one action, as Call or Return do. It returns true when this
// action proves a violation; after that, or after a timeout, further
// actions are ignored. An ill-formed action (a label that does not fit the
// object's signature, a duplicate id, a return without call) is an error
// and changes nothing. The action's Seq is ignored: actions are numbered
// in the order they are fed, which is the real-time order the monitor
// checks against. For a return, only Label.Ret is read (a Method, when
// set, must be the call's).
func (m *Monitor) Step(a h.Action) (violation bool, err error) {
	if m.done {
		return false, nil
	}
	if m.opt.Timeout > 0 && !m.timing {
		return m.stepTimed(a)
	}
	if m.expired() {
		return m.timedOut()
	}
	i, err := m.validate(&a)
	if err != nil {
		return false, err
	}
	m.curLine, m.curSeq = a.Line, a.Seq
	a.Seq = m.seq
	if a.Kind == h.Return {
		m.win.ret(i, &a) // validate found i open
	} else if i, err = m.win.add(&a); err != nil {
		return false, err
	}
	m.noteStringParse(m.win.op(i))
	m.seq++
	var member = true
	if a.Kind == h.Call {
		m.res.Operations++
		err = m.chk.call(m.win, i)
	} else if m.fin != nil {
		m.fin.note(m.win.op(i).Return, m.steps+1, &a)
	} else {
		member, err = m.chk.ret(m.win, i)
	}
	if err != nil {
		if errors.Is(err, errStopped) {
			m.finish(Timeout)
			return false, nil
		}
		return false, err
	}
	if member && a.Kind == h.Return && m.rem != nil {
		arg := m.win.op(i).Label.Arg
		// Forget obsolete operations only now, after saturation, so that
		// what was derived through them stays (§5.3, Example 5.8). Where
		// values repeat, summarize at quiescent points first (summary.go):
		// the summary also takes the operations the paper's rules release,
		// and knows more from them.
		// summarize may reuse r.out, which returned's result always is
		// (settle): swapped with m.gone's free storage (TestRemovedBufferSwap).
		gone := m.rem.returned(m.win, i)
		m.gone, m.rem.out = gone, m.gone[:0]
		if member, err = m.summarize(arg); err != nil {
			if errors.Is(err, errStopped) {
				m.finish(Timeout)
				return false, nil
			}
			return false, err
		}
		if err := m.forget(m.win.live(gone)); err != nil {
			return false, err
		}
		member = member && !m.chk.refuted()
	}
	if m.front != nil && a.Kind == h.Return && member {
		m.frontierStep(i)
	}
	m.steps++
	n := m.win.size()
	if m.rem != nil && !m.warned && n > m.warnWindow {
		m.warnGrowing()
	}
	m.winSum += n
	if n > m.maxWin {
		m.maxWin = n
	}
	if !member && m.fc != nil {
		// Found at the action that proved it, maybe a few before this
		// one (frontChecker looks ahead).
		m.frontierViolation()
		return true, nil
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
	m.flushFrontier()
	r := m.res
	r.Steps = m.steps
	r.Seconds = time.Since(m.start).Seconds()
	var st Stats
	if m.chk != nil { // nil when stopped while preparing the kernel
		st = m.chk.stats()
	}
	st.MaxWindow = m.maxWin
	st.Removed = m.removed
	if m.rem != nil {
		st.RepeatedTags = m.rem.repeats
		st.ForcedRemovals = m.rem.forced
		st.Summaries = m.summaries
	}
	if m.steps > 0 {
		st.MeanWindow = float64(m.winSum) / float64(m.steps)
	}
	r.Stats = &st
	return r
}

// Done reports whether the verdict is final (violation or timeout).
func (m *Monitor) Done() bool { return m.done }

// CheckLog reads a log from r and checks it; name is used in messages,
// and obj and param stand for a log that names no object (NoObject and ""
// when it must name one). A malformed log yields an error (a
// *logfmt.Error names the position) and a Result with verdict Error.
//
// CheckLog reads r to its end even after the verdict is final (a
// violation or a timeout): a program writing its log into a pipe is never
// blocked or killed because the monitor stopped listening.
func CheckLog(r io.Reader, name string, obj h.Object, param string, opt Options) (Result, error) {
	return CheckLogFunc(r, logfmt.Options{Name: name, Object: obj, Param: param}, opt, nil)
}

// CheckLogFunc is CheckLog with the reader's options, and a hook called as
// soon as a violation is proven, before the rest of the log is read (and
// drained).
func CheckLogFunc(r io.Reader, lo logfmt.Options, opt Options, onViolation func(Result)) (Result, error) {
	return checkLog(r, lo, opt, nil, onViolation)
}

// checkLog is CheckLogFunc, telling tee (when not nil) of each action
// before the monitor steps it, so that an explanation can be built from
// the history read.
func checkLog(r io.Reader, lo logfmt.Options, opt Options, tee *ActionTee, onViolation func(Result)) (Result, error) {
	lo.Abandons = true // "[ID] crash" lines: told to the monitor (Abandon)
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
		ev, err := rd.NextEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		a := ev.Action
		if ev.Abandon {
			// The reader checked that the operation is open, so the
			// monitor exists. It stays pending in the history (tee).
			if err := m.Abandon(a.ID); err != nil {
				return fail(fmt.Errorf("%s:%d: %w", lo.Name, a.Line, err))
			}
			continue
		}
		if rd.Named() {
			return fail(fmt.Errorf("%s:%d: the log declares named objects: check it with CheckMulti", lo.Name, a.Line))
		}
		if m == nil {
			m, err = New(rd.Object(), rd.Param(), opt)
			if err != nil {
				return fail(err)
			}
		}
		if tee != nil {
			tee.Add(rd.Object(), rd.Param(), a)
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
			// Keep reading, so that the writer never blocks on a full
			// pipe or dies of SIGPIPE. What follows is not parsed: the
			// verdict is final.
			if _, err := io.Copy(io.Discard, r); err != nil {
				return fail(fmt.Errorf("%s: %w", lo.Name, err))
			}
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
		if tee != nil {
			tee.B = h.NewBuilder(obj, rd.Param())
		}
	}
	res := m.Result()
	res.File = lo.Name
	return res, nil
}

// CheckHistory checks a whole history, replaying its actions in the order
// of their positions (Op.Call and Op.Return). An ill-formed history (an
// unknown object, a label that does not fit the object) is an error, and
// the Result then has verdict Error; a Result with verdict Error always
// comes with a non-nil error.
func CheckHistory(hist *h.History, opt Options) (Result, error) {
	return checkHistory(context.Background(), hist, opt)
}

func checkHistory(ctx context.Context, hist *h.History, opt Options) (Result, error) {
	m, err := NewContext(ctx, hist.Object, hist.Param, opt)
	if err != nil {
		return Result{Object: hist.Object.String(), Algorithm: opt.Name(), Verdict: Error, Exact: opt.Exact(), Error: err.Error()}, err
	}
	return m.replay(hist)
}

// replay feeds hist to m, a monitor just made, and ends it.
func (m *Monitor) replay(hist *h.History) (Result, error) {
	return m.replayThen(hist, nil)
}

// replayThen is replay, calling after (when not nil) once the monitor has
// taken each action: tests look at the frontier there.
func (m *Monitor) replayThen(hist *h.History, after func()) (Result, error) {
	m.Finite()
	// An operation pending at the end of a history never returns: the
	// exact register check is told so at its call (Abandon), which means
	// the same as leaving it pending.
	var never map[string]int
	if m.front != nil {
		for i := range hist.Ops {
			if o := &hist.Ops[i]; o.Pending() {
				if never == nil {
					never = map[string]int{}
				}
				never[o.ID] = o.Call
			}
		}
	}
	for a := range actionSeq(hist) {
		_, err := m.Step(a)
		if c, ok := never[a.ID]; ok && err == nil && a.Kind == h.Call && a.Seq == c {
			err = m.Abandon(a.ID)
		}
		if err != nil {
			if a.Line > 0 {
				err = fmt.Errorf("line %d: %w", a.Line, err)
			}
			r := m.Result()
			r.Verdict, r.Error = Error, err.Error()
			return r, err
		}
		if after != nil {
			after()
		}
		if m.Done() {
			break
		}
	}
	if _, err := m.End(); err != nil {
		r := m.Result()
		r.Verdict, r.Error = Error, err.Error()
		return r, err
	}
	return m.Result(), nil
}

// Actions lists a history's call and return actions in log order.
func Actions(hist *h.History) []h.Action {
	out := make([]h.Action, 0, 2*len(hist.Ops))
	for a := range actionSeq(hist) {
		out = append(out, a)
	}
	return out
}

// actionSeq yields the actions Actions lists, one at a time: checking a
// history needs each action once, and a list of them all costs an
// Action (over a hundred bytes, with pointers for the collector to scan)
// per action, where the index here costs four bytes.
func actionSeq(hist *h.History) iter.Seq[h.Action] {
	return func(yield func(h.Action) bool) {
		n := 0
		for i := range hist.Ops {
			n = max(n, hist.Ops[i].Call+1, hist.Ops[i].Return+1)
		}
		// at[p] is the action at position p: i+1 for the call of
		// hist.Ops[i], -(i+1) for its return, 0 for none. Later
		// operations overwrite earlier ones, as in a list of actions
		// filled in operation order.
		at := make([]int32, n)
		for i := range hist.Ops {
			o := &hist.Ops[i]
			at[o.Call] = int32(i + 1)
			if !o.Pending() {
				at[o.Return] = -int32(i + 1)
			}
		}
		for _, x := range at {
			var a h.Action
			switch {
			case x > 0:
				o := &hist.Ops[x-1]
				l := o.Label
				l.Pending, l.Ret = true, h.Void
				a = h.Action{Kind: h.Call, ID: o.ID, Label: l, Seq: o.Call, Line: o.Line}
			case x < 0:
				o := &hist.Ops[-x-1]
				a = h.Action{Kind: h.Return, ID: o.ID, Label: o.Label, Seq: o.Return, Line: o.Line}
			default:
				continue
			}
			if !yield(a) {
				return
			}
		}
	}
}

// enumChecker runs ENUMERATE at every return: exact with -c, with the
// completions left to the solver without.
type enumChecker struct {
	k      *theory.Kernel
	opt    Options
	stop   func() bool
	checks int
}

func (c *enumChecker) call(*window, int) error { return nil }

func (c *enumChecker) remove(*window, []int) error { return nil }
func (c *enumChecker) refuted() bool               { return false }

func (c *enumChecker) ret(w *window, _ int) (bool, error) {
	c.checks++
	hist, _ := w.history()
	if c.opt.Completion {
		return enumerateMember(c.k, hist, c.stop)
	}
	return enumerateLinearizations(c.k, hist, c.opt.Solver, c.stop)
}

func (c *enumChecker) stats() Stats { return Stats{Checks: c.checks} }
