// Package z defines the propositional variables and literals that the encoder, the saturator and the SAT backends share.
package z

import "strconv"

// Var is a propositional variable, numbered from 1; the zero Var is no
// variable.
type Var uint32

// Lit is a literal in MiniSat's encoding, bit for bit gini's z.Lit: v<<1
// for the variable v and v<<1|1 for ¬v. Both polarities of a variable sit
// next to each other, so per-literal tables are indexed by the literal and
// negation is one XOR; a Lit converts to gini's by a type conversion. The
// zero Lit, LitNull, belongs to the non-variable 0 and names no literal.
type Lit uint32

// LitNull is the zero Lit: no literal.
const LitNull Lit = 0

// Pos returns the literal v.
func (v Var) Pos() Lit { return Lit(v << 1) }

// Neg returns the literal ¬v.
func (v Var) Neg() Lit { return Lit(v<<1 | 1) }

// Lit returns v if positive and ¬v otherwise.
func (v Var) Lit(positive bool) Lit {
	if positive {
		return v.Pos()
	}
	return v.Neg()
}

// Not returns the complementary literal.
func (l Lit) Not() Lit { return l ^ 1 }

// Var returns the variable of l.
func (l Lit) Var() Var { return Var(l >> 1) }

// IsPos reports whether l is the variable itself rather than its negation.
func (l Lit) IsPos() bool { return l&1 == 0 }

// IsNeg reports whether l is the negation of its variable.
func (l Lit) IsNeg() bool { return l&1 == 1 }

// Dimacs returns l as a DIMACS integer: v for the variable v, -v for ¬v.
func (l Lit) Dimacs() int {
	if l.IsNeg() {
		return -int(l.Var())
	}
	return int(l.Var())
}

// String renders l as Dimacs does: "3" for the variable 3, "-3" for ¬3.
func (l Lit) String() string { return strconv.Itoa(l.Dimacs()) }

// Dimacs2Lit returns the literal that a DIMACS integer names: d > 0 is the
// variable d, d < 0 its negation. Dimacs2Lit(0) is LitNull.
func Dimacs2Lit(d int) Lit {
	if d < 0 {
		return Var(-d).Neg()
	}
	return Var(d).Pos()
}

// Value is the truth value of a literal under a partial assignment. It
// lives here, with the literals, so that a solver can hand its assignment
// to the encoder as a table indexed by literal, read without a call per
// literal.
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
