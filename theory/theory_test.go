package theory

import (
	"math/rand/v2"
	"strings"
	"testing"

	h "github.com/satmon/satmon/internal/history"
)

// seq is a sequential model: operations in order, b = index order.
type seq struct {
	labels []h.Label
	match  map[[2]int]bool
}

func (s *seq) N() int               { return len(s.labels) }
func (s *seq) Label(i int) *h.Label { return &s.labels[i] }
func (s *seq) Before(i, j int) bool { return i < j }
func (s *seq) Match(i, j int) bool  { return s.match[[2]int{i, j}] }
func (s *seq) Used(int) bool        { return true }

func lbl(m h.Method, arg, ret string) h.Label {
	return h.Label{Method: m, Arg: h.Value(arg), Ret: h.Value(ret)}
}

// The literal ATOMIC totality ∀x1,x2. b(x1,x2) ⊕ b(x2,x1) is false on every
// nonempty model; ours holds on a sequential one.
func TestAtomicTotalityNeedsDistinct(t *testing.T) {
	m := &seq{labels: []h.Label{lbl(h.Add, "a", "")}}
	literal := &Axiom{Forall: []string{"x1", "x2"}, Body: Xor(B(0, 1), B(1, 0))}
	if Holds(literal, m) {
		t.Fatal("the literal totality axiom should fail on a one-operation model")
	}
	for _, a := range Atomic().Parts {
		if !Holds(a, m) {
			t.Errorf("%s fails on a one-operation sequential model", a)
		}
	}
}

// INJECTIVE(X) concludes y1 = y2: with the literal x1 = x2 reading (here:
// never true for distinct variables) two removes of one add are allowed.
func TestInjectiveOnConcludesY(t *testing.T) {
	m := &seq{labels: []h.Label{lbl(h.Add, "x", "true"), lbl(h.Rem, "x", "true"), lbl(h.Rem, "x", "true")},
		match: map[[2]int]bool{{0, 1}: true, {0, 2}: true}}
	if Holds(InjectiveOn(h.Rem).Parts[0], m) {
		t.Fatal("INJECTIVE(rem) must reject one add matched by two removes")
	}
	m.match = map[[2]int]bool{{0, 1}: true}
	if !Holds(InjectiveOn(h.Rem).Parts[0], m) {
		t.Fatal("INJECTIVE(rem) must accept one add matched by one remove")
	}
}

// LIMIT(2) with the literal (non-distinct) reading makes capacity 2 a lock.
func TestLimitDistinct(t *testing.T) {
	// acquire(a) acquire(b): legal for capacity 2.
	m := &seq{labels: []h.Label{lbl(h.Acquire, "a", ""), lbl(h.Acquire, "b", "")}}
	if !Holds(Limit(2).Parts[0], m) {
		t.Fatal("LIMIT(2) rejects two acquires")
	}
	if Holds(Limit(1).Parts[0], m) {
		t.Fatal("LIMIT(1) accepts two unreleased acquires")
	}
	// Literal: x0 = x1 = acquire(a), x2 = acquire(b) needs a release.
	literal := &Axiom{Forall: []string{"x0", "x1", "x2"}, Exists: []string{"r"},
		Body: Implies(And(Meth(0, h.Acquire), Meth(1, h.Acquire), Meth(2, h.Acquire), B(0, 2), B(1, 2)),
			And(B(3, 2), Or(Match(0, 3), Match(1, 3), Match(2, 3))))}
	if Holds(literal, m) {
		t.Fatal("the literal LIMIT(2) was expected to reject two acquires (that is why we require distinct x_i)")
	}
}

// The register's matching is not injective: two reads of one write.
func TestRegisterNotInjective(t *testing.T) {
	k, err := KernelOf(h.Register, "")
	if err != nil {
		t.Fatal(err)
	}
	m := &seq{labels: []h.Label{lbl(h.Write, "1", ""), lbl(h.Read, "", "1"), lbl(h.Read, "", "1")},
		match: map[[2]int]bool{{0, 1}: true, {0, 2}: true}}
	for _, a := range k.Axioms() {
		if !Holds(a, m) {
			t.Errorf("register axiom %s rejects write(1) read⇒1 read⇒1", a)
		}
	}
	if Holds(Injective().Parts[0], m) {
		t.Fatal("INJECTIVE should reject it, which is why the register kernel uses FUNCTION")
	}
}

// MATCHINGADD as intended accepts add, remove, add of one value; the
// literal guard (∀q. b(q,p) ∨ b(a,q) ∨ arg(q) ≠ arg(a)) forbids any
// operation p after a matched add a on the same value unless p is a remove.
func TestMatchingAddImmediatePredecessor(t *testing.T) {
	m := &seq{labels: []h.Label{lbl(h.Add, "x", "true"), lbl(h.Contains, "x", "true"), lbl(h.Rem, "x", "true"), lbl(h.Add, "x", "true"), lbl(h.Contains, "x", "true")},
		match: map[[2]int]bool{{0, 1}: true, {0, 2}: true, {3, 4}: true}}
	if !Holds(MatchingAdd().Parts[0], m) {
		t.Fatal("MATCHINGADD rejects add, contains, remove, add, contains")
	}
	if !Holds(MatchingRem().Parts[0], m) {
		t.Fatal("MATCHINGREM rejects add, contains, remove, add, contains")
	}
	// Literal: ∀a,x,p. match(a,x) ∧ arg(p)=arg(a) ∧ (∀q. b(q,p) ∨ b(a,q) ∨ arg(q)≠arg(a)) ⇒ meth(p)=rem ∨ contains⇒false,
	// in prenex form with ∃q.
	literal := &Axiom{Forall: []string{"a", "x", "p"}, Exists: []string{"q"},
		Body: Or(Not(And(Match(0, 1), ArgEq(2, 0))), And(Not(B(3, 2)), Not(B(0, 3)), ArgEq(3, 0)),
			Meth(2, h.Rem), And(Meth(2, h.Contains), Ret(2, h.False)))}
	if Holds(literal, m) {
		t.Fatal("the literal MATCHINGADD was expected to reject this legal run")
	}
	// A matched add right after a contains ⇒ true is wrong.
	bad := &seq{labels: []h.Label{lbl(h.Contains, "x", "true"), lbl(h.Add, "x", "true"), lbl(h.Rem, "x", "true")},
		match: map[[2]int]bool{{1, 2}: true}}
	if Holds(MatchingAdd().Parts[0], bad) {
		t.Fatal("MATCHINGADD accepts an inserting add right after contains ⇒ true")
	}
}

