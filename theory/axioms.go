package theory

import (
	"fmt"

	h "github.com/satmon/satmon/internal/history"
)

// Def is a named formula of the paper's figures. Most are one prenex
// axiom; ATOMIC and COMPLETED are conjunctions of several.
type Def struct {
	Name  string
	Parts []*Axiom
	// Note records where we depart from the paper's literal text and why;
	// docs/theories.md lists every note.
	Note string
}

func def(name, note string, parts ...*Axiom) *Def {
	for _, p := range parts {
		if p.Name == "" {
			p.Name = name
		}
	}
	return &Def{Name: name, Parts: parts, Note: note}
}

func ax(forall, exists []string, body *Formula) *Axiom {
	return &Axiom{Forall: forall, Exists: exists, Body: body}
}

func vs(names ...string) []string { return names }

// Figure 3: generic formulæ.

// Irreflexive, Transitive, Total and Complete are the parts of ATOMIC.
func irreflexive() *Axiom {
	return &Axiom{Name: "ATOMIC.irreflexive", Forall: vs("x"), Body: Not(B(0, 0))}
}

func transitive() *Axiom {
	return &Axiom{Name: "ATOMIC.transitive", Forall: vs("x1", "x2", "x3"),
		Body: Implies(And(B(0, 1), B(1, 2)), B(0, 2))}
}

func complete() *Axiom {
	return &Axiom{Name: "ATOMIC.complete", Forall: vs("x"), Body: Not(Ret(0, Bottom))}
}

// Atomic is ATOMIC. The paper's totality conjunct ∀x1,x2. b(x1,x2) ⊕
// b(x2,x1) is false for x1 = x2; we require it of distinct operations.
func Atomic() *Def {
	return def("ATOMIC", "totality b(x1,x2) ⊕ b(x2,x1) is required only for x1 ≠ x2: read literally it is false when x1 = x2, so no history would satisfy ATOMIC",
		irreflexive(), transitive(),
		&Axiom{Name: "ATOMIC.total", Forall: vs("x1", "x2"), Body: Implies(Neq(0, 1), Xor(B(0, 1), B(1, 0)))},
		complete())
}

// Completed is COMPLETED: a strict partial order on completed operations.
func Completed() *Def {
	c := def("COMPLETED", "", irreflexive(), transitive(), complete())
	c.Parts[0].Name, c.Parts[1].Name, c.Parts[2].Name = "COMPLETED.irreflexive", "COMPLETED.transitive", "COMPLETED.complete"
	return c
}

// Injective is INJECTIVE: an operation is M of at most one operation.
func Injective() *Def {
	return def("INJECTIVE", "", ax(vs("x", "y1", "y2"), nil,
		Implies(And(Match(0, 1), Match(0, 2)), Eq(1, 2))))
}

// InjectiveOn is INJECTIVE(X). The paper concludes x1 = x2, variables that
// are not bound; the intent is y1 = y2.
func InjectiveOn(m h.Method) *Def {
	return def(fmt.Sprintf("INJECTIVE(%s)", m), "the conclusion x1 = x2 of the figure names unbound variables; we conclude y1 = y2",
		ax(vs("x", "y1", "y2"), nil,
			Implies(And(Match(0, 1), Match(0, 2), Meth(1, m), Meth(2, m)), Eq(1, 2))))
}

// Function states that M is a function: match(x1,y) ∧ match(x2,y) ⇒ x1 = x2.
// The paper gets this for free by interpreting match(x,y) as x = M(y); the
// propositional encoding must say it.
func Function() *Def {
	return def("FUNCTION", "implicit in the paper (match(x,y) means x = M(y) for a function M); explicit here because the encoding's match variables are free",
		ax(vs("x1", "x2", "y"), nil, Implies(And(Match(0, 2), Match(1, 2)), Eq(0, 1))))
}

// Symmetric is SYMMETRIC.
func Symmetric() *Def {
	return def("SYMMETRIC", "", ax(vs("x1", "x2"), nil, Iff(Match(0, 1), Match(1, 0))))
}

// TotalOf is TOTAL(Y): every Y-operation is matched to an earlier one.
func TotalOf(m h.Method) *Def {
	return def(fmt.Sprintf("TOTAL(%s)", m), "", ax(vs("y"), vs("x"),
		Implies(Meth(0, m), And(Match(1, 0), B(1, 0)))))
}

