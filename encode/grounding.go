package encode

import "github.com/satmon/satmon/internal/z"

// grounding is what SATURATE's lazy grounding and the complete encoding
// of SYMBOLIC and DIMACS do differently at the phases of the entry points
// (step.go) and when a pending operation gets a ret or match variable
// (makeVar). New chooses it once, a *lazyGround (lazy.go) or an
// eagerGround (eager.go), so that no phase asks which encoder it is in.
// It is declared here, below both and below makeVar (output.go), which
// calls it when a pending operation gets a variable: the one call of a
// lower part into a higher one, through the interface.
type grounding interface {
	// called is Call's phase for op, which has joined the window.
	called(op *Op)
	// assigned is Assigned.
	assigned(lits []Lit)
	// pendingRet and pendingMatch are the side clauses of a new ret
	// variable l of o, o pending, respectively of a new match variable
	// l = match(x,y), x or y pending.
	pendingRet(o *Op, l Lit)
	pendingMatch(x, y *Op, l Lit)
	// forgotten is told of the variables of one operation Remove
	// forgets; revisit is Remove's phase after the operations have left
	// the window.
	forgotten(vars []z.Var)
	revisit()
	// stats adds the grounding's own counts.
	stats(s *GroundingStats)
}

// zeroSink is the complete encoding's sink: it keeps Encoder.noAssign,
// the assignment read without a saturator, as long as the variables, so
// that val reads every literal as unassigned without a test of its own.
type zeroSink struct {
	Sink
	vals *[]z.Value
}

func (s zeroSink) NewVar() z.Var {
	v := s.Sink.NewVar()
	if n := int(v.Neg()) + 1; n > len(*s.vals) {
		*s.vals = append(*s.vals, make([]z.Value, max(n, 2*len(*s.vals))-len(*s.vals))...)
	}
	return v
}

// GroundingStats counts the grounding's work so far, for benchmarks.
type GroundingStats struct {
	// Bindings is the candidates bound to a universal variable while
	// enumerating instances.
	Bindings int
	// Watched is the ∀∃ instances SATURATE watched instead of emitting,
	// Materialised those of them that became unit or false.
	Watched, Materialised int
}
