package monitor

import (
	"github.com/satmon/satmon/internal/sat"
	"github.com/satmon/satmon/internal/z"
)

// dimacsSolver gives a sat.Solver the encoder's DIMACS-style literals.
type dimacsSolver struct {
	s   sat.Solver
	buf []z.Lit
}

func newSolver(name string) (*dimacsSolver, error) {
	s, err := sat.New(name)
	if err != nil {
		return nil, err
	}
	return &dimacsSolver{s: s}, nil
}

func (d *dimacsSolver) NewVar() int { return int(d.s.NewVar()) }

func (d *dimacsSolver) lits(ls []int) []z.Lit {
	d.buf = d.buf[:0]
	for _, l := range ls {
		d.buf = append(d.buf, z.Dimacs2Lit(l))
	}
	return d.buf
}

func (d *dimacsSolver) AddClause(lits []int) { d.s.AddClause(d.lits(lits)) }

func (d *dimacsSolver) Solve(stop func() bool, assumptions ...int) int {
	return d.s.Solve(stop, d.lits(assumptions)...)
}
