package encode

import (
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/valtab"
	"github.com/satmon/satmon/theory"
)

// A history's operations enter the encoder here. The encoder owns the
// register's virtual initial write and the shift of action indices that
// makes room for it, so that every caller (SATURATE's live window,
// SYMBOLIC's rebuilds, from-scratch encodings, derivations) numbers the
// same way: the initial write is serial 0 at actions 0 and 1, and a log
// action i is encoder action i + theory.InitActions. With no initial write
// the shift is still applied; only the relative order of actions matters.

// Begin adds the register's virtual initial write, when the kernel has
// one: a completed write of the initial value before every operation of
// the log. Call it once, after the encoder's options are set (owners,
// names, watching) and before the first operation.
func (e *Encoder) Begin() {
	if v, ok := e.k.InitialWrite(); ok {
		e.Call(Op{Serial: 0, Label: h.Label{Method: h.Write, Arg: v}, Call: 0})
		e.Return(0, h.Void, 1)
	}
}

// CallOp adds the history operation o, under the given serial (≥ 1, and
// increasing), at its call; o.Call is its action index in the log.
func (e *Encoder) CallOp(o *h.Op, serial int) {
	e.call(e.tab.enter(serial, &o.Label, o.Call+theory.InitActions, e.heldID(o.Label.Arg, o.ArgID)))
}

// ReturnOp records the return of o, added before by CallOp under serial.
func (e *Encoder) ReturnOp(o *h.Op, serial int) {
	e.ret(serial, o.Label.Ret, e.heldID(o.Label.Ret, o.RetID), o.Return+theory.InitActions)
}

// heldID returns v's ID with a reference taken: id, o's own, when the
// interner is the caller's (Config.Values), whose operations carry their
// values' IDs; else v interned.
func (e *Encoder) heldID(v h.Value, id valtab.ID) valtab.ID {
	if e.sharedVals {
		e.tab.vals.Hold(id)
		return id
	}
	return e.tab.intern(v)
}

// SerialOf is the serial of a history's i-th operation in a from-scratch
// encoding (Replay): serials start at 1, after the initial write's 0.
func SerialOf(i int) int { return i + 1 }

// ReplayOptions tune Replay.
type ReplayOptions struct {
	// Names records what each variable stands for (VarName).
	Names bool
	// Stop is polled during long groundings (Config.Stop); nil never stops.
	Stop func() bool
}

// Replay grounds the kernel over the whole history hist into s, action by
// action in log order: the initial write first, then each operation under
// SerialOf of its index. It does not emit the instances about pending
// operations; EmitOpen does. It stops early, leaving an incomplete
// encoding, once opt.Stop returns true (Stopped then says so).
func Replay(k *theory.Kernel, hist *h.History, s Sink, opt ReplayOptions) *Encoder {
	e := New(k, s, Config{Stop: opt.Stop})
	e.Names = opt.Names
	e.Begin()
	// Action index → operation index: each action is either an
	// operation's call or its return.
	n := 0
	for i := range hist.Ops {
		n = max(n, hist.Ops[i].Call+1, hist.Ops[i].Return+1)
	}
	at := make([]int32, n)
	for i := range at {
		at[i] = -1
	}
	for i := range hist.Ops {
		at[hist.Ops[i].Call] = int32(i)
		if !hist.Ops[i].Pending() {
			at[hist.Ops[i].Return] = int32(i)
		}
	}
	for seq, i := range at {
		if i < 0 {
			continue
		}
		if e.Stopped() {
			break
		}
		o := &hist.Ops[i]
		if seq == o.Call {
			e.CallOp(o, SerialOf(int(i)))
		} else {
			e.ReturnOp(o, SerialOf(int(i)))
		}
	}
	return e
}
