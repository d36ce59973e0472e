package monitor

import (
	"context"
	"io"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/multi"
	"github.com/satmon/satmon/monitor/logfmt"
)

// The checker itself lives in internal/engine (one object's log over a
// bounded window), many-object logs in internal/multi and explanations
// in internal/explain; these are the library's names for what a program
// needs of them.

// Algorithm selects one of the paper's three checking algorithms (§6).
type Algorithm = engine.Algorithm

// The algorithms.
const (
	Enumerate = engine.Enumerate // explicit enumeration, exact
	Symbolic  = engine.Symbolic  // reduction to SAT
	Saturate  = engine.Saturate  // unit propagation only: sound, fast
)

// FrontierAlgorithm is Result.Algorithm when the default variant decided
// a register by its frontier of configurations.
const FrontierAlgorithm = engine.FrontierAlgorithm

// ParseAlgorithm reads an algorithm's name.
func ParseAlgorithm(s string) (Algorithm, error) { return engine.ParseAlgorithm(s) }

// Verdict is the outcome of checking one history.
type Verdict = engine.Verdict

// The verdicts.
const (
	OK        = engine.OK        // no violation found; a proof of linearizability when Result.Exact
	Violation = engine.Violation // proven not linearizable, by every algorithm
	Timeout   = engine.Timeout   // the time limit expired, or the context was done, first: undecided
	Error     = engine.Error     // the input could not be read; always comes with a Go error
)

type (
	// Options selects the algorithm and its variant.
	Options = engine.Options
	// Result reports the check of one history; docs/output.md documents
	// its JSON form.
	Result = engine.Result
	// Stats are an algorithm's counters.
	Stats = engine.Stats
	// CoreOp is one operation of a violation's core.
	CoreOp = engine.CoreOp
	// Witness is a linearization that shows a history linearizable.
	Witness = engine.Witness
	// WitnessOp is one operation of a witness.
	WitnessOp = engine.WitnessOp
	// Operation is one timestamped operation, as a test harness records it.
	Operation = engine.Operation
	// Monitor checks one object's calls and returns as they happen.
	Monitor = engine.Monitor
	// Recorder records a running program's operations and checks them.
	Recorder = engine.Recorder
	// KeyedOperation is an Operation on the object named by Key.
	KeyedOperation = multi.KeyedOperation
	// LogResult reports the check of a log of many objects.
	LogResult = multi.LogResult
	// ObjectResult is one object's part of a LogResult.
	ObjectResult = multi.ObjectResult
	// MultiOptions are the options of a check of many objects.
	MultiOptions = multi.MultiOptions
)

// DefaultOptions is the variant used when none is named.
func DefaultOptions() Options { return engine.DefaultOptions() }

// New returns a monitor for one object of kind obj (param: its initial
// state, or a semaphore's capacity).
func New(obj Object, param string, opt Options) (*Monitor, error) { return engine.New(obj, param, opt) }

// NewContext is New with a context whose end stops the check (Timeout).
func NewContext(ctx context.Context, obj Object, param string, opt Options) (*Monitor, error) {
	return engine.NewContext(ctx, obj, param, opt)
}

// NewRecorder returns a recorder checking obj with opt; onViolation is
// called once, at the violation.
func NewRecorder(obj Object, param string, opt Options, onViolation func(Result)) *Recorder {
	return engine.NewRecorder(obj, param, opt, onViolation)
}

// Check checks a timestamped history of obj with DefaultOptions, as
// Porcupine's CheckOperations does.
func Check(ctx context.Context, obj Object, ops []Operation) (Result, error) {
	return engine.Check(ctx, obj, ops)
}

// CheckOperations is Check with an initial state and options.
func CheckOperations(ctx context.Context, obj Object, param string, ops []Operation, opt Options) (Result, error) {
	return engine.CheckOperations(ctx, obj, param, ops, opt)
}

// CheckHistory checks a history built in memory.
func CheckHistory(hist *History, opt Options) (Result, error) { return engine.CheckHistory(hist, opt) }

// CheckLog reads one object's log in satmon's format and checks it.
func CheckLog(r io.Reader, name string, obj Object, param string, opt Options) (Result, error) {
	return engine.CheckLog(r, name, obj, param, opt)
}

// CheckLogFunc reads a log whose header names the object, calling
// onViolation at the violation.
func CheckLogFunc(r io.Reader, lo logfmt.Options, opt Options, onViolation func(Result)) (Result, error) {
	return engine.CheckLogFunc(r, lo, opt, onViolation)
}

// CheckKeyed checks operations on many objects of kind obj, one per key,
// such as a key-value store's (KVPut, KVGet, KVAppend on StringRegister).
func CheckKeyed(ctx context.Context, obj Object, param string, ops []KeyedOperation, opt MultiOptions) (LogResult, error) {
	return multi.CheckKeyed(ctx, obj, param, ops, opt)
}

// KVPut is a key-value store's put(v), a write of the string register.
func KVPut(v string) Label { return multi.KVPut(v) }

// KVAppend is a key-value store's append(v).
func KVAppend(v string) Label { return multi.KVAppend(v) }

// KVGet is a key-value store's get returning v, a read.
func KVGet(v string) Label { return multi.KVGet(v) }

// Actions lists a history's calls and returns in real-time order.
func Actions(hist *History) []Action { return engine.Actions(hist) }
