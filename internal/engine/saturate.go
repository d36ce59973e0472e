package engine

import (
	"github.com/satmon/satmon/encode"
	"github.com/satmon/satmon/internal/valtab"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/saturate"
	"github.com/satmon/satmon/theory"
)

// satSink feeds the encoder's clauses to the saturator: both speak
// internal/z, so literals pass straight through.
type satSink struct {
	s *saturate.Solver
	// created, when not nil, collects every variable handed out, for the
	// benchmarks' per-step counters.
	created *[]z.Var
}

func (k *satSink) NewVar() z.Var {
	v := k.s.NewVar()
	if k.created != nil {
		*k.created = append(*k.created, v)
	}
	return v
}

func (k *satSink) AddClause(lits []encode.Lit) { k.s.AddClause(lits...) }

// Assignment hands the encoder the saturator's assignment as a table
// (encode.Values).
func (k *satSink) Assignment() *[]z.Value { return k.s.Assignment() }

// satChecker is SATURATE: the grounded clauses of each action go to the
// saturator, and a conflict found by unit propagation alone is a
// violation. Only closed instances are emitted, so nothing is assumed about
// pending operations.
type satChecker struct {
	sink   *satSink
	enc    *encode.Encoder
	checks int
	// conflict: forgetting made the window's smaller history unsatisfiable
	// under unit propagation (see remove).
	conflict bool
}

// newSatChecker makes SATURATE. With removal (-r) the encoder is told
// that every forgetting is closed (encode.Config.ClosedRemoval): the remover
// forgets only matches (§5, Theorem 3) and operations that left the state
// alone, and a summary's segment goes with the operations it stands for.
//
// vals is the window's interner: the encoder takes the value IDs the
// window's operations carry.
func newSatChecker(k *theory.Kernel, removal bool, stop func() bool, vals *valtab.Interner) *satChecker {
	sink := &satSink{s: saturate.New()}
	sink.s.Observe()
	enc := encode.New(k, sink, encode.Config{Lazy: sink, Watch: true, ClosedRemoval: removal, Stop: stop, Values: vals})
	enc.Begin()
	return &satChecker{sink: sink, enc: enc}
}

func (c *satChecker) call(w *window, s int) error {
	c.enc.CallOp(w.op(s), s)
	return c.stopped()
}

// stopped is errStopped once the encoder was interrupted: its clauses are
// then incomplete, and the monitor stops with Timeout.
func (c *satChecker) stopped() error {
	if c.enc.Stopped() {
		return errStopped
	}
	return nil
}

func (c *satChecker) ret(w *window, s int) (bool, error) {
	c.enc.ReturnOp(w.op(s), s)
	c.checks++
	return c.saturate()
}

// saturate propagates to the fixpoint and reports whether it is free of
// conflict. Transitivity and watched instances are generated as they
// become unit: alternate until no new fact appears.
func (c *satChecker) saturate() (bool, error) {
	for c.sink.s.Propagate() {
		if err := c.stopped(); err != nil {
			return false, err
		}
		lits := c.sink.s.TakeAssigned()
		if len(lits) == 0 && !c.enc.Waiting() {
			return true, nil
		}
		c.enc.Assigned(lits)
	}
	return false, nil
}

func (c *satChecker) remove(_ *window, serials []int) error {
	if err := c.sink.s.ForgetVars(c.enc.Remove(serials)); err != nil {
		return err
	}
	// The instances that lost a witness may have become unit or false
	// (encode.ClosedRemoval): what the smaller history implies is
	// propagated now, and a conflict is a violation of this step, since
	// the whole history is linearizable only if the smaller one is.
	ok, err := c.saturate()
	c.conflict = c.conflict || !ok
	return err
}

func (c *satChecker) refuted() bool { return c.conflict }

func (c *satChecker) stats() Stats {
	st := c.sink.s.Stats()
	return Stats{Checks: c.checks, Vars: st.Vars, Clauses: st.Clauses, Propagations: st.Propagations}
}
