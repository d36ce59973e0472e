package monitor

import (
	"github.com/satmon/satmon/encode"
	"github.com/satmon/satmon/saturate"
	"github.com/satmon/satmon/theory"
)

// satSink feeds the encoder's clauses to the saturator.
type satSink struct {
	s   *saturate.Solver
	buf []saturate.Lit
}

func (k *satSink) NewVar() int { return int(k.s.NewVar()) }

func (k *satSink) AddClause(lits []encode.Lit) {
	k.buf = k.buf[:0]
	for _, l := range lits {
		if l > 0 {
			k.buf = append(k.buf, saturate.Pos(saturate.Var(l)))
		} else {
			k.buf = append(k.buf, saturate.Neg(saturate.Var(-l)))
		}
	}
	k.s.AddClause(k.buf...)
}

// satChecker is SATURATE: the grounded clauses of each action go to the
// saturator, and a conflict found by unit propagation alone is a
// violation. Only closed instances are emitted, so nothing is assumed about
// pending operations.
type satChecker struct {
	sink   *satSink
	enc    *encode.Encoder
	checks int
}

func newSatChecker(k *theory.Kernel) *satChecker {
	sink := &satSink{s: saturate.New()}
	return &satChecker{sink: sink, enc: startEncoder(k, sink)}
}

func (c *satChecker) call(w *window, s int) error {
	c.enc.Call(encOp(w.op(s), s))
	return nil
}

func (c *satChecker) ret(w *window, s int) (bool, error) {
	o := w.op(s)
	c.enc.Return(s, o.Label.Ret, o.Return+2)
	c.checks++
	return c.sink.s.Propagate(), nil
}

func (c *satChecker) remove(_ *window, serials []int) error {
	vars := c.enc.Remove(serials)
	vs := make([]saturate.Var, len(vars))
	for i, v := range vars {
		vs[i] = saturate.Var(v)
	}
	return c.sink.s.ForgetVars(vs)
}

func (c *satChecker) stats() Stats {
	st := c.sink.s.Stats()
	return Stats{Checks: c.checks, Vars: st.Vars, Clauses: st.Clauses, Propagations: st.Propagations}
}
