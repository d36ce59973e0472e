package monitor

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/satmon/satmon/internal/apiconf"
	"github.com/satmon/satmon/internal/engine"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/multi"
)

// Operation is one operation of a timestamped history, as a test harness
// records it. Call and Return are instants on any clock that never goes
// back: a precedes b iff a.Return < b.Call, so touching intervals overlap.
type Operation struct {
	ClientID int    // who ran it; only named in messages
	Key      string // the object it acts on (a key-value store's key); "" when there is one
	Label    Label  // method, argument and result; Label.Pending: it never returned
	Call     int64
	Return   int64 // ignored when Label.Pending
}

// Verdict is the outcome of a check.
type Verdict string

// The verdicts.
const (
	OK        Verdict = "ok"        // no violation found; a proof of linearizability when Result.Exact
	Violation Verdict = "violation" // proven not linearizable, by every algorithm
	Timeout   Verdict = "timeout"   // the context was done first: undecided
	Error     Verdict = "error"     // the operations are ill-formed; always comes with a Go error
)

// Algorithm selects one of the paper's checking algorithms (§6).
type Algorithm uint8

// The algorithms.
const (
	Enumerate Algorithm = iota + 1 // explicit enumeration: exact
	Symbolic                       // reduction to SAT: exact
	Saturate                       // the default: unit propagation with forgetting; never a false violation, can miss one (registers: the exact frontier)
)

// Result reports a check. Operations are indices into the checked slice
// (for a Monitor, the order of its calls); a step is one call or return.
type Result struct {
	Verdict   Verdict
	Exact     bool   // whether an OK proves linearizability
	Algorithm string // the variant that ran, e.g. "saturate -r"; "frontier" for a register decided by its frontier
	Key       string // the key of this object, or of the first one in violation

	Operations, Steps int
	ViolationOp       int // the operation whose return proved the violation; -1 when none
	ViolationStep     int // the step that proved it, from 1; -1 when none

	// With WithExplanation: a violation's core, operations whose
	// sub-history is not linearizable; for an exact OK, a linearization
	// (pending operations it leaves out took no effect); Note says why
	// one is missing.
	Core, Witness []int
	Note          string

	Keys []Result // with keys: each key's own result (its witness too), in order of first call

	draw *drawing // what Visualize draws; with WithExplanation only
}

// Option chooses how a check runs.
type Option func(*config)

// config is internal/apiconf's, so that monitor/kafka can apply the
// options too.
type config = apiconf.Config

// WithAlgorithm chooses the algorithm (default Saturate, with registers
// decided by their exact frontier).
func WithAlgorithm(a Algorithm) Option {
	return func(c *config) {
		c.Opt = engine.Options{} // Saturate: the default variant (-r, the registers' frontier)
		if a != Saturate {
			c.Opt.Algorithm = engine.Algorithm(a)
		}
	}
}

// WithParam gives the object's initial state: a register's value, a
// semaphore's capacity.
func WithParam(p string) Option { return func(c *config) { c.Param = p } }

// WithExplanation makes Check fill Result.Core and Result.Witness and
// keep what Visualize draws. It costs memory in proportion to the history.
func WithExplanation() Option { return func(c *config) { c.Explain = true } }

// Check checks a timestamped history of objects of kind obj. Operations
// with keys are grouped by key, each key its own object: the history is
// linearizable iff each key's is. An ill-formed operation is an error.
func Check(ctx context.Context, obj Object, ops []Operation, opts ...Option) (Result, error) {
	c := configure(opts)
	kops := make([]multi.KeyedOperation, len(ops))
	keyed := false
	for i, o := range ops {
		kops[i] = multi.KeyedOperation{Key: o.Key, Operation: engine.Operation{ClientID: o.ClientID, Label: o.Label.internal(), Call: o.Call, Return: o.Return}}
		keyed = keyed || o.Key != ""
	}
	lr, err := multi.CheckKeyed(ctx, h.Object(obj), c.Param, kops, multi.MultiOptions{Options: c.Opt, Explain: c.Explain, Finite: true})
	return fromLog(ctx, obj, lr, keyed, c, opIndex), err
}

// Visualize writes res's picture, an HTML page, to w: each operation a
// bar from its call to its return, the core or the witness marked, the
// explanation below. res must come from a check WithExplanation; with
// keys, the key drawn is res.Key (else the first key).
func Visualize(w io.Writer, res Result) error { return visualize(w, res) }

// Monitor checks one object's calls and returns as they happen.
type Monitor struct {
	m     *engine.Monitor
	open  map[string]int // an open operation's id → its index, the checker's id
	calls int
}

// NewMonitor returns a monitor of an object of kind obj; when ctx is
// done, its verdict is Timeout. It does not explain (WithExplanation).
func NewMonitor(ctx context.Context, obj Object, opts ...Option) (*Monitor, error) {
	c := configure(opts)
	m, err := engine.NewContext(ctx, h.Object(obj), c.Param, c.Opt)
	if err != nil {
		return nil, err
	}
	return &Monitor{m: m, open: map[string]int{}}, nil
}

// Call starts operation id (unique among the open ones) with label l.
func (m *Monitor) Call(id string, l Label) error {
	if _, ok := m.open[id]; ok {
		return fmt.Errorf("call of %q, which is already open", id)
	}
	if err := m.m.Call(strconv.Itoa(m.calls), l.internal()); err != nil {
		return err
	}
	m.open[id], m.calls = m.calls, m.calls+1
	return nil
}

// Return ends operation id with result v and reports whether this
// return proved a violation.
func (m *Monitor) Return(id string, v Value) (violation bool, err error) {
	i, ok := m.open[id]
	if !ok {
		return false, fmt.Errorf("return of %q, which is not open", id)
	}
	delete(m.open, id)
	return m.m.Return(strconv.Itoa(i), h.Value(v))
}

// Result reports the check so far.
func (m *Monitor) Result() Result { return fromEngine(m.m.Result(), opIndex) }

// Recorder records a running program's operations and checks them while
// it runs, in a goroutine of its own: the program never waits for it.
type Recorder struct{ rec *recorder }

// NewRecorder starts recording operations on an object of kind obj;
// onViolation, when not nil, is called as soon as a violation is proven.
// When ctx is done, the verdict is Timeout.
func NewRecorder(ctx context.Context, obj Object, onViolation func(Result), opts ...Option) *Recorder {
	return &Recorder{newRecorder(ctx, obj, onViolation, configure(opts))}
}

// Call records the call of an operation with label l; call the function
// it returns with the result when the operation has returned.
func (r *Recorder) Call(l Label) (ret func(Value)) {
	op := r.rec.r.Call(l.internal())
	return func(v Value) { op.Return(h.Value(v)) }
}

// Close waits until every operation recorded is checked and returns the
// result; operations are numbered in the order of their calls.
func (r *Recorder) Close() (Result, error) { return r.rec.close() }

// ReadLog reads a log (docs/format.md: satmon's own, Jepsen's, Porcupine's)
// of objects of one kind as operations, an object's name its key; an
// operation's Call and Return are its actions' places in the log.
func ReadLog(r io.Reader) (obj Object, param string, ops []Operation, err error) {
	return readLog(r)
}
