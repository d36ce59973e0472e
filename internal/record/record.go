// Package record logs the calls and returns of a concurrent object's
// operations in an order consistent with real time: the recorder behind
// monitor/record, monitor.NewRecorder and monitor/kafka, on
// internal/history's types.
//
// Call and Return are safe for concurrent use and take no lock on their
// common path. The log is written in satmon's format (docs/format.md) while
// the program runs, with bounded memory; docs/recording.md explains why the
// recorded order never claims an order that did not happen.
package record

import (
	"errors"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// DefaultBuffer is the number of actions a Recorder holds before it has
// written them out. A goroutine that would need more waits (helping to
// write) until older actions are out.
const DefaultBuffer = 1 << 12

// ErrClosed is returned by Close and Flush after Close.
var ErrClosed = errors.New("record: recorder is closed")

// Recorder writes the actions of one object's operations to a log.
//
// Every action takes a ticket from one global atomic counter: a call before
// the operation starts, a return after it has ended. The ticket is the
// action's position in the log. Tickets are dense, so the action with
// ticket s lives in ring slot s mod len(ring) until it is written, and the
// log is the ring read in ticket order. Writing is done by whichever
// goroutine finds the writer free (TryLock) after a Return, by goroutines
// waiting for room in the ring, and by Flush and Close.
type Recorder struct {
	next atomic.Int64 // the next ticket
	_    [56]byte     // keeps next and done on separate cache lines
	done atomic.Int64 // tickets below done are written
	_    [56]byte
	ring []slot
	mu   sync.Mutex // held by the goroutine that writes

	// Guarded by mu.
	lw     *logfmt.Writer
	ids    uint64           // ids given so far
	open   map[int64]uint64 // call ticket → id, while the operation is open
	err    error
	closed bool

	closing atomic.Bool
}

// slot holds one action between its Call or Return and its writing. seq is
// the ticket plus one once the fields are filled, so a reader that sees it
// (an atomic load) also sees the fields.
type slot struct {
	seq   atomic.Int64
	kind  history.Kind
	call  int64 // the call's ticket: links a return to its operation
	label history.Label
}

// New starts a log of object obj with parameter param (the semaphore's
// capacity, the register's initial value, or "") and writes its header to
// w. Errors writing to w are reported by Flush and Close.
func New(w io.Writer, obj history.Object, param string) *Recorder {
	return newSize(w, obj, param, DefaultBuffer)
}

func newSize(w io.Writer, obj history.Object, param string, n int) *Recorder {
	lw, err := logfmt.NewWriter(w, obj, param)
	return &Recorder{ring: make([]slot, n), lw: lw, err: err, open: map[int64]uint64{}}
}

// Op is the handle of a called operation; Return records its end.
type Op struct {
	r    *Recorder
	call int64
}

// Call records the call of an operation with label l (method, argument and
// for a priority-queue add the priority; Ret and Pending are ignored). Call
// it before the operation's first step: the call is stamped before Call
// returns.
func (r *Recorder) Call(l history.Label) Op {
	l.Ret, l.Pending = history.Void, false
	s := r.put(history.Call, 0, l)
	return Op{r: r, call: s}
}

// Return records that the operation ended with result v (history.Void for
// methods that return nothing). Call it after the operation's last step. A
// second Return of the same Op is an error reported by Flush and Close.
func (o Op) Return(v history.Value) {
	r := o.r
	r.put(history.Return, o.call, history.Label{Ret: v})
	r.tryWrite()
}

// put stamps an action and stores it in its slot. The ticket is taken
// first: the stamp is the moment of the Add, whatever the wait for room.
func (r *Recorder) put(k history.Kind, call int64, l history.Label) int64 {
	if r.closing.Load() {
		panic("record: Call or Return after Close")
	}
	s := r.next.Add(1) - 1
	n := int64(len(r.ring))
	for s >= r.done.Load()+n {
		// The ring is full. The action with the lowest unwritten ticket
		// never waits here, so it is stored soon and whoever holds mu
		// writes it. Waiting on mu rather than spinning leaves the CPU to
		// the writer.
		r.mu.Lock()
		r.drain(len(r.ring))
		r.mu.Unlock()
		if s >= r.done.Load()+n {
			runtime.Gosched()
		}
	}
	sl := &r.ring[s%n]
	sl.kind, sl.call, sl.label = k, call, l
	sl.seq.Store(s + 1)
	return s
}

// tryWrite writes the ready actions unless another goroutine is writing.
// After unlocking it looks again: an action stored while it held the lock
// may have had its own TryLock fail, and must not wait for the next call.
func (r *Recorder) tryWrite() {
	for r.ready() && r.mu.TryLock() {
		r.drain(len(r.ring))
		r.mu.Unlock()
	}
}

func (r *Recorder) ready() bool {
	d := r.done.Load()
	return r.ring[d%int64(len(r.ring))].seq.Load() == d+1
}

// drain writes at most max ready actions in ticket order; mu is held. The
// bound keeps one unlucky goroutine from writing forever for the others.
func (r *Recorder) drain(max int) {
	n := int64(len(r.ring))
	d0 := r.done.Load()
	d := d0
	for i := 0; i < max; i++ {
		sl := &r.ring[d%n]
		if sl.seq.Load() != d+1 {
			break
		}
		r.emit(d, sl)
		d++
		// Publishing done in batches spares the goroutines that read it
		// on every action a cache miss per written action.
		if d-d0 >= 64 {
			r.done.Store(d)
			d0 = d
		}
	}
	r.done.Store(d)
}

func (r *Recorder) emit(s int64, sl *slot) {
	a := history.Action{Kind: sl.kind, Label: sl.label, Seq: int(s)}
	if sl.kind == history.Call {
		r.ids++
		r.open[s] = r.ids
		a.ID = strconv.FormatUint(r.ids, 10)
	} else {
		id, ok := r.open[sl.call]
		if !ok {
			if r.err == nil {
				r.err = errors.New("record: Return called twice for one operation")
			}
			return
		}
		delete(r.open, sl.call)
		a.ID = strconv.FormatUint(id, 10)
	}
	if r.err == nil {
		r.err = r.lw.Write(a)
	}
}

// Flush writes every action recorded so far that can be written in order
// and flushes the underlying writer. An action whose ticket is taken but
// not yet stored (a Call or Return running concurrently) holds back the
// actions after it.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	r.drain(int(r.next.Load() - r.done.Load()))
	if r.err == nil {
		r.err = r.lw.Flush()
	}
	return r.err
}

// Close writes every action and flushes the underlying writer, which it
// does not close. Operations still open stay pending in the log (a call
// without return). Call it once every Call and Return has returned; Call
// and Return panic afterwards. It returns the first error met.
func (r *Recorder) Close() error {
	r.closing.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	r.closed = true
	// Wait for actions whose tickets were taken just before closing.
	for r.done.Load() < r.next.Load() {
		r.drain(len(r.ring))
		if r.done.Load() < r.next.Load() {
			runtime.Gosched()
		}
	}
	if r.err == nil {
		r.err = r.lw.Flush()
	}
	return r.err
}
