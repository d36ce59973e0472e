package monitor

import h "github.com/satmon/satmon/internal/history"

// The plain data of a history lives in internal/history, at the bottom of
// the import graph, so that theory and encode never reach up into monitor.
// These aliases are the library's names for it: the same types, not copies.

// Object names one of the atomic reference objects satmon knows.
type Object = h.Object

// The objects.
const (
	NoObject  = h.NoObject
	Queue     = h.Queue
	Stack     = h.Stack
	PQueue    = h.PQueue
	Set       = h.Set
	Register  = h.Register
	Lock      = h.Lock
	Semaphore = h.Semaphore
	Exchanger = h.Exchanger
	// CASRegister is Jepsen's compare-and-set register; StringRegister
	// one key of a key-value store (put, get, append).
	CASRegister    = h.CASRegister
	StringRegister = h.StringRegister
)

// ParseObject accepts an object's full name ("atomic-queue") or its short
// name ("queue").
func ParseObject(s string) (Object, bool) { return h.ParseObject(s) }

// Method is an abstract method name; add and rem stand for every
// collection's insertion and removal.
type Method = h.Method

// The methods of all objects.
const (
	Add      = h.Add
	Rem      = h.Rem
	Contains = h.Contains
	Write    = h.Write
	Read     = h.Read
	LockM    = h.LockM
	Unlock   = h.Unlock
	Acquire  = h.Acquire
	Release  = h.Release
	Exchange = h.Exchange
	CAS      = h.CAS
	Append   = h.Append
)

// Value is an argument or a return value, kept as written in the log.
type Value = h.Value

// Special values.
const (
	Void  = h.Void
	Empty = h.Empty
	True  = h.True
	False = h.False
	Null  = h.Null
	Nil   = h.Nil // a compare-and-set register read while absent
	// A cas returns CASOK or CASFail (monitor.OK is a verdict).
	CASOK   = h.OK
	CASFail = h.Fail
)

// Label is an operation's label m(u) ⇒ v.
type Label = h.Label

// Action is one call or return of a log.
type Action = h.Action

// Kind tells a call action from a return action.
type Kind = h.Kind

// The two kinds of action.
const (
	CallAction   = h.Call
	ReturnAction = h.Return
)

// History is a set of operations ordered by real time.
type History = h.History

// Op is one operation of a history.
type Op = h.Op
