package theory

import (
	"fmt"
	"strings"

	h "github.com/satmon/satmon/internal/history"
)

// Rel is a derived relation of the language: a predicate on the labels of
// two or three operations, computed from them rather than interpreted by
// the model, like arg(x) = ret(y). The kernels of the compare-and-set and
// string registers need relations that the paper's atoms cannot state
// (arg(x) = old(y), "ret(g) ends with arg(x)"); each is one Rel.
type Rel struct {
	Name  string
	Arity int // 2 or 3
	// ReadsRet[i] says the relation reads the return value of its i-th
	// argument, which is unknown while that operation is pending.
	ReadsRet [3]bool
	// Format prints an atom; %[1]s, %[2]s, %[3]s are the variables.
	Format string
	// NegFormat, if set, prints the negated atom.
	NegFormat string
	holds     func(ls []*h.Label) bool
}

// Three-valued results of Rel.Eval.
const (
	RelFalse = iota
	RelTrue
	RelUnknown // a return value it reads is pending
)

// Eval evaluates the relation on labels, RelUnknown when one of the
// return values it reads is pending.
func (r *Rel) Eval(ls []*h.Label) int {
	for i, l := range ls {
		if r.ReadsRet[i] && l.Pending {
			return RelUnknown
		}
	}
	if r.holds(ls) {
		return RelTrue
	}
	return RelFalse
}

func (r *Rel) format(x, y, z string) string {
	// Explicit argument indexes: fmt does not complain of unused ones.
	return fmt.Sprintf(r.Format, x, y, z)
}

// Vars lists the variables of a KRel atom, in argument order.
func (f *Formula) Vars() []int {
	if f.R != nil && f.R.Arity == 3 {
		return []int{f.X, f.Y, f.Z}
	}
	return []int{f.X, f.Y}
}

// Relation is the atom r(vars...).
func Relation(r *Rel, vars ...int) *Formula {
	f := &Formula{Kind: KRel, R: r, X: vars[0], Y: vars[1]}
	if len(vars) > 2 {
		f.Z = vars[2]
	}
	return f
}

// ArgOldRel is arg(x) = old(y): the value x writes (a write's argument, a
// cas's new value) is the value the cas y expects.
var ArgOldRel = &Rel{Name: "argold", Arity: 2, Format: "arg(%[1]s) = old(%[2]s)", NegFormat: "arg(%[1]s) ≠ old(%[2]s)",
	holds: func(ls []*h.Label) bool { return ls[1].Method == h.CAS && ls[0].Arg == ls[1].Old }}

// EndsRel is "ret(y) ends with arg(x)".
var EndsRel = &Rel{Name: "ends", Arity: 2, ReadsRet: [3]bool{false, true}, Format: "ret(%[2]s) = …·arg(%[1]s)",
	holds: func(ls []*h.Label) bool { return strings.HasSuffix(string(ls[1].Ret), string(ls[0].Arg)) }}

// StartsRel is "ret(g) starts with arg(x)·arg(a)" (· is concatenation).
var StartsRel = &Rel{Name: "starts", Arity: 3, ReadsRet: [3]bool{false, false, true}, Format: "ret(%[3]s) = arg(%[1]s)·arg(%[2]s)·…",
	holds: func(ls []*h.Label) bool {
		return strings.HasPrefix(string(ls[2].Ret), string(ls[0].Arg)+string(ls[1].Arg))
	}}

// ContainsRel is "ret(g) contains arg(x)·arg(a)".
var ContainsRel = &Rel{Name: "contains", Arity: 3, ReadsRet: [3]bool{false, false, true}, Format: "ret(%[3]s) = …·arg(%[1]s)·arg(%[2]s)·…",
	holds: func(ls []*h.Label) bool {
		return strings.Contains(string(ls[2].Ret), string(ls[0].Arg)+string(ls[1].Arg))
	}}