// Match1 is MATCH1(X, Y).
func Match1(x, y h.Method) *Def {
	return def(fmt.Sprintf("MATCH1(%s,%s)", x, y), "", ax(vs("x", "y"), nil,
		Implies(Match(0, 1), And(Meth(0, x), Meth(1, y), ArgRet(0, 1)))))
}

// Match2 is MATCH2(X, Y1, Y2).
func Match2(x, y1, y2 h.Method) *Def {
	return def(fmt.Sprintf("MATCH2(%s,%s,%s)", x, y1, y2), "", ax(vs("x", "y"), nil,
		Implies(Match(0, 1), And(Meth(0, x), Or(Meth(1, y1), Meth(1, y2)), ArgEq(0, 1)))))
}

// Match3 is MATCH3(X, Y).
func Match3(x, y h.Method) *Def {
	return def(fmt.Sprintf("MATCH3(%s,%s)", x, y), "", ax(vs("x", "y"), nil,
		Implies(Match(0, 1), And(Meth(0, x), Meth(1, y)))))
}

// Match3Tagged is MATCH3(X, Y) with the tags of §5.1 (Examples 5.2–5.3):
// a Y-operation that returns a tag is matched to the X-operation that
// received that tag; an untagged one may match any X-operation.
func Match3Tagged(x, y h.Method) *Def {
	return def(fmt.Sprintf("MATCH3(%s,%s)", x, y),
		"with §5.1's tags: match(x,y) also requires arg(x) = ret(y) when y returns a tag (ret(y) ≠ ()), since the matching maps unlock ⇒ v to lock(v)",
		ax(vs("x", "y"), nil,
			Implies(Match(0, 1), And(Meth(0, x), Meth(1, y), Or(Ret(1, h.Void), ArgRet(0, 1))))))
}

// Figure 4: collections. add and rem are the abstract method names.

// AddRem is ADDREM.
func AddRem() *Def {
	return def("ADDREM", "", ax(vs("r"), vs("a"),
		Implies(And(Meth(0, h.Rem), Not(Ret(0, h.Empty))), And(Match(1, 0), B(1, 0)))))
}

// EmptyAx is EMPTY.
func EmptyAx() *Def {
	return def("EMPTY", "", ax(vs("e", "a"), vs("r"),
		Implies(And(Meth(0, h.Rem), Ret(0, h.Empty), Meth(1, h.Add), B(1, 0)),
			And(Match(1, 2), B(2, 0)))))
}

// FIFO is FIFO.
func FIFO() *Def {
	return def("FIFO", "", ax(vs("a1", "a2", "r2"), vs("r1"),
		Implies(And(Meth(0, h.Add), Match(1, 2), B(0, 1)),
			And(Match(0, 3), B(3, 2)))))
}

// LIFO is LIFO.
func LIFO() *Def {
	return def("LIFO", "", ax(vs("a1", "a2", "r1"), vs("r2"),
		Implies(And(Meth(1, h.Add), Match(0, 2), B(0, 1), B(1, 2)),
			And(Match(1, 3), B(3, 2)))))
}

// MAX is MAX; arg(a1) < arg(a2) compares priorities.
func MAX() *Def {
	return def("MAX", "arg(a1) < arg(a2) compares the priorities p of add(v, p)", ax(vs("a1", "a2", "r1"), vs("r2"),
		Implies(And(Meth(1, h.Add), Match(0, 2), B(1, 2), ArgLess(0, 1)),
			And(Match(1, 3), B(3, 2)))))
}

// Figure 5: sets. Our set methods all return booleans (add ⇒ true iff it
// inserted, remove ⇒ true iff it removed, contains ⇒ membership), so the
// operations split into those that observe the value present — contains ⇒
// true and add ⇒ false — and those that observe it absent — contains ⇒
// false and remove ⇒ false. An add ⇒ true starts a presence interval, the
// remove ⇒ true matched to it ends it.

func observesPresent(x int) *Formula {
	return Or(And(Meth(x, h.Contains), Ret(x, h.True)), And(Meth(x, h.Add), Ret(x, h.False)))
}

func observesAbsent(x int) *Formula {
	return Or(And(Meth(x, h.Contains), Ret(x, h.False)), And(Meth(x, h.Rem), Ret(x, h.False)))
}

func inserts(x int) *Formula { return And(Meth(x, h.Add), Ret(x, h.True)) }
func deletes(x int) *Formula { return And(Meth(x, h.Rem), Ret(x, h.True)) }

