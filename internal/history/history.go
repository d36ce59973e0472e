// Package history holds the plain data of a concurrent history: objects,
// methods, values, operations and the call/return actions that build them.
package history

import (
	"fmt"
	"strconv"
	"strings"
)

// Object names one of the atomic reference objects satmon knows.
type Object uint8

// The objects of the paper's §3.
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
	// CASRegister is a register with compare-and-set, initially absent
	// (nil): Jepsen's etcd register.
	CASRegister
	// StringRegister holds a string: put sets it, append extends it, get
	// returns it (initially the empty string).
	StringRegister
)

// Objects lists every object, in the order the docs present them.
var Objects = []Object{Queue, Stack, PQueue, Set, Register, Lock, Semaphore, Exchanger, CASRegister, StringRegister}

var objectNames = [...]string{
	NoObject:       "none",
	Queue:          "atomic-queue",
	Stack:          "atomic-stack",
	PQueue:         "atomic-priority-queue",
	Set:            "atomic-set",
	Register:       "atomic-register",
	Lock:           "atomic-lock",
	Semaphore:      "atomic-semaphore",
	Exchanger:      "atomic-exchanger",
	CASRegister:    "atomic-cas-register",
	StringRegister: "atomic-string-register",
}

func (o Object) String() string {
	if int(o) < len(objectNames) {
		return objectNames[o]
	}
	return "object(" + strconv.Itoa(int(o)) + ")"
}

// ParseObject accepts an object's full name ("atomic-queue") or its short
// name ("queue"); "pqueue" and "priority-queue" name the priority queue.
func ParseObject(s string) (Object, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "atomic-")
	switch s {
	case "queue":
		return Queue, true
	case "stack":
		return Stack, true
	case "priority-queue", "pqueue", "pq":
		return PQueue, true
	case "set":
		return Set, true
	case "register":
		return Register, true
	case "lock", "mutex":
		return Lock, true
	case "semaphore":
		return Semaphore, true
	case "exchanger":
		return Exchanger, true
	case "cas-register", "casregister", "cas":
		return CASRegister, true
	case "string-register", "stringregister", "string", "kv":
		return StringRegister, true
	}
	return NoObject, false
}

// Method is an abstract method name; the paper's add/rem stand for every
// collection's insertion and removal.
type Method uint8

// The methods of all objects.
const (
	NoMethod Method = iota
	Add
	Rem
	Contains
	Write
	Read
	LockM
	Unlock
	Acquire
	Release
	Exchange
	CAS    // cas(old, new) of the compare-and-set register
	Append // append(v) of the string register
)

var methodNames = [...]string{
	NoMethod: "none",
	Add:      "add",
	Rem:      "rem",
	Contains: "contains",
	Write:    "write",
	Read:     "read",
	LockM:    "lock",
	Unlock:   "unlock",
	Acquire:  "acquire",
	Release:  "release",
	Exchange: "exchange",
	CAS:      "cas",
	Append:   "append",
}

func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return "method(" + strconv.Itoa(int(m)) + ")"
}

// Special return values.
const (
	Void  Value = ""      // no value: the result of add, write, lock, ...
	Empty Value = "empty" // a removal from an empty collection
	True  Value = "true"
	False Value = "false"
	Null  Value = "null" // an exchange that found no partner
	Nil   Value = "nil"  // the compare-and-set register's absent value
	OK    Value = "ok"   // a compare-and-set that found its old value
	Fail  Value = "fail" // a compare-and-set that did not
)

// Value is an argument or a return value, kept as written in the log.
type Value string

func (v Value) String() string {
	if v == Void {
		return "()"
	}
	return string(v)
}

// Label is an operation's label m(u) ⇒ v. Prio is the priority of a
// priority-queue add; it is what MAX compares.
type Label struct {
	Method Method
	Arg    Value
	// Old is the expected value of cas(old, new); Arg is then new, the
	// value it writes, so that a write and a successful cas both write
	// their Arg. Old is Void for every other method.
	Old     Value
	Prio    int64
	Ret     Value
	Pending bool // the return value is ⊥
}

func (l Label) String() string {
	var b strings.Builder
	b.WriteString(l.Method.String())
	if l.Arg != Void {
		b.WriteString("(")
		if l.Method == CAS {
			b.WriteString(string(l.Old))
			b.WriteString(",")
		}
		b.WriteString(string(l.Arg))
		if l.Method == Add && l.Prio != 0 {
			fmt.Fprintf(&b, ",%d", l.Prio)
		}
		b.WriteString(")")
	}
	switch {
	case l.Pending:
		b.WriteString(" ⇒ ⊥")
	case l.Ret != Void:
		b.WriteString(" ⇒ ")
		b.WriteString(string(l.Ret))
	}
	return b.String()
}

