package encode

import (
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
)

// scratch holds the buffers the encoder's entry points reuse from call to
// call so that a steady window allocates nothing. No state outlives the
// entry point that fills them, except Remove's result, which is valid
// until the next Remove.
type scratch struct {
	env []*Op // the assignment of the instance being enumerated
	cur []*Op // the operations of the instance being emitted
	// stack holds the clauses being built by assert (nested: a Tseitin
	// helper's clauses are built above its parent's); emitted clauses
	// are copied by the sink.
	stack     []Lit
	clauseBuf []Lit
	parts     []*node // leaf's disjuncts
	inst      instState
	nodes     nodes // arena for the formulas being grounded
	// The template's buffers (compiled.go): the parts of an instance's
	// disjunction (folded in place), the literals of its witnesses, and
	// the clause.
	cparts    []cpart
	conj      []Lit
	cclause   []Lit
	retUnits  []Lit    // Return's unit clauses
	retSides  []Lit    // retTrue's side clauses' other variables
	cycle     [6]Lit   // checkCycle's clause
	pair      [2]Lit   // emit2's clause
	byTri     [3][]*Op // usedAssigned's scratch
	pbuf      []*Op    // the lists partnersX and partnersY build
	opScratch []*Op    // returnPartners' and pairClauses' scratch
	forget    []z.Var  // Remove's result, reused from call to call
	// quickHits and exclHits count the candidates crec's quickHolds and
	// witnessesX's rowExcluded passed over (for the tests).
	quickHits, exclHits int
	// quickJumps counts the runs quickTail passed over at once (tests).
	quickJumps int
	// quickEpoch stamps the operations' quickRun memos (compiled.go);
	// bumped when a premise of one may have broken.
	quickEpoch uint32
	quickMemos bool
}

// A part of the instance's disjunction, as cleaf gathers it: a literal
// (n = 0) or the conjunction e.conj[at:at+n] of a witness.
type cpart struct {
	lit   Lit
	at, n int32
}

// instState is one run of instances: a struct kept in the encoder rather
// than a recursive closure, which was allocated at every call.
type instState struct {
	a          *axiom
	must       *Op
	closed     bool
	extra      []Lit
	win        []*Op
	nf, fixed  int
	one        [1]*Op
	pl         *plan
	ante, rest []*node // folded atoms of the variables bound so far
	// The template's (compiled.go): its levels for pl, and the literals
	// of the checks folded so far.
	clv          []clevel
	lante, lrest [maxChecks]Lit
	na, nr       int
	// witLits are the literals knownWit found for the witness's atoms,
	// witVals their values.
	witLits [maxWit]Lit
	witVals [maxWit]tri
	// held are knownWit's findings for the first nheld stored partners
	// that cwitnessHolds looked at (heldRes the results), which the
	// witnesses of the same instance take rather than look them up
	// again (see cwitnessHolds).
	nheld    int
	heldLits [maxHeld][maxWit]Lit
	heldVals [maxHeld][maxWit]tri
	heldRes  [maxHeld]tri
	// truePart: cwitness found a witness of the instance true.
	truePart bool
	// feedMeth[sides] is feedMethod's for clevel.feedSides sides, set
	// once per encoder (methsSet), as the kernel's MATCH decides it.
	feedMeth [4]h.Method
	methsSet bool
	// clauseAt is the encoder's clause count when the first level was
	// bound: the checks' literals were settled since, and are current
	// while no clause has been emitted (see cleaf).
	clauseAt int
}

// node is a ground formula after constant folding: a constant, a literal,
// or a conjunction/disjunction. Negation is pushed to the literals.
type node struct {
	kind nodeKind
	lit  Lit
	args []*node
}

type nodeKind uint8

const (
	nFalse nodeKind = iota
	nTrue
	nLit
	nAnd
	nOr
)

var (
	falseNode = &node{kind: nFalse}
	trueNode  = &node{kind: nTrue}
)

// nodes is an arena for the nodes of one grounding step: they live only
// until their clauses are emitted, and allocating each on the heap was a
// fifth of SATURATE's time. Chunks are never moved, so pointers into them
// stay valid; reset makes them reusable at the next entry point.
type nodes struct {
	chunks [][]node
	ci, cj int
	args   [][]*node // likewise for argument lists
	ai, aj int
}

const chunkSize = 1024

func (a *nodes) reset() { a.ci, a.cj, a.ai, a.aj = 0, 0, 0, 0 }

func (a *nodes) new(kind nodeKind, lit Lit, args []*node) *node {
	if a.ci == len(a.chunks) {
		a.chunks = append(a.chunks, make([]node, chunkSize))
	}
	n := &a.chunks[a.ci][a.cj]
	*n = node{kind: kind, lit: lit, args: args}
	if a.cj++; a.cj == chunkSize {
		a.ci, a.cj = a.ci+1, 0
	}
	return n
}

// list returns an empty argument list with room for n.
func (a *nodes) list(n int) []*node {
	if n > chunkSize/4 {
		return make([]*node, 0, n)
	}
	for {
		if a.ai == len(a.args) {
			a.args = append(a.args, make([]*node, chunkSize))
		}
		if a.aj+n <= chunkSize {
			l := a.args[a.ai][a.aj : a.aj : a.aj+n]
			a.aj += n
			return l
		}
		a.ai, a.aj = a.ai+1, 0
	}
}
