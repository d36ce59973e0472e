// Package encode grounds an object's kernel theory over the operations of a
// history window into propositional clauses (the paper's §4, Figure 8).
package encode

import (
	"fmt"
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/valtab"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

// Values is the solver whose assignment the lazy grounding reads: it
// hands over the assignment as a table indexed by literal, (*a)[l] being
// +1 if l is true, -1 if false and 0 if unassigned. The table must cover
// every literal of the variables the encoder's Sink made, and the
// pointer must stay valid and current as the table grows (saturate's
// Solver.Assignment is). The grounder and the watched instances read a
// value for every literal they fold; a table spares them a call through
// an interface for each.
type Values interface {
	Assignment() *[]z.Value
}

// Config chooses, once, when the encoder is made, how it grounds; nothing
// about it changes afterwards, so no entry point has to ask whether a
// mode was switched on before or after some operation. The zero Config is
// the complete encoding that SYMBOLIC and `satmon encode` use: with
// EmitOpen, satisfiable iff the window is linearizable.
type Config struct {
	// Values, when set, is the interner of the caller's operations
	// (valtab.NewValues): CallOp and ReturnOp take the IDs they carry
	// (h.Op.ArgID, RetID) instead of hashing the values again. The
	// encoder holds its own references to them.
	Values *valtab.Interner
	// Lazy, when set, is the saturator's assignment, and grounding is for
	// unit propagation: transitivity and a pending operation's side
	// clauses are generated when they become unit or false under it
	// (order.go, lazyret.go, lazypair.go; Assigned), which reaches the
	// fixpoint unit propagation reaches on the complete encoding
	// (TestLazyGroundingExact). Only sequential kernels ground lazily;
	// for the others Lazy is ignored.
	Lazy Values
	// Watch (with Lazy) materialises a ∀∃ instance only when it becomes
	// unit or false, with no Tseitin helpers (watched.go).
	Watch bool
	// ClosedRemoval (with Watch) says that Remove is only ever given
	// operations whose forgetting leaves a history that is linearizable
	// if the whole one is: a watched instance's forgotten witnesses are
	// then false (watched.go). The instances SYMBOLIC and the interpreter
	// emit as clauses keep the clause form's rule (they die with a
	// forgotten literal).
	ClosedRemoval bool
	// EagerMatching grounds the matching axioms for every pair of
	// possible partners at each call, as the paper's encoding does,
	// instead of once their match variables exist (lazymatch.go): every
	// instance is then named in a derivation, and tests compare it with
	// the default.
	EagerMatching bool
	// TrackOwners makes the encoder remember which operations own each
	// variable (VarOwners).
	TrackOwners bool
	// Stop is polled during long groundings. Once it returns true the
	// encoder stops grounding, every entry point returns at once, and the
	// clauses emitted are a part of the encoding only: the caller must
	// check Stopped and give the encoder up. (A part of the clauses is
	// satisfiable whenever the whole is, so a check that went on
	// regardless could miss a violation but never invent one.) Nil never
	// stops.
	Stop func() bool
}

// New makes an encoder of kernel k's theory that hands its variables and
// clauses to sink, grounding as cfg says.
func New(k *theory.Kernel, sink Sink, cfg Config) *Encoder {
	e := &Encoder{k: k, sink: sink}
	e.match.e = e
	e.ptn.e = e
	e.enum.e = e
	e.gr.e = e
	e.fo.e, e.fo.drop = e, k.DropPending
	if e.tab.vals, e.sharedVals = cfg.Values, cfg.Values != nil; !e.sharedVals {
		e.tab.vals = valtab.NewValues()
	}
	e.reg.vars.init()
	e.ax = preparedAxioms(k)
	if cfg.EagerMatching {
		// The prepared axioms are shared: change copies.
		ax := make([]*axiom, len(e.ax))
		for i, a := range e.ax {
			c := *a
			c.matchAtoms = nil
			ax[i] = &c
		}
		e.ax = ax
		e.match.injective, e.match.function = false, false
	}
	e.match.matchAx = e.match.matchBuf[:0]
	for _, p := range e.ax {
		if p.Axiom == k.Pair {
			e.pairAx = p
		}
		if p.matchAtoms != nil {
			e.match.matchAx = append(e.match.matchAx, p)
		}
		if p.shape == shapeLimit && e.limit == nil {
			e.limit = &limitGround{e: e}
		}
		e.match.injective = e.match.injective || p.shape == shapeInjective && !cfg.EagerMatching
		e.match.function = e.match.function || p.shape == shapeFunction && !cfg.EagerMatching
	}
	if c := k.Pair.Body; c.Kind == theory.KImplies {
		rets := 0
		e.pairRet = true
		for _, f := range conjuncts(c.Args[1]) {
			if (f.Kind == theory.KArgRet || f.Kind == theory.KArgEq) && f.X == 0 && f.Y == 1 {
				e.valueTied = true
			}
			switch {
			case f.Kind == theory.KArgRet && f.X == 0 && f.Y == 1:
				rets++
			case f.Kind != theory.KMeth:
				e.pairRet = false
			}
		}
		e.pairRet = e.pairRet && rets == 1
	}
	e.lab.obj, e.lab.pair, e.lab.pairRet = k.Object, k.Pair, e.pairRet
	e.lab.foldMethods()
	e.ptn.virt = e.pairRet && k.Object != h.Exchanger
	if k.Sequential && cfg.Lazy != nil {
		e.lazy = newLazy(e, cfg.Watch, cfg.Watch && cfg.ClosedRemoval)
		e.assign = cfg.Lazy.Assignment()
		e.grd = e.lazy
		e.lazyPairs = e.pairRet && e.pairAx != nil && e.pairAx.matchAtoms != nil
		e.gr.watch = cfg.Watch
	} else {
		e.assign = &e.noAssign
		e.sink = zeroSink{sink, &e.noAssign}
		e.grd = eagerGround{e}
	}
	e.reg.trackOwners = cfg.TrackOwners
	e.stepAxioms()
	e.enum.setQuick()
	e.stop = cfg.Stop
	return e
}

// Stopped reports whether stop interrupted a grounding.
func (e *Encoder) Stopped() bool { return e.stopped }

// Stats reports the encoding's size so far.
func (e *Encoder) Stats() (vars, clauses int) { return e.reg.nvars, e.clause }

// GroundingStats reports the grounding's work so far.
func (e *Encoder) GroundingStats() GroundingStats {
	s := GroundingStats{Bindings: e.enum.bindings}
	e.grd.stats(&s)
	return s
}

// VarName returns the meaning of variable v, when Names is on.
func (e *Encoder) VarName(v z.Var) string { return e.reg.names[v] }

// Literals of the ground atoms; constants where labels and real time decide.

// Ops returns the live operations in call order; the slice is the
// encoder's own and changes with the window.
func (e *Encoder) Ops() []*Op { return e.tab.win }

// CheckWindow verifies what Remove's filtering relies on and keeps: every
// list of a live operation names only live operations, and each relation
// is symmetric; and the operations' value IDs name their values. It is
// for tests; it costs O(window²).
func (e *Encoder) CheckWindow() error {
	live := map[*Op]bool{}
	for _, o := range e.tab.win {
		live[o] = true
	}
	for _, o := range e.tab.win {
		// The value IDs name the operation's values: an ID reused while
		// the operation held it would not.
		if v := e.tab.vals.Value(o.argID); v != o.Label.Arg {
			return fmt.Errorf("encode: %d's argument ID %d names %q, not %q", o.Serial, o.argID, v, o.Label.Arg)
		}
		if v := e.tab.vals.Value(o.retID); v != o.Label.Ret {
			return fmt.Errorf("encode: %d's return ID %d names %q, not %q", o.Serial, o.retID, v, o.Label.Ret)
		}
		if e.ptn.virt {
			// Only pairs whose y has returned are stored (partners.go).
			for _, p := range o.asX {
				if p.pending() {
					return fmt.Errorf("encode: %d.asX stores %d, which is pending", o.Serial, p.Serial)
				}
			}
			if len(o.asY) > 0 && o.pending() {
				return fmt.Errorf("encode: %d.asY is stored while it is pending", o.Serial)
			}
		}
		// conc is in window order (edgeAssigned bisects it).
		for i := 1; i < len(o.conc); i++ {
			if o.conc[i-1].Serial >= o.conc[i].Serial {
				return fmt.Errorf("encode: %d.conc is not in window order", o.Serial)
			}
		}
		for _, r := range [...]struct {
			name       string
			list, back func(*Op) []*Op
		}{
			{"asX", func(o *Op) []*Op { return o.asX }, func(o *Op) []*Op { return o.asY }},
			{"asY", func(o *Op) []*Op { return o.asY }, func(o *Op) []*Op { return o.asX }},
			{"conc", func(o *Op) []*Op { return o.conc }, func(o *Op) []*Op { return o.conc }},
			{"succ", func(o *Op) []*Op { return o.succ }, func(o *Op) []*Op { return o.pred }},
			{"pred", func(o *Op) []*Op { return o.pred }, func(o *Op) []*Op { return o.succ }},
		} {
			for _, p := range r.list(o) {
				if !live[p] {
					return fmt.Errorf("encode: %d.%s names %d, which is not live", o.Serial, r.name, p.Serial)
				}
				if !slices.Contains(r.back(p), o) {
					return fmt.Errorf("encode: %d.%s names %d, but not the other way round", o.Serial, r.name, p.Serial)
				}
			}
		}
	}
	return nil
}

// VarOwners lists the serials of the operations that own variable v: the
// operations of a b, used, match or ret variable, the universally bound
// operations of the instance a Tseitin helper belongs to. Removing any of
// them makes v meaningless. Valid with TrackOwners, for variables that
// are never recycled (SYMBOLIC's solvers never recycle).
func (e *Encoder) VarOwners(v z.Var) []int32 {
	if int(v) < len(e.reg.owners) {
		return e.reg.owners[v]
	}
	return nil
}

// Op returns the live operation with the given serial.
func (e *Encoder) Op(serial int) *Op { return e.tab.op(serial) }

// UsedLit, BLit, RetLit and MatchLit expose variables for assumptions;
// they return z.LitNull when the atom is a constant.
func (e *Encoder) UsedLit(serial int) Lit {
	op := e.tab.op(serial)
	if !op.pending() {
		return z.LitNull
	}
	return e.used(op)
}

// BLit is b(x,y) as a literal, or z.LitNull with the constant in val.
func (e *Encoder) BLit(x, y int) (lit Lit, val bool) {
	e.scr.nodes.reset()
	n := e.fo.bNode(e.tab.op(x), e.tab.op(y))
	if n.kind == nLit {
		return n.lit, false
	}
	return z.LitNull, n.kind == nTrue
}

// RetVars lists the return-value variables of a pending operation.
func (e *Encoder) RetVars(serial int) map[h.Value]Lit {
	out := map[h.Value]Lit{}
	if o := e.tab.op(serial); o != nil {
		for _, w := range o.rets.vs {
			out[w.v] = w.l
		}
	}
	return out
}
