// Package gen draws synthetic histories: legal sequential runs stretched
// into concurrent intervals, optionally mutated.
package gen

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/satmon/satmon/internal/history"
)

// Config describes the histories to draw.
type Config struct {
	Object      history.Object
	Ops         int // operations in the history
	Concurrency int // most operations open at once, at least 1
	// Capacity bounds the elements a queue, stack or priority queue holds
	// (0: unbounded); for the semaphore it is the capacity (0 means 1).
	Capacity int
	Pending  int   // operations left without a return, at most Concurrency
	Seed     int64 // the same Config always yields the same history
	Mutate   int   // faults to inject; 0 keeps the history linearizable
	// Values is the size of the value pool for register writes, set
	// elements and collection elements, so that values repeat; 0 means
	// unique register and collection values and a pool of 4 set
	// elements.
	Values int
	// Drain ends the history with sequential operations that bring the
	// object back to a state a fresh monitor can start from (an empty
	// collection, a free lock, a register whose last write is known), so
	// that a checker of many objects may forget it (monitor.CheckSource).
	Drain bool
}

// Validate reports the first problem with c.
func (c Config) Validate() error {
	switch {
	case c.Object == history.NoObject || int(c.Object) > len(history.Objects):
		return fmt.Errorf("unknown object %v", c.Object)
	case c.Ops < 0:
		return errors.New("ops must not be negative")
	case c.Concurrency < 1:
		return errors.New("concurrency must be at least 1")
	case c.Capacity < 0:
		return errors.New("capacity must not be negative")
	case c.Pending < 0 || c.Mutate < 0 || c.Values < 0:
		return errors.New("pending, mutate and values must not be negative")
	case c.Pending > c.Ops:
		return fmt.Errorf("pending (%d) exceeds ops (%d)", c.Pending, c.Ops)
	case c.Pending > c.Concurrency:
		// A pending operation holds its slot forever; more of them than
		// slots could leave no room to call the rest.
		return fmt.Errorf("pending (%d) exceeds concurrency (%d)", c.Pending, c.Concurrency)
	}
	return nil
}

// Param is the object parameter of the drawn history, as History.Param:
// the semaphore's capacity and the register's initial value "0".
func (c Config) Param() string {
	switch c.Object {
	case history.Semaphore:
		return strconv.Itoa(max(c.Capacity, 1))
	case history.Register:
		return "0"
	}
	return ""
}

// History draws a whole history into memory.
func History(cfg Config) (*history.History, error) {
	b := history.NewBuilder(cfg.Object, cfg.Param())
	err := Generate(cfg, func(a history.Action) error {
		_, err := b.Add(a)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &b.H, nil
}

// Generate draws a history and passes its actions to emit in log order,
// stopping at emit's first error. Memory stays O(Concurrency + Capacity +
// Values) however many operations are drawn; an unbounded collection
// (Capacity 0) follows a random walk, about √Ops elements.
//
// Operation i of a sequential run drawn from the object's model
// linearizes at point i; its call comes before that point and its return
// after, so the run's order extends the real-time order and the history
// is linearizable unless mutated. Action Line numbers are those of a log
// written by logfmt.Writer, whose header is line 1.
func Generate(cfg Config, emit func(history.Action) error) error {
	g, err := newGenerator(cfg, emit)
	if err != nil {
		return err
	}
	return g.run()
}

func newGenerator(cfg Config, emit func(history.Action) error) (*generator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &generator{
		cfg:     cfg,
		rng:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x5a7a5a7a)),
		emit:    emit,
		ops:     map[int]*genOp{},
		mutLeft: cfg.Mutate,
	}
	g.model = newDrawer(cfg, g.rng)
	return g, nil
}

// genOp is an operation drawn but not yet returned.
type genOp struct {
	label   history.Label
	id      string
	called  bool
	pending bool // one of the last Pending operations: never returns
	joint   bool // an exchange that linearizes together with the next op
}

type generator struct {
	cfg   Config
	rng   *rand.Rand
	emit  func(history.Action) error
	model drawer

	ops        map[int]*genOp // drawn and not returned, by run index
	drawn      int            // operations [0, drawn) are drawn
	next       int            // smallest index not yet called
	lin        int            // operations [0, lin) are past their linearization point
	open       int            // called and not returned, pending ones included
	returnable []int          // open, past their point, and not pending
	seq        int
	ids        int

	mutLeft, armed int
}