// Include is INCLUDE, for every operation that observes its value present.
func Include() *Def {
	return def("INCLUDE",
		"applies to every operation observing its value present (contains ⇒ true and add ⇒ false); the figure writes match(c,a) and match(r,a) with the add second, against match's x = M(y) reading and MATCH2; we write match(a,c) and match(a,r)",
		&Axiom{Name: "INCLUDE.1", Forall: vs("c"), Exists: vs("a"),
			Body: Implies(observesPresent(0), And(Match(1, 0), B(1, 0)))},
		&Axiom{Name: "INCLUDE.2", Forall: vs("c", "a", "r"),
			Body: Implies(And(observesPresent(0), Meth(2, h.Rem), Match(1, 0), Match(1, 2)),
				And(B(1, 0), B(0, 2)))})
}

// Exclude is EXCLUDE, for every operation that requires its value absent.
func Exclude() *Def {
	return def("EXCLUDE",
		"applies to every operation that requires its value absent (contains ⇒ false, remove ⇒ false, add ⇒ true) and only to inserting adds a (add ⇒ true): an add ⇒ false inserts nothing, so nothing needs removing",
		ax(vs("c", "a"), vs("r"),
			Implies(And(Or(observesAbsent(0), inserts(0)), inserts(1), ArgEq(0, 1), B(1, 0)),
				And(Meth(2, h.Rem), Match(1, 2), B(2, 0)))))
}

// SetAddRem is the set's ADDREM (spelled ADDEREM in the figure).
func SetAddRem() *Def {
	return def("ADDREM(set)",
		"the figure (ADDEREM) only says a matched remove follows its add; we also require every remove ⇒ true to be matched, as the collections' ADDREM does, since otherwise a successful remove of an absent value is admitted",
		ax(vs("r"), vs("a"),
			Implies(deletes(0), And(Match(1, 0), B(1, 0)))))
}

// SetMatch is MATCH2(add, remove, contains) restricted to the operations
// that take part in a presence interval.
func SetMatch() *Def {
	return def("MATCH2(add,remove,contains)",
		"restricted to booleans: the matched add is an add ⇒ true, the matching operation is a remove ⇒ true or an operation observing the value present (contains ⇒ true, add ⇒ false)",
		ax(vs("x", "y"), nil,
			Implies(Match(0, 1), And(inserts(0), Or(deletes(1), observesPresent(1)), ArgEq(0, 1)))))
}

// immediatelyBefore(p, z, q): no same-valued q lies strictly between p and
// z. Used with ∃q in prenex form: the negated ∀q of the figure.
func between(q, p, z int) *Formula {
	return And(Neq(q, p), Neq(q, z), ArgEq(q, z), Not(B(q, p)), Not(B(z, q)))
}

// MatchingAdd is MATCHINGADD: the operation just before a matched add on
// the same value leaves the value absent.
func MatchingAdd() *Def {
	return def("MATCHINGADD",
		"read as intended: p is the operation on the same value immediately before a (b(p,a) and no same-valued q between); the literal guard ∀q. b(q,p) ∨ b(a,q) ∨ arg(q) ≠ arg(a) is only satisfiable with p after a. In prenex ∀∃ form the inner ∀q becomes ∃q",
		ax(vs("a", "x", "p"), vs("q"),
			Or(Not(And(Match(0, 1), ArgEq(2, 0), B(2, 0))),
				between(3, 2, 0),
				Meth(2, h.Rem), And(Meth(2, h.Contains), Ret(2, h.False)))))
}

// MatchingRem is MATCHINGREM: the operation just before a matched remove on
// the same value leaves the value present.
func MatchingRem() *Def {
	return def("MATCHINGREM",
		"read as intended, like MATCHINGADD: p is the operation on the same value immediately before the remove r; match(a,r) is written with the add first",
		ax(vs("a", "r", "p"), vs("q"),
			Or(Not(And(Match(0, 1), Meth(1, h.Rem), ArgEq(2, 1), B(2, 1))),
				between(3, 2, 1),
				Meth(2, h.Add), And(Meth(2, h.Contains), Ret(2, h.True)))))
}

// Figure 6: registers.

// ReadWrite is READWRITE.
func ReadWrite() *Def {
	return def("READWRITE", "", ax(vs("r"), vs("w"),
		Implies(Meth(0, h.Read), And(Match(1, 0), B(1, 0)))))
}

