package gen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// JepsenConfig describes a register history written as Jepsen log lines
// (the format of Jepsen's etcd test, docs/format.md): Clients processes
// reading, writing and compare-and-setting one register that starts
// absent (nil), as Jepsen's register workloads do.
type JepsenConfig struct {
	Ops     int // operations invoked
	Clients int // processes, each with at most one operation open
	Values  int // values written are 0 … Values-1, so they repeat
	// Reads and CAS are the shares of reads and of compare-and-sets among
	// the operations; writes take the rest. CAS 0 gives a plain register.
	Reads, CAS float64
	// Info is the share of operations that crash: the process logs
	// :info, the operation may or may not have taken effect and stays
	// open for ever, and the process comes back under a new id (its old
	// id plus Clients), as Jepsen's do.
	Info float64
	// Stale adds one stale read, which makes the history certainly not
	// linearizable: a read, called after the second half of the
	// operations began, returns a value v such that every operation that
	// wrote v returned before some write of another value was called, that
	// write returned before the read is called, and no operation that
	// writes v is open or crashed when the read is called (the read
	// returns at once, so none is concurrent with it).
	Stale bool
	Seed  int64
}

// Validate reports the first problem with c.
func (c JepsenConfig) Validate() error {
	switch {
	case c.Ops < 0:
		return errors.New("ops must not be negative")
	case c.Clients < 1:
		return errors.New("clients must be at least 1")
	case c.Values < 1:
		return errors.New("values must be at least 1")
	case c.Reads < 0 || c.CAS < 0 || c.Reads+c.CAS > 1:
		return errors.New("the read and cas shares must be in [0, 1] and sum to at most 1")
	case c.Info < 0 || c.Info > 1:
		return errors.New("the :info share must be in [0, 1]")
	case c.Stale && c.Values < 2:
		return errors.New("a stale read needs at least 2 values")
	}
	return nil
}

// ErrNoStale is Jepsen's error when the run never met the conditions of
// a stale read (too few operations or writes, or too many crashes).
var ErrNoStale = errors.New("no stale read could be placed: try more operations, more writes or fewer crashes")

// jepOp is an operation under way in the simulation.
type jepOp struct {
	proc     int
	f        byte // 'r', 'w', 'c'
	arg, old int
	crash    bool // it will end with :info
	lin      bool // its linearization point passed
	ret      int  // the value read (-1: nil); for a cas, 1 if it succeeded
	call     int  // the event number of its invoke
}

// nilVal is the register's absent value.
const nilVal = -1

// Jepsen writes the history cfg describes to w, one event per line. The
// simulation is an atomic register: each operation takes effect at one
// point between its invoke and its completion (a crashed one at such a
// point or never), so without Stale the history is linearizable by
// construction.
func Jepsen(cfg JepsenConfig, w io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6a65707365))
	bw := bufio.NewWriter(w)
	proc := make([]int, cfg.Clients) // each client's current process id
	for i := range proc {
		proc[i] = i
	}
	open := make([]*jepOp, cfg.Clients) // by client; nil when idle
	var idle []int
	for i := range cfg.Clients {
		idle = append(idle, i)
	}
	var busy []int // clients with an open operation
	reg := nilVal
	events := 0
	// For the stale read: lastRet[v] is the event at which the latest
	// operation that wrote v returned; maxCall[v] the latest invoke of a
	// returned successful write of v; crashed[v] that a crashed operation
	// may write v; openW[v] the open operations that may write v.
	lastRet := make([]int, cfg.Values)
	maxCall := make([]int, cfg.Values)
	for v := range lastRet {
		lastRet[v], maxCall[v] = -1, -1
	}
	crashed := make([]bool, cfg.Values)
	openW := make([]int, cfg.Values)
	stale := !cfg.Stale
	line := func(p int, typ, f, val string) {
		fmt.Fprintf(bw, "INFO  jepsen.util - %d\t:%s\t:%s\t%s\n", p, typ, f, val)
		events++
	}
	value := func(v int) string {
		if v == nilVal {
			return "nil"
		}
		return strconv.Itoa(v)
	}
	fname := map[byte]string{'r': "read", 'w': "write", 'c': "cas"}
	argText := func(o *jepOp) string {
		switch o.f {
		case 'w':
			return value(o.arg)
		case 'c':
			return "[" + value(o.old) + " " + value(o.arg) + "]"
		}
		return "nil"
	}
	// staleValue finds a value a read called now may return stale, or -1.
	staleValue := func() int {
		for _, v := range rng.Perm(cfg.Values) {
			if lastRet[v] < 0 || crashed[v] || openW[v] > 0 {
				continue
			}
			for u := range cfg.Values {
				if u != v && maxCall[u] > lastRet[v] {
					return v
				}
			}
		}
		return -1
	}
	invoked := 0
	for invoked < cfg.Ops || len(busy) > 0 {
		if invoked < cfg.Ops && len(idle) > 0 && (len(busy) == 0 || rng.IntN(2) == 0) {
			j := rng.IntN(len(idle))
			c := idle[j]
			o := &jepOp{proc: proc[c], crash: rng.Float64() < cfg.Info}
			x := rng.Float64()
			switch {
			case x < cfg.Reads:
				o.f = 'r'
			case x < cfg.Reads+cfg.CAS:
				o.f, o.arg = 'c', rng.IntN(cfg.Values)
				if o.old = reg; rng.IntN(2) == 0 || reg == nilVal {
					o.old = rng.IntN(cfg.Values)
				}
			default:
				o.f, o.arg = 'w', rng.IntN(cfg.Values)
			}
			invoked++
			if o.f == 'r' && !stale && invoked > cfg.Ops/2 {
				if v := staleValue(); v >= 0 {
					// Called and returned with nothing in between.
					line(o.proc, "invoke", "read", "nil")
					line(o.proc, "ok", "read", value(v))
					stale = true
					continue
				}
			}
			o.call = events
			line(o.proc, "invoke", fname[o.f], argText(o))
			if o.f != 'r' {
				openW[o.arg]++
			}
			open[c] = o
			idle[j] = idle[len(idle)-1]
			idle = idle[:len(idle)-1]
			busy = append(busy, c)
			continue
		}
		j := rng.IntN(len(busy))
		c := busy[j]
		o := open[c]
		if !o.lin && !(o.crash && rng.IntN(2) == 0) {
			// The linearization point: the operation takes effect now.
			o.lin = true
			switch o.f {
			case 'r':
				o.ret = reg
			case 'w':
				reg = o.arg
			case 'c':
				if reg == o.old {
					reg, o.ret = o.arg, 1
				} else {
					o.ret = 0
				}
			}
			if !o.crash {
				continue
			}
		}
		// The completion.
		busy[j] = busy[len(busy)-1]
		busy = busy[:len(busy)-1]
		open[c] = nil
		idle = append(idle, c)
		if o.f != 'r' {
			openW[o.arg]--
		}
		switch {
		case o.crash:
			line(o.proc, "info", fname[o.f], argText(o))
			proc[c] += cfg.Clients
			if o.f != 'r' {
				crashed[o.arg] = true
			}
		case o.f == 'r':
			line(o.proc, "ok", "read", value(o.ret))
		case o.f == 'c' && o.ret == 0:
			line(o.proc, "fail", "cas", argText(o))
		default:
			line(o.proc, "ok", fname[o.f], argText(o))
			lastRet[o.arg] = events - 1
			maxCall[o.arg] = max(maxCall[o.arg], o.call)
		}
	}
	if !stale {
		return ErrNoStale
	}
	return bw.Flush()
}
