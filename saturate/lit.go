package saturate

import "strconv"

// Var is a propositional variable. Variables are numbered from 1; the zero
// Var is never returned by NewVar, so it can serve as "no variable".
type Var int32

// Lit is a literal in MiniSat encoding: 2*v for v and 2*v+1 for ¬v. Putting
// both polarities of a variable next to each other lets the solver index
// per-literal tables directly and negate with a single XOR. The zero Lit
// (and 1) belong to the non-variable 0 and are never valid.
type Lit int32

// Pos returns the positive literal of v.
func Pos(v Var) Lit { return Lit(v) << 1 }

// Neg returns the negative literal of v.
func Neg(v Var) Lit { return Lit(v)<<1 | 1 }

// MkLit returns v if positive and ¬v otherwise.
func MkLit(v Var, positive bool) Lit {
	if positive {
		return Pos(v)
	}
	return Neg(v)
}

// Not returns the complementary literal.
func (l Lit) Not() Lit { return l ^ 1 }

// Var returns the variable of l.
func (l Lit) Var() Var { return Var(l >> 1) }

// IsNeg reports whether l is a negative literal.
func (l Lit) IsNeg() bool { return l&1 == 1 }

// String renders l in DIMACS style: "3" for Pos(3), "-3" for Neg(3).
func (l Lit) String() string {
	if l.IsNeg() {
		return "-" + strconv.Itoa(int(l.Var()))
	}
	return strconv.Itoa(int(l.Var()))
}

// FromDimacs returns the literal a DIMACS-style integer names: d > 0 is
// Pos(d), d < 0 is Neg(-d). Encoders speak DIMACS; this is the bridge.
func FromDimacs(d int) Lit {
	if d < 0 {
		return Neg(Var(-d))
	}
	return Pos(Var(d))
}

// Dimacs returns l as a DIMACS-style integer (FromDimacs's inverse).
func (l Lit) Dimacs() int {
	if l.IsNeg() {
		return -int(l.Var())
	}
	return int(l.Var())
}

// Value is the truth value of a literal.
type Value int8

// The three truth values. Unknown is the zero value so that freshly grown
// tables start out unassigned.
const (
	Unknown Value = 0
	True    Value = 1
	False   Value = -1
)

// String returns "unknown", "true" or "false".
func (x Value) String() string {
	switch x {
	case True:
		return "true"
	case False:
		return "false"
	default:
		return "unknown"
	}
}

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
func unitID(v Var, gen uint32) ClauseID { return makeClauseID(^int32(v), gen) }

func (id ClauseID) slot() int32 { return int32(uint32(id)) }
func (id ClauseID) gen() uint32 { return uint32(id >> 32) }

// unitVar is the variable of a unit clause's handle, or 0 if id names a
// stored clause.
func (id ClauseID) unitVar() Var {
	if s := id.slot(); s < 0 {
		return Var(^s)
	}
	return 0
}
