package encode

import (
	"github.com/satmon/satmon/internal/z"
)

// matcher emits the instances that wait for their match variables, and
// the lazy INJECTIVE and FUNCTION exclusions (SATURATE's), at the end of
// each phase that made match variables (flushMatches). Every encoder has
// one; it grounds through the encoder it belongs to (e).
//
// Its state, and the queries and the queue that lower parts use, are in
// this file, below them: makeVar queues a new match variable (made), the
// grounder and the folder ask whether a match atom is excluded. What it
// does at a flush is in lazymatch.go, above the grounder it emits with.
type matcher struct {
	e *Encoder
	// matchAx are the axioms of ax that wait for match variables
	// (flushMatches), in matchBuf unless there are more.
	matchAx  []*axiom
	matchBuf [8]*axiom
	matchAct []matchAction // what flushMatches does for each (stepAxioms)
	// matchPRC: matchAct is [matchPair, matchExclRow, matchExclCol],
	// which flushPairRowCol writes out (stepAxioms).
	matchPRC bool
	// injective and function: the kernel has INJECTIVE, FUNCTION, and
	// they wait for their match variables.
	injective, function bool
	// newMatches are match variables created since the last
	// flushMatches, whose sanity instances are still to be emitted.
	newMatches []newMatch
}

// newMatch is a match variable v = match(x,y) waiting for flushMatches.
type newMatch struct {
	x, y *Op
	v    Lit
}

// matchAction is what flushMatches does with a new match variable for
// one axiom of matchAx.
type matchAction uint8

const (
	matchGround    matchAction = iota // ground the instances from its match atoms
	matchExclRow                      // lazy INJECTIVE: exclusionMade, as x's
	matchExclCol                      // lazy FUNCTION: exclusionMade, as y's
	matchAtMostRow                    // INJECTIVE: atMostOne over x's partners
	matchAtMostCol                    // FUNCTION: atMostOne over y's candidates
	matchPair                         // lazy MATCH: pairMade
)

// made queues the new match variable m for the next flushMatches.
func (mt *matcher) made(m newMatch) { mt.newMatches = append(mt.newMatches, m) }

// forget drops the queued match variables of operations Remove forgets
// (marked gone). A match variable waiting for flushMatches names its
// operations by pointer, and the struct of a forgotten operation is
// recycled by the next Call: such entries go now (flushMatches would skip
// them, but could not tell a recycled struct from its new operation). The
// entry points flush before they return, so there are normally none.
func (mt *matcher) forget(gone uint32) {
	if len(mt.newMatches) > 0 {
		keep := mt.newMatches[:0]
		for _, m := range mt.newMatches {
			if m.x.mark != gone && m.y.mark != gone {
				keep = append(keep, m)
			}
		}
		mt.newMatches = keep
	}
}

// waiting reports whether match variable v is still to be flushed.
func (mt *matcher) waiting(v Lit) bool {
	for _, m := range mt.newMatches {
		if m.v == v {
			return true
		}
	}
	return false
}

// excluded reports, in SATURATE, whether match(x,y), which has no
// variable yet, would be false as soon as it had one: x's row (INJECTIVE)
// or y's column (FUNCTION, for a partner of x's value) has a true match
// variable, and exclusionMade would emit the unit ¬match(x,y) at its
// flush. A witness whose match atom is excluded is left out before it is
// folded (see witnesses), like one that real time falsifies.
func (mt *matcher) excluded(x, y *Op) bool {
	e := mt.e
	return e.lazy != nil && (mt.injective && mt.excludes(x.trueAsX, x, y, true) ||
		mt.function && mt.excludes(y.trueAsY, x, y, false))
}

// excludes reports whether t, a variable remembered as x's row's (row)
// or y's column's true match, makes match(x,y) false: t is true and still
// a match variable of that row or column other than (x,y) — it may have
// been forgotten with its other operation and its index reused — and, in
// a column with values tied, of x's value (FUNCTION across values is
// implied; see functionCands).
func (mt *matcher) excludes(t Lit, x, y *Op, row bool) bool {
	e := mt.e
	if t == z.LitNull || e.val(t) != 1 {
		return false
	}
	tm := e.reg.meaning[t.Var()]
	if tm.kind != vMatch {
		return false
	}
	if row {
		return int(tm.x) == x.Serial && int(tm.y) != y.Serial
	}
	return int(tm.y) == y.Serial && int(tm.x) != x.Serial &&
		(!e.valueTied || e.reg.varOps[t.Var()][0].Label.Arg == x.Label.Arg)
}
