package theory

import (
	"errors"
	"fmt"

	h "github.com/satmon/satmon/internal/history"
)

// Kernel is the first-order theory of an object's kernel (§3): h is in the
// kernel iff some matching M makes every axiom of Theory and Sanity true.
type Kernel struct {
	Object h.Object
	Param  string
	// Theory is THEORY(H) as the paper states it for the object.
	Theory []*Def
	// Sanity constrains the matching function.
	Sanity []*Def
	// Pair is the label-only axiom ∀x,y. match(x,y) ⇒ φ(x,y) saying which
	// pairs of operations may be matched at all (MATCH1/2/3).
	Pair *Axiom
	// Sequential is true when the kernel is sequential (ATOMIC); the
	// exchanger's kernel (COMPLETED) is not.
	Sequential bool
	// DropPending, when not NoMethod, is a method whose pending operations
	// take part in no instance: they leave the state alone, so dropping
	// them is always a legal completion, and the kernel's relations read
	// their return values, unknown while they are pending. The string
	// register's get is one.
	DropPending h.Method
}

// MaxCapacity is the largest semaphore capacity satmon accepts. LIMIT(n)
// is a formula of n²/2 conjuncts (its acquires are pairwise distinct):
// at 1,024 it takes about 0.4 s and 100 MB to build, and it grows
// fourfold with each doubling. Checking it is by counting and costs
// O(window · n) per acquire, far below that.
const MaxCapacity = 1024

// ErrStopped is KernelOfStop's error when stop interrupted it.
var ErrStopped = errors.New("theory: stopped")

// KernelOf returns the kernel theory of obj with parameter param
// (semaphore capacity, register initial value).
func KernelOf(obj h.Object, param string) (*Kernel, error) {
	return KernelOfStop(obj, param, nil)
}

// KernelOfStop is KernelOf, polling stop (nil: never) while it builds
// large formulas; it returns ErrStopped once stop returns true.
func KernelOfStop(obj h.Object, param string, stop func() bool) (*Kernel, error) {
	k := &Kernel{Object: obj, Param: param, Sequential: true}
	switch obj {
	case h.Queue, h.Stack, h.PQueue:
		order := map[h.Object]*Def{h.Queue: FIFO(), h.Stack: LIFO(), h.PQueue: MAX()}[obj]
		k.Theory = []*Def{Atomic(), AddRem(), order, EmptyAx()}
		k.Sanity = []*Def{Match1(h.Add, h.Rem), Injective(), Function()}
	case h.Set:
		k.Theory = []*Def{Atomic(), Include(), Exclude()}
		k.Sanity = []*Def{SetMatch(), InjectiveOn(h.Rem), SetAddRem(), MatchingAdd(), MatchingRem(), Function()}
	case h.Register:
		k.Theory = []*Def{Atomic(), ReadWrite(), ReadFrom()}
		// The paper lists INJECTIVE, but many reads may read one write
		// (Example 5.6 matches write(1) with two reads): what is meant is
		// that M is a function.
		k.Sanity = []*Def{Match1(h.Write, h.Read), Function()}
	case h.Lock:
		k.Theory = []*Def{Atomic(), TotalOf(h.Unlock), Mutex()}
		k.Sanity = []*Def{Match3Tagged(h.LockM, h.Unlock), Injective(), Function()}
	case h.Semaphore:
		n := (&h.History{Param: param}).Capacity()
		if n > MaxCapacity {
			return nil, fmt.Errorf("semaphore capacity %d: satmon accepts at most %d (LIMIT(n) is a formula of n²/2 conjuncts)", n, MaxCapacity)
		}
		lim := limit(n, stop)
		if lim == nil {
			return nil, ErrStopped
		}
		k.Theory = []*Def{Atomic(), TotalOf(h.Release), lim}
		k.Sanity = []*Def{Match3Tagged(h.Acquire, h.Release), Injective(), Function()}
	case h.Exchanger:
		k.Sequential = false
		k.Theory = []*Def{Completed(), ExchangeOverlapping()}
		k.Sanity = []*Def{Match1(h.Exchange, h.Exchange), Injective(), Symmetric(), MatchOverlap(), NoSelf(), Function()}
	case h.CASRegister:
		k.Theory = []*Def{Atomic(), CASReadWrite(), CASReadFrom()}
		k.Sanity = []*Def{CASMatch(), Function()}
	case h.StringRegister:
		k.Theory = []*Def{Atomic(), StrReadWrite(), StrReadFrom(), AppendChain()}
		k.Sanity = []*Def{StrMatch(), Function()}
		k.DropPending = h.Read
	default:
		return nil, fmt.Errorf("no kernel for object %v", obj)
	}
	k.Pair = k.Sanity[0].Parts[0]
	return k, nil
}

