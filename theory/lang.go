// Package theory holds the first-order language over operations, the axioms
// of the paper's Figures 3–7, and the kernel theory of each atomic object.
package theory

import (
	"fmt"
	"strings"

	"github.com/satmon/satmon/internal/history"
)

// Bottom is the return value ⊥ of a pending operation, as a term constant.
const Bottom history.Value = "⊥"

// Kind is the kind of a formula node.
type Kind uint8

// Formula node kinds. Atoms refer to variables by index into the
// enclosing axiom's variable list (universal variables first).
const (
	KTrue Kind = iota
	KFalse
	KMeth    // meth(X) = M
	KRet     // ret(X) = V
	KArgEq   // arg(X) = arg(Y)
	KArgRet  // arg(X) = ret(Y)
	KArgLess // arg(X) < arg(Y): the priority order of priority queues
	KEq      // X = Y
	KB       // b(X, Y)
	KMatch   // match(X, Y): X = M(Y)
	KUsed    // used(X)
	KRel     // R(X, Y[, Z]): a relation computed from labels (encode's relNode)
	KNot
	KAnd
	KOr
	KImplies
	KIff
	KXor
)

// Formula is a quantifier-free formula; quantifiers live in Axiom.
type Formula struct {
	Kind    Kind
	X, Y, Z int
	R       *Rel // KRel's relation
	M       history.Method
	V       history.Value
	Args    []*Formula
}

// Atoms.

// Meth is meth(x) = m.
func Meth(x int, m history.Method) *Formula { return &Formula{Kind: KMeth, X: x, M: m} }

// Ret is ret(x) = v.
func Ret(x int, v history.Value) *Formula { return &Formula{Kind: KRet, X: x, V: v} }

// ArgEq is arg(x) = arg(y).
func ArgEq(x, y int) *Formula { return &Formula{Kind: KArgEq, X: x, Y: y} }

// ArgRet is arg(x) = ret(y).
func ArgRet(x, y int) *Formula { return &Formula{Kind: KArgRet, X: x, Y: y} }

// ArgLess is arg(x) < arg(y), comparing priorities.
func ArgLess(x, y int) *Formula { return &Formula{Kind: KArgLess, X: x, Y: y} }

// Eq is x = y.
func Eq(x, y int) *Formula { return &Formula{Kind: KEq, X: x, Y: y} }

// B is b(x, y): x is linearized before y.
func B(x, y int) *Formula { return &Formula{Kind: KB, X: x, Y: y} }

// Match is match(x, y): x = M(y).
func Match(x, y int) *Formula { return &Formula{Kind: KMatch, X: x, Y: y} }

// Used is used(x).
func Used(x int) *Formula { return &Formula{Kind: KUsed, X: x} }

// True and False are the constants.
var (
	True  = &Formula{Kind: KTrue}
	False = &Formula{Kind: KFalse}
)

// Connectives.

// Not is ¬f.
func Not(f *Formula) *Formula { return &Formula{Kind: KNot, Args: []*Formula{f}} }

// And is the conjunction of fs (true when empty).
func And(fs ...*Formula) *Formula { return &Formula{Kind: KAnd, Args: fs} }

// Or is the disjunction of fs (false when empty).
func Or(fs ...*Formula) *Formula { return &Formula{Kind: KOr, Args: fs} }

// Implies is f ⇒ g.
func Implies(f, g *Formula) *Formula { return &Formula{Kind: KImplies, Args: []*Formula{f, g}} }

// Iff is f ⇔ g.
func Iff(f, g *Formula) *Formula { return &Formula{Kind: KIff, Args: []*Formula{f, g}} }

// Xor is f ⊕ g.
func Xor(f, g *Formula) *Formula { return &Formula{Kind: KXor, Args: []*Formula{f, g}} }

// Neq is x ≠ y.
func Neq(x, y int) *Formula { return Not(Eq(x, y)) }

// Axiom is a prenex formula ∀Forall. ∃Exists. Body. Body refers to the
// universal variables as 0..len(Forall)-1 and to the existential ones as
// len(Forall)..len(Forall)+len(Exists)-1.
type Axiom struct {
	Name   string
	Forall []string
	Exists []string
	Body   *Formula
	// Capacity is n for LIMIT(n), 0 for every other axiom. LIMIT has n+1
	// universal variables: evaluating or grounding it literally visits
	// every (n+1)-tuple of operations, so Holds and the encoder read it as
	// the cardinality constraint it states (docs/encoding.md), and the
	// formula stays its specification.
	Capacity int
}

// Vars is the number of variables of the axiom.
func (a *Axiom) Vars() int { return len(a.Forall) + len(a.Exists) }

func (a *Axiom) varName(i int) string {
	if i < len(a.Forall) {
		return a.Forall[i]
	}
	if i-len(a.Forall) < len(a.Exists) {
		return a.Exists[i-len(a.Forall)]
	}
	return fmt.Sprintf("v%d", i)
}

