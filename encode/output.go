package encode

import (
	"fmt"

	"github.com/satmon/satmon/internal/z"
)

// poll reports whether to stop; it asks stop once every 1,024 calls, as a
// call is a small piece of grounding work and stop reads the clock. Small
// enough to be inlined: it runs for every literal Assigned is told of.
// (Only a call to stop sets stopped, so without stop it is false.)
func (e *Encoder) poll() bool {
	if e.polls++; e.polls%1024 != 0 || e.stop == nil {
		return e.stopped
	}
	return e.pollStop()
}

// pollStop is poll's call to stop, kept out of line so that poll inlines.
//
//go:noinline
func (e *Encoder) pollStop() bool {
	if !e.stopped {
		e.stopped = e.stop()
	}
	return e.stopped
}

func (e *Encoder) emit(cl []Lit) {
	e.clause++
	if len(cl) == 1 {
		e.reg.unit(cl[0])
	}
	e.sink.AddClause(cl)
}

// newVar makes a variable, an auxiliary until the registry is told more
// (define). name is only called when Names is on.
func (e *Encoder) newVar(name func() string) z.Var {
	v := e.sink.NewVar()
	e.reg.made(v)
	if e.Names {
		e.reg.name(v, name())
	}
	return v
}

// own adds ov to o's list of owned variables.
func (e *Encoder) own(o *Op, ov ownedVar) {
	if len(o.owned) == cap(o.owned) || e.reg.trackOwners {
		e.ownSlow(o, ov)
		return
	}
	o.owned = append(o.owned, ov)
}

// ownSlow is own when o's list is full, or owners are tracked: kept apart
// so that own inlines. A full list moves to a recycled list of twice the
// capacity, and the old one is kept (the lists of a window that keeps its
// size are then all recycled, as push does for the partner lists).
func (e *Encoder) ownSlow(o *Op, ov ownedVar) {
	if l := o.owned; len(l) == cap(l) {
		nl := append(e.tab.takeOwned(max(2*cap(l), minOwnedCap)), l...)
		e.tab.putOwned(l)
		o.owned = nl
	}
	if e.reg.trackOwners {
		e.reg.addOwner(ov.v, o.Serial)
	}
	o.owned = append(o.owned, ov)
}

// variable returns the variable of k, made on first use. Most calls find
// it: the look-up is kept apart from the making (makeVar), which is done
// about three times a step.
func (e *Encoder) variable(k varKey) Lit {
	if k.kind == vRet {
		x := k.xo
		if x == nil {
			x = e.tab.op(k.x)
		}
		if v, ok := x.rets.get(k.v); ok {
			return v
		}
	} else if k.kind != vUsed {
		if l, ok := e.reg.vars.get(k.pair().key()); ok {
			return l
		}
	}
	// used(o) is made once, by used, which keeps it in o.usedVar.
	return e.makeVar(&k)
}

// pairVar is variable for the b or match variable of x and y (in that
// order): the look-up needs only the operations, and the key is built
// only to make the variable.
func (e *Encoder) pairVar(kind varKind, x, y *Op) Lit {
	if l, ok := e.reg.vars.get(varPair{kind, int32(x.Serial), int32(y.Serial)}.key()); ok {
		return l
	}
	return e.makeVar(&varKey{kind: kind, x: x.Serial, y: y.Serial, xo: x, yo: y})
}

// makeVar makes the variable of k, which has none: it records what it
// stands for and its operations in the registry at once, has them own
// it, and emits or schedules its side clauses.
func (e *Encoder) makeVar(k *varKey) Lit {
	x, y := k.xo, (*Op)(nil)
	if x == nil {
		x = e.tab.op(k.x)
	}
	if k.kind == vB || k.kind == vMatch {
		if y = k.yo; y == nil {
			y = e.tab.op(k.y)
		}
	}
	v := e.sink.NewVar()
	e.reg.makeDefined(v, k, x, y)
	if e.Names {
		e.reg.name(v, e.keyName(*k))
	}
	l := v.Pos()
	// own, written out: makeVar is too big for the compiler to inline
	// own into it, and this is once or twice per variable made.
	ov := e.reg.ownedOf(v)
	if len(x.owned) < cap(x.owned) && !e.reg.trackOwners {
		x.owned = append(x.owned, ov)
	} else {
		e.ownSlow(x, ov)
	}
	if y != nil && y != x {
		if len(y.owned) < cap(y.owned) && !e.reg.trackOwners {
			y.owned = append(y.owned, ov)
		} else {
			e.ownSlow(y, ov)
		}
	}
	// A pending operation's ret and match variables have side clauses:
	// it returns at most one value, and only used operations return one
	// or are matched (eagerGround.pendingRet, pendingMatch; SATURATE's
	// when they become unit, lazyret.go).
	switch k.kind {
	case vRet:
		x.rets.add(&e.tab, k.v, l)
		e.grd.pendingRet(x, l)
	case vMatch:
		if x.pending() || y.pending() {
			e.grd.pendingMatch(x, y, l)
		}
		e.match.made(newMatch{x, y, l})
	}
	return l
}

func (e *Encoder) keyName(k varKey) string {
	id := func(s int) string {
		if o := e.tab.op(s); o != nil {
			return fmt.Sprintf("o%d", o.Serial)
		}
		return fmt.Sprintf("o%d", s)
	}
	switch k.kind {
	case vB:
		return fmt.Sprintf("b(%s,%s)", id(k.x), id(k.y))
	case vUsed:
		return fmt.Sprintf("used(%s)", id(k.x))
	case vMatch:
		return fmt.Sprintf("match(%s,%s)", id(k.x), id(k.y))
	case vRet:
		return fmt.Sprintf("ret(%s)=%s", id(k.x), k.v)
	}
	return "aux"
}

func (e *Encoder) used(o *Op) Lit {
	// Cached: the variable lives exactly as long as the operation.
	if o.usedVar == z.LitNull {
		o.usedVar = e.variable(varKey{kind: vUsed, x: o.Serial, xo: o})
		if !o.pending() {
			// SATURATE made none while o was pending (Call), and o's
			// return was a fact without one: the new variable is true.
			e.emit1(o.usedVar)
		}
	}
	return o.usedVar
}

func (e *Encoder) emit1(a Lit) {
	e.scr.pair[0] = a
	e.emit(e.scr.pair[:1])
}

func (e *Encoder) emit2(a, b Lit) {
	// Its own buffer: callers may be building a clause in clauseBuf.
	e.scr.pair = [2]Lit{a, b}
	e.emit(e.scr.pair[:])
}