// ReadFrom is READFROM.
func ReadFrom() *Def {
	return def("READFROM", "", ax(vs("w1", "r"), vs("w2"),
		Implies(And(Meth(0, h.Write), Meth(1, h.Read), Not(Match(0, 1)), B(0, 1)),
			And(Match(2, 1), B(0, 2), B(2, 1)))))
}

// Figure 7: synchronization objects.

// Mutex is MUTEX.
func Mutex() *Def {
	return def("MUTEX", "", ax(vs("l1", "l2"), vs("u"),
		Implies(And(Meth(0, h.LockM), Meth(1, h.LockM), B(0, 1)),
			And(Meth(2, h.Unlock), B(0, 2), B(2, 1)))))
}

// Limit is LIMIT for a semaphore of capacity n: of n acquires before
// another, one was released before it.
func Limit(n int) *Def { return limit(n, nil) }

// limit builds LIMIT(n), polling stop (which may be nil) once per row of
// the n²/2 distinctness conjuncts; it returns nil if stop returned true.
func limit(n int, stop func() bool) *Def {
	var forall []string
	for i := 0; i <= n; i++ {
		forall = append(forall, fmt.Sprintf("x%d", i))
	}
	r := n + 1
	var pre []*Formula
	for i := 0; i <= n; i++ {
		pre = append(pre, Meth(i, h.Acquire))
	}
	for i := 0; i < n; i++ {
		if stop != nil && stop() {
			return nil
		}
		pre = append(pre, B(i, n))
		for j := i + 1; j < n; j++ {
			pre = append(pre, Neq(i, j))
		}
	}
	var matched []*Formula
	for i := 0; i <= n; i++ {
		matched = append(matched, Match(i, r))
	}
	a := ax(forall, vs("r"), Implies(And(pre...), And(B(r, n), Or(matched...))))
	a.Capacity = n
	return def(fmt.Sprintf("LIMIT(%d)", n),
		"the figure's witness is r but its match(y, x_i) names an unbound y; we read match(x_i, r). The x_i (i < n) must be distinct: read literally, n copies of one acquire would force a release before every later acquire, making a semaphore of capacity n a lock. Evaluated and grounded by counting, not tuple by tuple (docs/encoding.md)",
		a)
}

// Exchange is EXCHANGE.
func Exchange() *Def {
	return def("EXCHANGE", "", ax(vs("x"), vs("y"),
		Implies(Not(Ret(0, h.Null)), Match(0, 1))))
}

// ExchangeOverlapping is EXCHANGE with MATCHOVERLAP's consequence
// written into the witness: the partner overlaps x. Equivalent in the
// exchanger's kernel, and it lets the encoder see that an exchange that
// returned cannot be paired with a later one (docs/encoding.md).
func ExchangeOverlapping() *Def {
	return def("EXCHANGE", "the witness also satisfies ¬b(x,y) ∧ ¬b(y,x), which MATCHOVERLAP implies; this makes the instance final once x returns",
		ax(vs("x"), vs("y"),
			Implies(Not(Ret(0, h.Null)), And(Match(0, 1), Not(B(0, 1)), Not(B(1, 0))))))
}

// MatchOverlap is MATCHOVERLAP.
func MatchOverlap() *Def {
	return def("MATCHOVERLAP", "", ax(vs("x1", "x2"), nil,
		Implies(Match(0, 1), And(Not(B(0, 1)), Not(B(1, 0))))))
}

// NoSelf forbids an exchange from pairing with itself.
func NoSelf() *Def {
	return def("NOSELF", "not in the paper: without it exchange(v) ⇒ v pairs with itself (MATCH1, SYMMETRIC and MATCHOVERLAP all hold for x = y)",
		ax(vs("x"), nil, Not(Match(0, 0))))
}

// Catalogue lists every formula of Figures 3–7 (with semaphore capacity 2
// for LIMIT), for `satmon theory --all` and the documentation.
func Catalogue() []*Def {
	return []*Def{
		Atomic(), Completed(), Injective(), InjectiveOn(h.Rem), Function(), Symmetric(),
		TotalOf(h.Unlock), Match1(h.Add, h.Rem), Match2(h.Add, h.Rem, h.Contains), Match3(h.LockM, h.Unlock),
		AddRem(), EmptyAx(), FIFO(), LIFO(), MAX(),
		Include(), Exclude(), SetAddRem(), SetMatch(), MatchingAdd(), MatchingRem(),
		ReadWrite(), ReadFrom(),
		Mutex(), Limit(2), Exchange(), MatchOverlap(), NoSelf(),
	}
}
