package monitor

import h "github.com/satmon/satmon/internal/history"

// The checker works on internal/history's types; the library has its
// own, with the same numbering (TestVocabulary), so that go doc shows
// them and a program needs nothing from internal/.

// Object names one of the atomic reference objects satmon knows.
type Object uint8

// The objects (docs/objects.md).
const (
	NoObject Object = iota
	Queue
	Stack
	PQueue
	Set
	Register
	Lock
	Semaphore
	Exchanger
	CASRegister    // Jepsen's compare-and-set register, initially nil
	StringRegister // one key of a key-value store: put, get, append
)

func (o Object) String() string { return h.Object(o).String() }

// Method is an abstract method name; Add and Rem stand for every
// collection's insertion and removal.
type Method uint8

// The methods of all objects.
const (
	Add Method = iota + 1
	Rem
	Contains
	Write
	Read
	LockM
	Unlock
	Acquire
	Release
	Exchange
	CAS    // cas(Old, Arg) of the compare-and-set register
	Append // append(Arg) of the string register
)

func (m Method) String() string { return h.Method(m).String() }

// Value is an argument or a return value, kept as written.
type Value string

// Special values.
const (
	Void    Value = ""      // no value: the result of add, write, lock, ...
	Empty   Value = "empty" // a removal from an empty collection
	True    Value = "true"
	False   Value = "false"
	Null    Value = "null" // an exchange that found no partner
	Nil     Value = "nil"  // a compare-and-set register read while absent
	CASOK   Value = "ok"   // a cas that found its old value (OK is a verdict)
	CASFail Value = "fail" // a cas that did not
)

func (v Value) String() string { return h.Value(v).String() }

// Label is an operation's label m(u) ⇒ v.
type Label struct {
	Method Method
	Arg    Value // the argument; for cas(old, new), new
	Old    Value // cas(old, new)'s expected old value; Void otherwise
	Prio   int64 // a priority-queue add's priority
	Ret    Value // the return value
	// Pending marks an operation that never returned (Ret is ⊥).
	Pending bool
}

func (l Label) String() string { return l.internal().String() }

func (l Label) internal() h.Label {
	return h.Label{Method: h.Method(l.Method), Arg: h.Value(l.Arg), Old: h.Value(l.Old), Prio: l.Prio, Ret: h.Value(l.Ret), Pending: l.Pending}
}

func labelOf(l h.Label) Label {
	return Label{Method: Method(l.Method), Arg: Value(l.Arg), Old: Value(l.Old), Prio: l.Prio, Ret: Value(l.Ret), Pending: l.Pending}
}

// KVPut is a key-value store's put(v): a write of the string register.
func KVPut(v string) Label { return labelOf(h.Label{Method: h.Write, Arg: h.Value(v)}) }

// KVAppend is a key-value store's append(v).
func KVAppend(v string) Label { return labelOf(h.Label{Method: h.Append, Arg: h.Value(v)}) }

// KVGet is a key-value store's get that returned v ("" for a key never
// written): a read.
func KVGet(v string) Label { return labelOf(h.Label{Method: h.Read, Ret: h.Value(v)}) }