func (g *generator) run() error {
	n, k := g.cfg.Ops, g.cfg.Concurrency
	// Only the sequential objects may be called out of run order: an
	// exchange pair needs both of its ops open at once, which the slot
	// argument below does not account for.
	outOfOrder := g.cfg.Object != history.Exchanger
	for {
		canCall := g.next < n && g.open < k
		// Calling ahead of next keeps a slot free for next, so that
		// whenever all slots are full the op at lin is open and can pass
		// its point: the run never stalls.
		canJump := outOfOrder && g.next+1 < n && g.open+1 < k
		canLin := g.lin < n && g.linReady()
		canRet := len(g.returnable) > 0
		if !canCall && !canLin && !canRet {
			break
		}
		wCall, wJump, wLin, wRet := 0.0, 0.0, 0.0, 0.0
		if canCall {
			wCall = 1
		}
		if canJump {
			wJump = 0.4
		}
		if canLin {
			wLin = 1.5
		}
		if canRet {
			wRet = 1.5
		}
		r := g.rng.Float64() * (wCall + wJump + wLin + wRet)
		var err error
		switch {
		case r < wCall:
			err = g.call(g.next)
		case r < wCall+wJump:
			j := g.next + 1 + g.rng.IntN(min(k, n-g.next)-1)
			err = g.call(j)
		case r < wCall+wJump+wLin:
			err = g.passPoint()
		default:
			i := g.rng.IntN(len(g.returnable))
			idx := g.returnable[i]
			g.returnable[i] = g.returnable[len(g.returnable)-1]
			g.returnable = g.returnable[:len(g.returnable)-1]
			err = g.ret(idx)
		}
		if err != nil {
			return err
		}
	}
	if g.next < n || g.lin < n || len(g.ops) != g.cfg.Pending {
		return fmt.Errorf("gen: internal error: stalled at op %d of %d", g.next, n)
	}
	if d, ok := g.model.(drainer); ok && g.cfg.Drain {
		for _, l := range d.drain() {
			g.ids++
			id := strconv.Itoa(g.ids)
			c := l
			c.Ret, c.Pending = history.Void, true
			if err := g.action(history.Call, id, c); err != nil {
				return err
			}
			if err := g.action(history.Return, id, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// linReady reports whether the op at lin (and its partner, for a joint
// exchange) has been called.
func (g *generator) linReady() bool {
	o := g.ops[g.lin]
	if o == nil || !o.called {
		return false
	}
	if o.joint {
		p := g.ops[g.lin+1]
		return p != nil && p.called
	}
	return true
}

func (g *generator) passPoint() error {
	o := g.ops[g.lin]
	width := 1
	if o.joint {
		width = 2
	}
	for i := g.lin; i < g.lin+width; i++ {
		if !g.ops[i].pending {
			g.returnable = append(g.returnable, i)
		}
	}
	g.lin += width
	return nil
}

// draw extends the run up to and including op i.
func (g *generator) draw(i int) {
	n, p := g.cfg.Ops, g.cfg.Pending
	for g.drawn <= i {
		at := g.drawn
		// Spread the faults over the ops that will return: a pending op's
		// return value is never seen.
		if g.mutLeft > 0 && at < n-p && g.rng.Float64()*float64(n-p-at) < float64(g.mutLeft) {
			g.mutLeft--
			g.armed++
		}
		// A pair is possible when both ops fit and can be open together.
		pairOK := at+1 < n && g.cfg.Concurrency >= 2
		x, y, pair, mutated := g.model.draw(g.armed > 0 && at < n-p, pairOK, at+1 < n-p)
		if mutated {
			g.armed--
		}
		g.ops[at] = &genOp{label: x, pending: at >= n-p, joint: pair}
		g.drawn++
		if pair {
			g.ops[at+1] = &genOp{label: y, pending: at+1 >= n-p}
			g.drawn++
		}
	}
}

func (g *generator) call(i int) error {
	g.draw(i)
	o := g.ops[i]
	if o.called {
		return nil // a jump that landed on an op already called ahead
	}
	o.called = true
	g.ids++
	o.id = strconv.Itoa(g.ids)
	g.open++
	for g.next < g.cfg.Ops && g.ops[g.next] != nil && g.ops[g.next].called {
		g.next++
	}
	l := o.label
	l.Ret, l.Pending = history.Void, true
	return g.action(history.Call, o.id, l)
}

func (g *generator) ret(i int) error {
	o := g.ops[i]
	delete(g.ops, i)
	g.open--
	return g.action(history.Return, o.id, o.label)
}

func (g *generator) action(k history.Kind, id string, l history.Label) error {
	a := history.Action{Kind: k, ID: id, Label: l, Seq: g.seq, Line: g.seq + 2}
	g.seq++
	return g.emit(a)
}