// String prints the axiom in the paper's notation.
func (a *Axiom) String() string {
	var b strings.Builder
	if len(a.Forall) > 0 {
		b.WriteString("∀" + strings.Join(a.Forall, ",") + ". ")
	}
	ex := "∃" + strings.Join(a.Exists, ",") + ". "
	// Like the paper, write ∀x. P ⇒ ∃y. Q when P does not mention y.
	if f := a.Body; len(a.Exists) > 0 && f.Kind == KImplies && !a.mentionsExists(f.Args[0]) {
		a.write(&b, f.Args[0], prec(KImplies)+1)
		b.WriteString(" ⇒ " + ex)
		a.write(&b, f.Args[1], prec(KImplies))
		return b.String()
	}
	if len(a.Exists) > 0 {
		b.WriteString(ex)
	}
	a.write(&b, a.Body, 0)
	return b.String()
}

// precedence: higher binds tighter.
func prec(k Kind) int {
	switch k {
	case KIff:
		return 1
	case KImplies:
		return 2
	case KOr, KXor:
		return 3
	case KAnd:
		return 4
	case KNot:
		return 5
	}
	return 6
}

func (a *Axiom) write(b *strings.Builder, f *Formula, outer int) {
	p := prec(f.Kind)
	if p < outer {
		b.WriteString("(")
		defer b.WriteString(")")
	}
	n := a.varName
	switch f.Kind {
	case KTrue:
		b.WriteString("true")
	case KFalse:
		b.WriteString("false")
	case KMeth:
		fmt.Fprintf(b, "meth(%s) = %s", n(f.X), f.M)
	case KRet:
		fmt.Fprintf(b, "ret(%s) = %s", n(f.X), f.V)
	case KArgEq:
		fmt.Fprintf(b, "arg(%s) = arg(%s)", n(f.X), n(f.Y))
	case KArgRet:
		fmt.Fprintf(b, "arg(%s) = ret(%s)", n(f.X), n(f.Y))
	case KArgLess:
		fmt.Fprintf(b, "arg(%s) < arg(%s)", n(f.X), n(f.Y))
	case KEq:
		fmt.Fprintf(b, "%s = %s", n(f.X), n(f.Y))
	case KB:
		fmt.Fprintf(b, "b(%s,%s)", n(f.X), n(f.Y))
	case KMatch:
		fmt.Fprintf(b, "match(%s,%s)", n(f.X), n(f.Y))
	case KUsed:
		fmt.Fprintf(b, "used(%s)", n(f.X))
	case KRel:
		b.WriteString(f.R.format(n(f.X), n(f.Y), n(f.Z)))
	case KNot:
		g := f.Args[0]
		switch g.Kind {
		case KEq:
			fmt.Fprintf(b, "%s ≠ %s", n(g.X), n(g.Y))
			return
		case KRet:
			fmt.Fprintf(b, "ret(%s) ≠ %s", n(g.X), g.V)
			return
		case KArgEq:
			fmt.Fprintf(b, "arg(%s) ≠ arg(%s)", n(g.X), n(g.Y))
			return
		case KMeth:
			fmt.Fprintf(b, "meth(%s) ≠ %s", n(g.X), g.M)
			return
		case KRel:
			if g.R.NegFormat != "" {
				fmt.Fprintf(b, g.R.NegFormat, n(g.X), n(g.Y), n(g.Z))
				return
			}
		}
		b.WriteString("¬")
		a.write(b, g, p+1)
	case KAnd, KOr, KXor, KIff, KImplies:
		if len(f.Args) == 0 {
			if f.Kind == KAnd {
				b.WriteString("true")
			} else {
				b.WriteString("false")
			}
			return
		}
		sep := map[Kind]string{KAnd: " ∧ ", KOr: " ∨ ", KXor: " ⊕ ", KIff: " ⇔ ", KImplies: " ⇒ "}[f.Kind]
		for i, g := range f.Args {
			if i > 0 {
				b.WriteString(sep)
			}
			// ⇒ is right-associative; parenthesise a nested left operand.
			inner := p
			if f.Kind == KOr {
				inner = prec(KAnd) + 1 // parenthesise conjunctions inside disjunctions
			}
			if f.Kind == KImplies || f.Kind == KIff || f.Kind == KXor {
				inner = p + 1
			}
			a.write(b, g, inner)
		}
	}
}

func (a *Axiom) mentionsExists(f *Formula) bool {
	switch f.Kind {
	case KMeth, KRet, KUsed:
		return f.X >= len(a.Forall)
	case KArgEq, KArgRet, KArgLess, KEq, KB, KMatch:
		return f.X >= len(a.Forall) || f.Y >= len(a.Forall)
	case KRel:
		for _, v := range f.Vars() {
			if v >= len(a.Forall) {
				return true
			}
		}
		return false
	}
	for _, g := range f.Args {
		if a.mentionsExists(g) {
			return true
		}
	}
	return false
}

// Equal reports whether f and g are the same formula, node for node.
func Equal(f, g *Formula) bool {
	if f.Kind != g.Kind || f.X != g.X || f.Y != g.Y || f.Z != g.Z || f.R != g.R || f.M != g.M || f.V != g.V || len(f.Args) != len(g.Args) {
		return false
	}
	for i := range f.Args {
		if !Equal(f.Args[i], g.Args[i]) {
			return false
		}
	}
	return true
}
