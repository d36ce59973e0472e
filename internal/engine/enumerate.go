package engine

import (
	"github.com/satmon/satmon/internal/enumerate"
	"github.com/satmon/satmon/internal/sat"
	"github.com/satmon/satmon/internal/z"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// errStopped reports that an exact check was cut short by its deadline.
// It is internal/enumerate's, so that errors.Is(err, errStopped) holds
// of an interrupted ENUMERATE too.
var errStopped = enumerate.ErrStopped

// enumerateMember decides hist ∈ H̄ exactly by ENUMERATE -c
// (internal/enumerate).
func enumerateMember(k *theory.Kernel, hist *h.History, stop func() bool) (bool, error) {
	return enumerate.Member(k, hist, stop)
}

// enumerateLinearizations is ENUMERATE without -c: it enumerates the
// linearizations of all of hist's operations (pending ones included) and
// leaves the completions to the SAT solver, which is told the order by
// assumptions. For the exchanger, whose kernel is not sequential, the one
// order tried is real time itself.
// stop is polled and may be nil; when it returns true the enumeration,
// the grounding and the solver give up with errStopped.
func enumerateLinearizations(k *theory.Kernel, hist *h.History, solver string, stop func() bool) (bool, error) {
	s, err := sat.New(solver)
	if err != nil {
		return false, err
	}
	e, err := encodeHistory(k, hist, s, stop)
	if err != nil {
		return false, err
	}
	ops := e.Ops()
	n := len(ops)
	try := func(pos []int) (bool, error) {
		var assume []z.Lit
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i == j {
					continue
				}
				l, _ := e.BLit(ops[i].Serial, ops[j].Serial)
				if l == z.LitNull {
					continue
				}
				if k.Sequential && pos[i] < pos[j] {
					assume = append(assume, l)
				} else {
					assume = append(assume, l.Not())
				}
			}
		}
		r := s.Solve(stop, assume...)
		if r == sat.Unknown && stop != nil && stop() {
			return false, errStopped
		}
		return r != sat.Unsat, nil
	}
	pos := make([]int, n)
	if !k.Sequential {
		return try(pos)
	}
	polls := 0
	return enumerate.Linearizations(n, func(a, b int) bool { return ops[a].Return >= 0 && ops[a].Return < ops[b].Call }, func(pos []int) (bool, error) {
		polls++
		if stop != nil && polls%16 == 0 && stop() {
			return false, errStopped
		}
		return try(pos)
	})
}
