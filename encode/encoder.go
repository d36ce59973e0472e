package encode

import (
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

// The Encoder struct is declared here, below every part: it is the
// wiring (the parts, each a field, reach one another through it) and the
// state they share (the kernel, the sink, the assignment, the choices
// fixed at New). The files of encode/ refer only to files below them
// (TestFileLayers, docs/encoding.md "The encoder's layout"); New, the
// entry points and the accessors are at the top (encode.go, step.go).

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
	match matcher      // the instances that wait for match variables (matchstate.go, lazymatch.go)
	ptn   partnerLists // which operations may match which (partners.go)
	enum  enumerator   // the tuples of the axioms' instances (compiled.go, instances.go)
	gr    grounder     // one instance: its witnesses and clauses (origin.go, leaf.go)
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
	// lazyGround.called): the next Assigned acts on their used facts as on
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
	grd      grounding // lazy, or eagerGround without it (grounding.go, eager.go)
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

// val is the saturator's value of l: +1 true, -1 false, 0 unassigned
// (always, without a saturator: see assign).
func (e *Encoder) val(l Lit) int8 { return int8((*e.assign)[l]) }
