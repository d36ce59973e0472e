package encode

import (
	"cmp"
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/valtab"
	"github.com/satmon/satmon/internal/z"
)

// The encoder's entry points, each a sequence of phases, so that what
// happens to one call, one return, one new fact and one forgetting can be
// read here in order; the phases themselves live with the part that owns
// their state: the operation table (table.go), the variables (vars.go),
// partner lists (partners.go), grounding (instances.go, compiled.go), the
// watched instances (watched.go), the lazy side clauses (order.go,
// lazymatch.go, lazypair.go, lazyret.go) and LIMIT (limit.go).

// Call adds a new operation to the window and emits the universal
// instances it completes. Only o's exported fields are read (what a
// caller can set): the rest is the state of a new operation.
func (e *Encoder) Call(o Op) {
	e.call(e.tab.enter(o.Serial, &o.Label, o.Call, e.tab.intern(o.Label.Arg)))
}

// call is Call of op, just made by enter (CallOp makes it from the
// history's operation directly, without an Op in between).
func (e *Encoder) call(op *Op) {
	e.scr.nodes.reset()
	// Its partners are found before it joins the window, where it would
	// be a candidate of its own.
	e.ptn.linkPartners(op)
	e.tab.add(op)
	// The used variable: made now by the complete encoding, only when a
	// clause needs it by SATURATE's (eager.go, lazy.go).
	e.grd.called(op)
	for _, a := range e.callAx {
		if a.shape == shapeTransitive {
			e.enum.transitivity(a, op)
		} else {
			e.enum.instances(a, op, false, nil)
		}
	}
	e.match.flushMatches()
}

// Return records that the operation serial returned ret at action seq and
// emits the ∀∃ instances that became closed.
func (e *Encoder) Return(serial int, ret h.Value, seq int) {
	e.ret(serial, ret, e.tab.intern(ret), seq)
}

// ret is Return, with ret's ID, a reference taken for the operation.
func (e *Encoder) ret(serial int, ret h.Value, retID valtab.ID, seq int) {
	e.scr.nodes.reset()
	op := e.tab.op(serial)
	// Settle the pending-era variables first: used, and the return value.
	// Without a used variable (SATURATE, see Call) nothing is settled, but
	// the fact is still news to the lazy transitivity: a cycle through op
	// whose clause waited for used(op) may now be unit. The next Assigned
	// acts on it first, where the unit used(op) would have been, ahead of
	// the other literals of this return (Waiting asks the caller for that
	// call even if the solver assigns nothing new).
	if op.usedVar == z.LitNull { // SATURATE's grounding made none (lazyGround.called)
		e.usedFacts = append(e.usedFacts, op)
	} else {
		e.emit1(e.used(op))
	}
	// In the order of the variables, as retTrue does.
	if op.rets.len() > 0 { // most operations have none
		units := e.scr.retUnits[:0]
		for _, r := range op.rets.vs {
			if r.v == ret {
				units = append(units, r.l)
			} else {
				units = append(units, r.l.Not())
			}
		}
		slices.SortFunc(units, func(a, b Lit) int { return cmp.Compare(a.Var(), b.Var()) })
		for _, l := range units {
			e.emit1(l)
		}
		e.scr.retUnits = units
	}
	e.tab.returned(op, ret, retID, seq)
	if e.ptn.virt {
		e.ptn.returnPartners(op)
	} else {
		e.ptn.prunePartners(op)
	}
	for _, a := range e.retAx {
		if a.shape == shapeLimit {
			e.limit.returned(a, op)
		} else {
			e.enum.instances(a, op, true, nil)
		}
	}
	e.match.flushMatches()
}

// Waiting reports whether the encoder has facts of its own for the next
// Assigned (returns without a used variable, see Return): the caller then
// calls Assigned even if the solver assigned nothing new.
func (e *Encoder) Waiting() bool { return len(e.usedFacts) > 0 }

// Assigned is told of literals that became true in the solver since the
// last call. With Config.Lazy set, it visits the watched ∀∃ instances
// that watch them (with Config.Watch) and emits the instances,
// transitivity and side clauses that they made unit or false; the caller
// propagates again and repeats until no literal is new. Otherwise it does
// nothing.
func (e *Encoder) Assigned(lits []Lit) {
	e.grd.assigned(lits)
}

// Remove forgets returned operations and returns the variables that only
// made sense with them (in a slice that the next call reuses): their b,
// used, match and ret variables and the helpers of the instances they
// were universally bound in. The caller forgets those variables in its
// solver, which drops every clause that mentions them. What was derived
// about the remaining variables stays.
func (e *Encoder) Remove(serials []int) []z.Var {
	forget := e.scr.forget[:0]
	// The operations to forget are marked with a fresh stamp.
	e.stamp++
	gone := e.stamp
	pendGone := false // callers forget returned operations only; kept exact
	for _, s := range serials {
		o := e.tab.op(s)
		if o == nil || o.mark == gone {
			continue
		}
		o.mark = gone
		o.life++
		if o.pending() {
			pendGone = true
		} else if e.ptn.virt {
			e.ptn.retLive[o.retID]-- // see callPartners
		}
		e.tab.doom(o)
		from := len(forget)
		forget = e.reg.forgetOwned(o.owned, forget)
		// The watched instances read no variable's registry entry, so
		// they may be told after o's variables are all gone.
		e.grd.forgotten(forget[from:])
		e.tab.keepOwned(o)
	}
	e.match.forget(gone)
	// Likewise used facts not acted on yet.
	if len(e.usedFacts) > 0 {
		keep := e.usedFacts[:0]
		for _, o := range e.usedFacts {
			if o.mark != gone {
				keep = append(keep, o)
			}
		}
		e.usedFacts = keep
	}
	if e.scr.quickMemos {
		e.enum.quickForgotten(serials, gone)
	}
	e.stamp++
	e.tab.drop(gone, e.stamp, pendGone)
	e.scr.forget = forget
	e.grd.revisit()
	return forget
}

// EmitOpen emits every ∀∃ instance not yet emitted for good — those with a
// pending universally bound operation, or of axioms that never close — each
// clause extended with ¬act (act = z.LitNull: unconditionally).
func (e *Encoder) EmitOpen(act Lit) {
	e.scr.nodes.reset()
	var extra []Lit
	if act != z.LitNull {
		extra = []Lit{act.Not()}
	}
	for _, a := range e.ax {
		switch {
		case a.shape == shapeLimit:
			e.limit.open(a, extra)
		case len(a.Exists) > 0:
			e.enum.instances(a, nil, false, extra)
		}
	}
	e.match.flushMatches()
}