// CASLabel is the pending label of cas(old, new).
func CASLabel(old, new Value) Label {
	return Label{Method: CAS, Arg: new, Old: old, Pending: true}
}

// Op is one operation of a history. Call and Return are the positions of
// its actions in the history's action sequence; Return is -1 while the
// operation is pending.
type Op struct {
	ID     string
	Label  Label
	Call   int
	Return int
	Line   int // line of the call in the log, for messages; 0 if unknown
	// ArgID and RetID name Label.Arg and Label.Ret in the interner of
	// whoever keeps the operation (internal/valtab), when it names them:
	// the monitor's window does, so that the encoder and the remover
	// index their tables by them without hashing the values again.
	ArgID, RetID uint32
}

// Pending reports whether the operation has not returned.
func (o *Op) Pending() bool { return o.Return < 0 }

// Before is the real-time order: a returned before b was called.
func Before(a, b *Op) bool { return a.Return >= 0 && a.Return < b.Call }

// History is a set of operations ordered by real time. Param is the
// object's parameter: the semaphore's capacity, or the register's initial
// value ("" when none).
type History struct {
	Object Object
	Param  string
	Ops    []Op
}

// Capacity is the semaphore's capacity (1 when the log gives none).
func (h *History) Capacity() int {
	if n, err := strconv.Atoi(h.Param); err == nil && n > 0 {
		return n
	}
	return 1
}

// Steps counts the call and return actions of the history.
func (h *History) Steps() int {
	n := 0
	for i := range h.Ops {
		n++
		if !h.Ops[i].Pending() {
			n++
		}
	}
	return n
}

// Prefix returns the history as it stood after the first k actions: later
// calls are absent and later returns are pending again.
func (h *History) Prefix(k int) *History {
	p := &History{Object: h.Object, Param: h.Param}
	for _, o := range h.Ops {
		if o.Call >= k {
			continue
		}
		if o.Return >= k {
			o.Return = -1
			o.Label.Pending = true
			o.Label.Ret = Void
		}
		p.Ops = append(p.Ops, o)
	}
	return p
}

func (h *History) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", h.Object)
	if h.Param != "" {
		fmt.Fprintf(&b, " %s", h.Param)
	}
	b.WriteString(" {")
	for i, o := range h.Ops {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "[%s] %s @%d-%d", o.ID, o.Label, o.Call, o.Return)
	}
	b.WriteString("}")
	return b.String()
}

// Kind tells a call from a return.
type Kind uint8

// The two kinds of action.
const (
	Call Kind = iota + 1
	Return
)

// Action is one line of a log: the call or the return of an operation.
// A return carries the label of the whole operation (method and argument
// from its call); Seq is the action's index in the log, counting from 0.
type Action struct {
	Kind  Kind
	ID    string
	Label Label
	Seq   int
	Line  int
}

// Builder assembles a History from actions that a reader has validated.
type Builder struct {
	H    History
	open map[string]int // id → index in H.Ops while pending
}

// NewBuilder starts an empty history of the given object.
func NewBuilder(obj Object, param string) *Builder {
	return &Builder{H: History{Object: obj, Param: param}, open: map[string]int{}}
}

// Add appends an action; it returns the index of the affected operation.
func (b *Builder) Add(a Action) (int, error) {
	switch a.Kind {
	case Call:
		if _, dup := b.open[a.ID]; dup {
			return -1, fmt.Errorf("duplicate id [%s]: it is already open", a.ID)
		}
		l := a.Label
		l.Pending, l.Ret = true, Void
		b.H.Ops = append(b.H.Ops, Op{ID: a.ID, Label: l, Call: a.Seq, Return: -1, Line: a.Line})
		b.open[a.ID] = len(b.H.Ops) - 1
		return len(b.H.Ops) - 1, nil
	case Return:
		i, ok := b.open[a.ID]
		if !ok {
			return -1, fmt.Errorf("return without call: [%s] is not open", a.ID)
		}
		delete(b.open, a.ID)
		o := &b.H.Ops[i]
		o.Return = a.Seq
		o.Label.Ret = a.Label.Ret
		o.Label.Pending = false
		return i, nil
	}
	return -1, fmt.Errorf("bad action kind %d", a.Kind)
}
