package engine

import (
	"sort"

	"github.com/satmon/satmon/encode"
	"github.com/satmon/satmon/internal/enumerate"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/sat"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

// encodeWhole grounds the kernel over a whole history into s, replaying
// its actions in order; pending operations' ∀∃ instances are included
// unconditionally, so s is satisfiable iff hist is linearizable.
func encodeWhole(k *theory.Kernel, hist *h.History, s encode.Sink) *encode.Encoder {
	e, _ := encodeHistory(k, hist, s, nil)
	return e
}

// encodeHistory is encodeWhole polling stop (nil: never); it returns
// errStopped, and an incomplete encoding, once stop returns true.
func encodeHistory(k *theory.Kernel, hist *h.History, s encode.Sink, stop func() bool) (*encode.Encoder, error) {
	e := encode.Replay(k, hist, s, encode.ReplayOptions{Stop: stop})
	if !e.Stopped() {
		e.EmitOpen(z.LitNull)
	}
	if e.Stopped() {
		return e, errStopped
	}
	return e, nil
}

// EncodeHistoryNamed is encodeWhole with variable names recorded, for
// DIMACS comments.
func EncodeHistoryNamed(k *theory.Kernel, hist *h.History, s encode.Sink) *encode.Encoder {
	e := encode.Replay(k, hist, s, encode.ReplayOptions{Names: true})
	e.EmitOpen(z.LitNull)
	return e
}

// symChecker is SYMBOLIC and its -c and -i variations.
type symChecker struct {
	opt    Options
	k      *theory.Kernel
	stop   func() bool
	solver sat.Solver      // live solver (-i)
	enc    *encode.Encoder // live encoder (-i)
	checks int
	vars   int
	cls    int
}

func newSymChecker(k *theory.Kernel, opt Options, stop func() bool) (*symChecker, error) {
	c := &symChecker{opt: opt, k: k, stop: stop}
	if opt.Incremental {
		s, err := sat.New(opt.Solver)
		if err != nil {
			return nil, err
		}
		c.solver = s
		c.enc = encode.New(k, s, encode.Config{Stop: stop})
		c.enc.Begin()
	}
	return c, nil
}

// stopped is errStopped once the live encoder was interrupted.
func (c *symChecker) stopped() error {
	if c.enc != nil && c.enc.Stopped() {
		return errStopped
	}
	return nil
}

func (c *symChecker) call(w *window, s int) error {
	if c.enc != nil {
		c.enc.CallOp(w.op(s), s)
	}
	return c.stopped()
}

func (c *symChecker) ret(w *window, s int) (bool, error) {
	if c.enc != nil {
		c.enc.ReturnOp(w.op(s), s)
	}
	if err := c.stopped(); err != nil {
		return false, err
	}
	hist, serials := w.history()
	c.checks++
	switch {
	case c.opt.Completion && c.enc != nil:
		return c.completionsLive(hist, serials)
	case c.opt.Completion:
		return c.completionsScratch(hist)
	case c.enc != nil:
		act := c.solver.NewVar().Pos()
		c.enc.EmitOpen(act)
		if err := c.stopped(); err != nil {
			return false, err
		}
		r := c.solver.Solve(c.stop, act)
		c.solver.AddClause([]z.Lit{act.Not()}) // retire this step's open instances
		c.vars, c.cls = c.enc.Stats()
		return c.answer(r)
	default:
		return c.scratch(hist)
	}
}

// scratch decides hist with a fresh solver: SYMBOLIC's check of a return,
// and each of the checks End makes of a finite log's prefixes.
func (c *symChecker) scratch(hist *h.History) (bool, error) {
	s, err := sat.New(c.opt.Solver)
	if err != nil {
		return false, err
	}
	e, err := encodeHistory(c.k, hist, s, c.stop)
	if err != nil {
		return false, err
	}
	c.vars, c.cls = e.Stats()
	return c.answer(s.Solve(c.stop))
}

// answer maps a solver answer to membership: unknown counts as member
// (§6), unless the monitor's own deadline passed.
func (c *symChecker) answer(r int) (bool, error) {
	if r == sat.Unknown && c.stop != nil && c.stop() {
		return false, errStopped
	}
	return r != sat.Unsat, nil
}

// completionsScratch is SYMBOLIC -c: each completion of the window is
// encoded afresh and solved; the solver searches linearizations only.
func (c *symChecker) completionsScratch(hist *h.History) (bool, error) {
	member := false
	err := enumerate.Completions(c.k, hist, func(comp *h.History) (bool, error) {
		if c.stop != nil && c.stop() {
			return false, errStopped
		}
		s, err := sat.New(c.opt.Solver)
		if err != nil {
			return false, err
		}
		e, err := encodeHistory(c.k, comp, s, c.stop)
		if err != nil {
			return false, err
		}
		c.vars, c.cls = e.Stats()
		r := s.Solve(c.stop)
		if r == sat.Unknown && c.stop != nil && c.stop() {
			return false, errStopped
		}
		if r != sat.Unsat {
			member = true
			return true, nil
		}
		return false, nil
	})
	return member, err
}

// completionsLive is SYMBOLIC -c -i: the live solver is asked once per
// completion, the completion given as assumptions on used and ret.
func (c *symChecker) completionsLive(hist *h.History, serials []int) (bool, error) {
	act := c.solver.NewVar().Pos()
	c.enc.EmitOpen(act)
	defer c.solver.AddClause([]z.Lit{act.Not()})
	if err := c.stopped(); err != nil {
		return false, err
	}
	c.vars, c.cls = c.enc.Stats()
	pending, cands, sizes := enumerate.PendingCandidates(c.k, hist)
	member := false
	err := enumerate.Odometer(sizes, func(choice []int) (bool, error) {
		if c.stop != nil && c.stop() {
			return false, errStopped
		}
		assume := []z.Lit{act}
		for j, i := range pending {
			u := c.enc.UsedLit(serials[i])
			if choice[j] < 0 {
				assume = append(assume, u.Not())
				continue
			}
			assume = append(assume, u)
			v := cands[j][choice[j]]
			for val, l := range c.enc.RetVars(serials[i]) {
				if val == v {
					assume = append(assume, l)
				} else {
					assume = append(assume, l.Not())
				}
			}
		}
		r := c.solver.Solve(c.stop, assume...)
		if r == sat.Unknown && c.stop != nil && c.stop() {
			return false, errStopped
		}
		member = r != sat.Unsat
		return member, nil
	})
	return member, err
}

func (c *symChecker) refuted() bool { return false }

// remove, for SYMBOLIC -i -r, rebuilds the live solver from the window
// without the forgotten operations: neither backend can delete clauses.
// (Without -i every check encodes the window afresh anyway.)
func (c *symChecker) remove(w *window, serials []int) error {
	if c.enc == nil {
		return nil
	}
	live := map[int]bool{}
	for _, s := range serials {
		live[s] = false
	}
	s, err := sat.New(c.opt.Solver)
	if err != nil {
		return err
	}
	c.solver, c.enc = s, encode.New(c.k, s, encode.Config{Stop: c.stop})
	c.enc.Begin()
	type event struct{ seq, serial int }
	var evs []event
	_, order := w.history()
	for _, sr := range order {
		if _, gone := live[sr]; gone {
			continue
		}
		o := w.op(sr)
		evs = append(evs, event{o.Call, sr})
		if o.Return >= 0 {
			evs = append(evs, event{o.Return, sr})
		}
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].seq < evs[j].seq })
	for _, ev := range evs {
		if err := c.stopped(); err != nil {
			return err
		}
		o := w.op(ev.serial)
		if ev.seq == o.Call {
			c.enc.CallOp(o, ev.serial)
		} else {
			c.enc.ReturnOp(o, ev.serial)
		}
	}
	return nil
}

func (c *symChecker) stats() Stats {
	return Stats{Checks: c.checks, Vars: c.vars, Clauses: c.cls}
}
