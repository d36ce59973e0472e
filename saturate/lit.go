package saturate

import "github.com/satmon/satmon/internal/z"

// Var and Lit are the shared variables and literals of internal/z, named
// here so that code outside this module can hold them: the methods (Pos,
// Neg, Not, Var, IsNeg, Dimacs) come with the alias.
type (
	Var = z.Var
	Lit = z.Lit
)

// Value is the truth value of a literal: internal/z's, so that the
// encoder can read the assignment as a table (Solver.Assignment).
type Value = z.Value

// The three truth values. Unknown is the zero value so that freshly grown
// tables start out unassigned.
const (
	Unknown = z.Unknown
	True    = z.True
	False   = z.False
)

// ClauseID is a handle on an added clause, used to remove it. The low 32
// bits are the clause's storage slot and the high 32 bits the slot's
// generation; slots are recycled but every reuse bumps the generation, so a
// stale handle never removes a different clause. A unit clause has no slot:
// its low bits are its variable, complemented (so negative), and its high
// bits the variable's generation, bumped each time the variable is
// forgotten. The zero ClauseID names no clause.
type ClauseID uint64

// NoClause is the zero ClauseID; it never names a clause.
const NoClause ClauseID = 0

func makeClauseID(slot int32, gen uint32) ClauseID {
	return ClauseID(gen)<<32 | ClauseID(uint32(slot))
}

// unitID is the handle of the unit clauses on v while v has generation
// gen.
func unitID(v z.Var, gen uint32) ClauseID { return makeClauseID(^int32(v), gen) }

func (id ClauseID) slot() int32 { return int32(uint32(id)) }
func (id ClauseID) gen() uint32 { return uint32(id >> 32) }

// unitVar is the variable of a unit clause's handle, or 0 if id names a
// stored clause.
func (id ClauseID) unitVar() z.Var {
	if s := id.slot(); s < 0 {
		return z.Var(^s)
	}
	return 0
}