// NOSELF: exchange(a) ⇒ a alone satisfies the paper's exchanger axioms.
func TestExchangerNoSelf(t *testing.T) {
	m := &seq{labels: []h.Label{lbl(h.Exchange, "a", "a")}, match: map[[2]int]bool{{0, 0}: true}}
	for _, d := range []*Def{Exchange(), Match1(h.Exchange, h.Exchange), Injective(), Symmetric()} {
		if !Holds(d.Parts[0], m) {
			t.Fatalf("%s unexpectedly rejects a self-match", d.Name)
		}
	}
	if Holds(NoSelf().Parts[0], m) {
		t.Fatal("NOSELF accepts a self-match")
	}
}

func TestKernelsPrintAndArePrenex(t *testing.T) {
	for _, obj := range h.Objects {
		k, err := KernelOf(obj, "2")
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range k.Axioms() {
			s := a.String()
			if !strings.HasPrefix(s, "∀") {
				t.Errorf("%v: %s does not start with ∀", obj, s)
			}
			checkVars(t, a, a.Body)
		}
	}
	if len(Catalogue()) < 25 {
		t.Errorf("catalogue has %d formulas", len(Catalogue()))
	}
}

func checkVars(t *testing.T, a *Axiom, f *Formula) {
	n := a.Vars()
	switch f.Kind {
	case KMeth, KRet, KUsed:
		if f.X >= n {
			t.Errorf("%s: variable %d unbound", a.Name, f.X)
		}
	case KArgEq, KArgRet, KArgLess, KEq, KB, KMatch:
		if f.X >= n || f.Y >= n {
			t.Errorf("%s: variable unbound", a.Name)
		}
	}
	for _, g := range f.Args {
		checkVars(t, a, g)
	}
}

// The set's ADDREM (ADDEREM in the figure) read literally admits a
// successful remove of a value never added; ours requires the match.
func TestSetAddRemRequiresMatch(t *testing.T) {
	m := &seq{labels: []h.Label{lbl(h.Rem, "x", "true")}}
	literal := &Axiom{Forall: []string{"a", "r"},
		Body: Implies(And(Match(0, 1), Meth(1, h.Rem)), And(Meth(0, h.Add), B(0, 1)))}
	if !Holds(literal, m) {
		t.Fatal("the literal ADDEREM was expected to admit remove(x) ⇒ true alone")
	}
	if Holds(SetAddRem().Parts[0], m) {
		t.Fatal("ADDREM(set) admits remove(x) ⇒ true with nothing added")
	}
}

// anyOrder is a model with an arbitrary relation b (not necessarily an
// order) and matching: LIMIT's counting must agree with the formula on
// every interpretation, not only on linearizations.
type anyOrder struct {
	seq
	before map[[2]int]bool
}

func (a *anyOrder) Before(i, j int) bool { return a.before[[2]int{i, j}] }

// Holds counts for LIMIT(n); it must agree with the literal evaluation of
// the formula over every tuple, and a counterexample must be one.
func TestLimitCountingIsLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	fails := 0
	for i := 0; i < 3000; i++ {
		n := 1 + rng.IntN(3)
		size := 1 + rng.IntN(6)
		m := &anyOrder{seq: seq{match: map[[2]int]bool{}}, before: map[[2]int]bool{}}
		for j := 0; j < size; j++ {
			if rng.IntN(3) > 0 {
				m.labels = append(m.labels, lbl(h.Acquire, "", ""))
			} else {
				m.labels = append(m.labels, lbl(h.Release, "", ""))
			}
		}
		for x := 0; x < size; x++ {
			for y := 0; y < size; y++ {
				if rng.IntN(2) == 0 {
					m.before[[2]int{x, y}] = true
				}
				if rng.IntN(4) == 0 {
					m.match[[2]int{x, y}] = true
				}
			}
		}
		a := Limit(n).Parts[0]
		want := HoldsLiterally(a, m)
		if got := Holds(a, m); got != want {
			t.Fatalf("LIMIT(%d): counting says %v, the formula %v on %+v", n, got, want, m)
		}
		if want {
			continue
		}
		fails++
		cex := Counterexample(a, m)
		env := append(append([]int{}, cex...), 0)
		if len(cex) != n+1 || holdsExists(a, m, env, n+1) || !Eval(a.Body.Args[0], m, env) {
			t.Fatalf("LIMIT(%d): %v is no counterexample on %+v", n, cex, m)
		}
	}
	if fails == 0 {
		t.Fatal("LIMIT never failed: the comparison tests nothing")
	}
}
