// Package record logs the calls and returns of a concurrent object's
// operations in an order consistent with real time.
//
// Wrap each operation of your object like this:
//
//	r := record.New(w, monitor.Queue, "")
//	...
//	op := r.Call(monitor.Label{Method: monitor.Add, Arg: "7"}) // before the operation
//	q.Enqueue(7)
//	op.Return(monitor.Void) // after it
//	...
//	err := r.Close()
//
// Call and Return are safe for concurrent use and take no lock on their
// common path. The log is written in satmon's format (docs/format.md) while
// the program runs, with bounded memory; docs/recording.md explains why the
// recorded order never claims an order that did not happen. To check the
// log while the program runs, without ever blocking it, use
// monitor.NewRecorder.
package record

import (
	"io"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/record"
	"github.com/satmon/satmon/monitor"
)

// The recorder lives in internal/record, on internal/history's types, for
// the checker (monitor.NewRecorder) to use without importing monitor;
// this package gives it the library's types.

// DefaultBuffer is the number of actions a Recorder holds before it has
// written them out. A goroutine that would need more waits (helping to
// write) until older actions are out.
const DefaultBuffer = 1 << 12 // internal/record's (TestDefaultBuffer)

// ErrClosed is returned by Close and Flush after Close.
var ErrClosed = record.ErrClosed

// Recorder writes the actions of one object's operations to a log.
type Recorder struct{ r *record.Recorder }

// New starts a log of an object of kind obj with parameter param (the
// semaphore's capacity, the register's initial value, or "") and writes
// its header to w. Errors writing to w are reported by Flush and Close.
func New(w io.Writer, obj monitor.Object, param string) *Recorder {
	return &Recorder{record.New(w, h.Object(obj), param)}
}

// Op is the handle of a called operation; Return records its end.
type Op struct{ op record.Op }

// Call records the call of an operation with label l (method, argument
// and for a priority-queue add the priority; Ret and Pending are ignored).
// Call it before the operation's first step: the call is stamped before
// Call returns.
func (r *Recorder) Call(l monitor.Label) Op {
	return Op{r.r.Call(h.Label{Method: h.Method(l.Method), Arg: h.Value(l.Arg), Old: h.Value(l.Old), Prio: l.Prio})}
}

// Return records that the operation ended with result v (monitor.Void for
// methods that return nothing). Call it after the operation's last step.
// A second Return of the same Op is an error reported by Flush and Close.
func (o Op) Return(v monitor.Value) { o.op.Return(h.Value(v)) }

// Flush writes every action recorded so far that can be written in
// order and flushes the underlying writer. An action whose Call or Return
// is still running holds back the actions after it.
func (r *Recorder) Flush() error { return r.r.Flush() }

// Close writes every action and flushes the underlying writer, which it
// does not close. Operations still open stay pending in the log. Call it
// once every Call and Return has returned; they panic afterwards. It
// returns the first error met.
func (r *Recorder) Close() error { return r.r.Close() }
