// Package encode grounds an object's kernel theory over the operations of a
// history window into propositional clauses (the paper's §4, Figure 8).
package encode

import (
	"fmt"
	"math/bits"
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/valtab"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

// Lit is a literal (z.Lit): Var.Pos() for a variable, Not() for its
// negation; z.LitNull is no literal.
type Lit = z.Lit

// Sink receives the encoding: it hands out variables and takes clauses.
type Sink interface {
	// NewVar returns a fresh variable (never 0).
	NewVar() z.Var
	// AddClause must not keep lits: the encoder reuses the slice.
	AddClause(lits []Lit)
}

// Op is an operation of the window. Serial identifies it for as long as
// it lives (serials are never reused); Call and Return are action indices
// as in history.Op (Return < 0 while pending).
type Op struct {
	Serial int
	Label  h.Label
	Call   int
	Return int

	// Operations this one may be matched with, as x in match(x,y) (asX
	// lists the y) and as y (asY lists the x): a superset, kept so that
	// grounding visits partners instead of the whole window.
	asX, asY []*Op
	// conc lists the operations that overlap this one in real time: only
	// those pairs get a b variable.
	conc []*Op
	// succ and pred list the overlapping operations z with b(o,z),
	// respectively b(z,o), assigned true, as Assigned learnt them: the
	// triangle checks of the lazy transitivity read edges there, without
	// a table lookup, and visit only triangles that can be unit.
	succ, pred []*Op
	// bFromKey and bFromLit remember one b(p,o) variable with p's serial
	// below o's (bFromKey is its key, varPair.key, or 0): the literal
	// edgeAssigned last looked up or was told for o. The key names both
	// serials, which are never reused, and the variable lives as long as
	// both operations: so a key that matches is still the variable's.
	bFromKey uint64
	bFromLit Lit

	// retTail is the last variable of the ladder that keeps at most one
	// ret(o) = v variable true (see variable).
	retTail Lit
	usedVar Lit // used(o), once created
	// argID and retID name Label.Arg and Label.Ret in the table's
	// interner (opTable.vals): retID is idVoid while o is pending.
	argID, retID valtab.ID
	// rets are the ret(o) = v variables of a pending o (retvars.go).
	rets    retVars
	retTrue Lit // the ret(o) = v variable last seen true (lazyret.go)
	// trueAsX and trueAsY are the match(o,·) and match(·,o) variables
	// last seen true (lazymatch.go).
	trueAsX, trueAsY Lit
	// qrun is a run of settled candidates starting at this operation,
	// in its method's list (compiled.go, quickRun), valid while qEpoch
	// is the encoder's scratch quickEpoch.
	qrun   quickRun
	qEpoch uint32
	mark   uint32 // scratch for the lazy transitivity
	// life is bumped when the operation is forgotten, so that what names
	// it by pointer (a watched instance's owners) can tell it from the
	// next operation to reuse the struct.
	life uint32
	// cutN is scratch for Remove (opTable.drop): how many of the
	// operations forgotten this operation's overlap list names.
	cutN uint32
	// owned lists, for forgetting, the variables the operation owns (its
	// b, used, match and ret variables, and the Tseitin helpers of the
	// instances it is universally bound in), tagged with the variable's
	// epoch so that a recycled variable is never forgotten on behalf of
	// its old owner. Kept with the operation, not in a table by serial:
	// such a table could only drop its oldest entries, and an operation
	// that stalls pending kept every later entry.
	owned ownedList
	// lim is LIMIT's counter for a returned acquire (limit.go).
	lim *limitState
}

func (o *Op) pending() bool { return o.Return < 0 }

// openList lists, in window order, the z in o.conc with a serial
// above o's for which b(o,z) was not true when last read, among those
// in o.conc when to was the last serial; o is the operation, of its
// serial (o's struct may since hold another operation), and used when
// the list was last read. See openAfter.
type openList struct {
	o      *Op
	of, to int
	used   uint64
	ops    []openOp
}

// openOp is an operation of an open list with its life (Op.life) when
// it was listed.
type openOp struct {
	z    *Op
	life uint32
}

func before(a, b *Op) bool { return a.Return >= 0 && a.Return < b.Call }

// realTime is b(x,y) where labels and real time decide it: false for
// x = y, true or false for operations ordered in real time, else unknown.
func realTime(x, y *Op) tri {
	switch {
	case x == y:
		return vFalse
	case before(x, y):
		return vTrue
	case before(y, x):
		return vFalse
	}
	return vUnknown
}

// Encoder grounds the kernel incrementally as operations are called and
// return. Instances of universal axioms are emitted as soon as all their
// operations exist; instances of ∀∃ axioms as soon as all their
// universally bound operations have returned (then no later operation can
// be a witness, see docs/encoding.md). EmitOpen emits the remaining ∀∃
// instances, those about pending operations, under an activation literal.
type Encoder struct {
	k    *theory.Kernel
	sink Sink
	// sharedVals: tab.vals is the caller's (Config.Values).
	sharedVals bool
	ax         []*axiom

	// The parts, each the one owner of its state.
	tab   opTable      // the window's operations and their lists (table.go)
	reg   varReg       // the variables made, and what each stands for (vars.go)
	scr   scratch      // buffers that no state outlives a call in (scratch.go)
	match matcher      // the instances that wait for match variables (lazymatch.go)
	ptn   partnerLists // which operations may match which (partners.go)
	enum  enumerator   // the tuples of the axioms' instances (instances.go, compiled.go)
	gr    grounder     // one instance: its witnesses and clauses (leaf.go)
	fo    folder       // atoms folded to ground nodes and literals (node.go, fold.go)
	Names bool         // name variables (VarName), for tests and DIMACS comments

	clause int // clauses emitted (Stats)

	// valueTied: the kernel's MATCH axiom ties the partners' values
	// (arg(x) = ret(y) or arg(x) = arg(y)).
	valueTied bool
	// pairRet: MATCH says meth(x) = … ∧ meth(y) = … ∧ arg(x) = ret(y)
	// and nothing else (lazypair.go).
	pairRet bool
	// usedFacts are operations that returned without a used variable
	// (only SATURATE's grounding makes none at the call, see
	// grounding.go): the next Assigned acts on their used facts as on
	// the unit used(o) that the return would have emitted.
	usedFacts []*Op
	// lazyPairs: MATCH's clauses are generated on demand (lazypair.go),
	// with a lazy grounding and pairRet.
	lazyPairs bool
	pairAx    *axiom // MATCH among ax
	// callAx and retAx are the axioms of ax that Call and Return act on
	// (stepAxioms), in ax's order.
	callAx, retAx []*axiom
	// lazy is SATURATE's lazy grounding (lazy.go), nil for SYMBOLIC and
	// DIMACS; assign is its solver's assignment as a table (Values),
	// which the grounder folds literals by (val). Without a solver it
	// points at noAssign, all zeros and as long as the variables
	// (zeroSink): every literal reads as unassigned, so folding by the
	// assignment needs no test of the mode.
	lazy     *lazyGround
	grd      grounding // lazy, or eagerGround without it (grounding.go)
	assign   *[]z.Value
	noAssign []z.Value
	// limit grounds LIMIT by counting (limit.go), when the kernel has it.
	limit *limitGround

	lab labelRules // what the labels alone decide (labels.go)

	stamp uint32 // marks operations (Op.mark) for one pass

	stop    func() bool // polled during long groundings (Config.Stop)
	stopped bool
	polls   uint32

	hk *hooks // tests' switches (hooks.go); nil outside tests
}

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

// val is the saturator's value of l: +1 true, -1 false, 0 unassigned
// (always, without a saturator: see assign).
func (e *Encoder) val(l Lit) int8 { return int8((*e.assign)[l]) }

type ownedList []ownedVar

// ownedVar names a variable an operation owns, with the variable's epoch
// when it was made, so that a variable forgotten since (and maybe
// recycled) is told apart. What the variable stands for, and for a b,
// used or match variable its key in vars, is read from the registry
// (varReg.meaning) while the epoch matches: eight bytes an entry instead
// of a copy of the key in every owner's list.
type ownedVar struct {
	v     z.Var
	epoch uint32
}

type varKind uint8

const (
	vB varKind = iota
	vUsed
	vMatch
	vRet
	vAux
	vNone // in meaning: forgotten
)

type varKey struct {
	kind varKind
	x, y int
	v    h.Value
	// xo and yo are the operations of x and y when the caller has them
	// (nil: looked up by serial).
	xo, yo *Op
}

// pairKey is the map key of a b, used or match variable: hashing two ints
// is much cheaper than hashing a varKey with its string.
type varPair struct {
	kind varKind
	x, y int32
}

func (k varKey) pair() varPair { return varPair{k.kind, int32(k.x), int32(k.y)} }

// key packs a b, used or match pair into a map key: a uint64 key hashes
// several times faster than the struct, and the lookups are SATURATE's
// hottest path. Serials are below 2³¹.
func (p varPair) key() uint64 {
	return uint64(p.kind)<<62 | uint64(uint32(p.x))<<31 | uint64(uint32(p.y))
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
	e.fo.e = e
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
		e.lazy = newLazy(e, cfg)
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

// Stats reports the encoding's size so far.
func (e *Encoder) Stats() (vars, clauses int) { return e.reg.nvars, e.clause }

// GroundingStats counts the grounding's work so far, for benchmarks.
type GroundingStats struct {
	// Bindings is the candidates bound to a universal variable while
	// enumerating instances.
	Bindings int
	// Watched is the ∀∃ instances SATURATE watched instead of emitting,
	// Materialised those of them that became unit or false.
	Watched, Materialised int
}

// GroundingStats reports the grounding's work so far.
func (e *Encoder) GroundingStats() GroundingStats {
	s := GroundingStats{Bindings: e.enum.bindings}
	e.grd.stats(&s)
	return s
}

// VarName returns the meaning of variable v, when Names is on.
func (e *Encoder) VarName(v z.Var) string { return e.reg.names[v] }

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
		for _, o := range [2]*Op{x, y} {
			if o.pending() {
				e.grd.pendingMatch(o, l)
			}
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

// Literals of the ground atoms; constants where labels and real time decide.

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

// removeOp removes o, which is in l once, from l, keeping the order. It
// looks from the end, where an operation's latest partners are.
func removeOp(l []*Op, o *Op) []*Op {
	for i := len(l) - 1; i >= 0; i-- {
		if l[i] == o {
			copy(l[i:], l[i+1:])
			l[len(l)-1] = nil
			return l[:len(l)-1]
		}
	}
	return l
}

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

// The capacities of recycled lists: powers of two from minListCap to
// maxKeptOwned.
const (
	minListCap  = 4
	listClasses = 7 // 4, 8, …, 256
	maxListCap  = minListCap << (listClasses - 1)
)

// listClass is the class of capacity c, or -1 if c is none.
func listClass(c int) int {
	if c < minListCap || c > maxListCap || c&(c-1) != 0 {
		return -1
	}
	return bits.TrailingZeros(uint(c)) - bits.TrailingZeros(minListCap)
}

// maxKeptLists bounds the recycled return-value tables kept (each of at
// most maxKeptOwned entries): about 3 MB at worst.
const maxKeptLists = 256

// maxKeptListWords bounds the entries of the recycled lists kept in each
// capacity class (512 KB a class): 16,384 lists of 4 down to 256 of 256.
// The pools must absorb the swings of the window: with 256 lists a class,
// an MS queue holding two hundred values gave back more lists than were
// kept when its window shrank, and allocated them again as it grew.
const maxKeptListWords = 1 << 16

// maxKeptOps bounds the recycled operation structs kept (a few hundred
// bytes each), for the same reason.
const maxKeptOps = 4096

// maxOpListCap and maxOpOwnedCap bound the lists a recycled struct keeps
// for its next operation (recycle, keepOwned): with the structs kept, at
// most 5 MB of partner, overlap and order lists and 2 MB of owner lists.
const (
	maxOpListCap  = 32
	maxOpOwnedCap = 64
)

// maxKeptOwned is the most entries of a return-value table kept for
// reuse, and the capacity of the largest partner lists kept; bigger ones
// (an operation that was pending for long) are left to the collector.
const maxKeptOwned = 256

// The capacities of recycled owner lists: powers of two from minOwnedCap
// to minOwnedCap<<(ownedClasses-1) (2,048), at most maxKeptOwnedVars
// entries a class (128 KB). An operation owns about a dozen variables at
// concurrency 8, so most lists never grow.
const (
	minOwnedCap      = 16
	ownedClasses     = 8
	maxKeptOwnedVars = 1 << 14
)

// ownedClass is the class of capacity c, or -1 if c is none.
func ownedClass(c int) int {
	if c < minOwnedCap || c > minOwnedCap<<(ownedClasses-1) || c&(c-1) != 0 {
		return -1
	}
	return bits.TrailingZeros(uint(c)) - bits.TrailingZeros(minOwnedCap)
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

func (e *Encoder) emit1(a Lit) {
	e.scr.pair[0] = a
	e.emit(e.scr.pair[:1])
}

func (e *Encoder) emit2(a, b Lit) {
	// Its own buffer: callers may be building a clause in clauseBuf.
	e.scr.pair = [2]Lit{a, b}
	e.emit(e.scr.pair[:])
}