// Axioms lists every prenex axiom of the kernel, theory first.
func (k *Kernel) Axioms() []*Axiom {
	var out []*Axiom
	for _, d := range append(append([]*Def{}, k.Theory...), k.Sanity...) {
		out = append(out, d.Parts...)
	}
	return out
}

// Defs lists the kernel's named formulas, theory first.
func (k *Kernel) Defs() []*Def {
	return append(append([]*Def{}, k.Theory...), k.Sanity...)
}

// InitActions is the number of action indices placed before a log's first
// action: the register's initial write is called at 0 and returns at 1.
// Prepare and the encoder (encode.Encoder.Begin) shift by it alike.
const InitActions = 2

// InitialWrite is the register's initial value, if the log gave one. The
// compare-and-set register starts absent, nil, unless the log gives a
// value; the string register starts empty (written by a put of "").
func (k *Kernel) InitialWrite() (h.Value, bool) {
	switch {
	case k.Object == h.Register && k.Param != "":
		return h.Value(k.Param), true
	case k.Object == h.CASRegister && k.Param != "":
		return h.Value(k.Param), true
	case k.Object == h.CASRegister:
		return h.Nil, true
	case k.Object == h.StringRegister:
		return h.Void, true
	}
	return "", false
}

// Prepare returns the history the theory is evaluated on: for a register
// with an initial value v, a completed write(v) is placed before every
// operation (actions are renumbered to make room). Other histories are
// returned unchanged.
func (k *Kernel) Prepare(hist *h.History) *h.History {
	v, ok := k.InitialWrite()
	if !ok {
		return hist
	}
	out := &h.History{Object: hist.Object, Param: hist.Param, Ops: make([]h.Op, 0, len(hist.Ops)+1)}
	out.Ops = append(out.Ops, h.Op{ID: "init", Label: h.Label{Method: h.Write, Arg: v}, Call: 0, Return: 1})
	for _, o := range hist.Ops {
		o.Call += InitActions
		if o.Return >= 0 {
			o.Return += InitActions
		}
		out.Ops = append(out.Ops, o)
	}
	return out
}

// Candidates lists the values a pending operation could return if it were
// completed, for the history hist (already prepared): every value that
// could make it a matched operation, plus the object's special results.
func (k *Kernel) Candidates(hist *h.History, o *h.Op) []h.Value {
	var out []h.Value
	seen := map[h.Value]bool{}
	add := func(v h.Value) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	switch o.Label.Method {
	case h.Rem:
		if k.Object == h.Set {
			return []h.Value{h.True, h.False}
		}
		for i := range hist.Ops {
			if hist.Ops[i].Label.Method == h.Add {
				add(hist.Ops[i].Label.Arg)
			}
		}
		add(h.Empty)
	case h.Add:
		if k.Object == h.Set {
			return []h.Value{h.True, h.False}
		}
		return []h.Value{h.Void}
	case h.Contains:
		return []h.Value{h.True, h.False}
	case h.Read:
		if k.DropPending == h.Read {
			return nil // dropping it is always as good
		}
		for i := range hist.Ops {
			if m := hist.Ops[i].Label.Method; m == h.Write || m == h.CAS {
				add(hist.Ops[i].Label.Arg)
			}
		}
	case h.CAS:
		return []h.Value{h.OK, h.Fail}
	case h.Unlock, h.Release:
		want := map[h.Method]h.Method{h.Unlock: h.LockM, h.Release: h.Acquire}[o.Label.Method]
		for i := range hist.Ops {
			if hist.Ops[i].Label.Method == want {
				add(hist.Ops[i].Label.Arg)
			}
		}
		add(h.Void)
	case h.Exchange:
		for i := range hist.Ops {
			if &hist.Ops[i] != o && hist.Ops[i].Label.Method == h.Exchange {
				add(hist.Ops[i].Label.Arg)
			}
		}
		add(h.Null)
	default:
		return []h.Value{h.Void}
	}
	return out
}

// Literal returns a copy of the kernel whose axioms are all evaluated and
// grounded tuple by tuple as written: LIMIT loses its Capacity mark, which
// makes Holds and the encoder count instead. For tests, which compare the
// two on small capacities; the literal LIMIT(n) costs W^(n+1).
func (k *Kernel) Literal() *Kernel {
	c := *k
	lit := func(ds []*Def) []*Def {
		out := make([]*Def, len(ds))
		for i, d := range ds {
			nd := *d
			nd.Parts = make([]*Axiom, len(d.Parts))
			for j, a := range d.Parts {
				na := *a
				na.Capacity = 0
				nd.Parts[j] = &na
			}
			out[i] = &nd
		}
		return out
	}
	c.Theory, c.Sanity = lit(k.Theory), lit(k.Sanity)
	c.Pair = c.Sanity[0].Parts[0]
	return &c
}
