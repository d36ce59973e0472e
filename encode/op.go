package encode

import (
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/valtab"
	"github.com/satmon/satmon/internal/z"
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

type tri uint8

const (
	vUnknown tri = iota
	vFalse
	vTrue
)

func triOf(b bool) tri {
	if b {
		return vTrue
	}
	return vFalse
}

// quickRun is a run of consecutive operations of one method's list
// (opTable.opsOf), from its holder to the one with serial end, each
// settled: returned, with a true match variable l = x.trueAsX that
// still names (x,y) for a returned y. The times bound the run's: the
// latest y return and earliest y call, the latest return and earliest
// call of the operations themselves.
//
// Why a run once settled stays settled, for every later instance, while
// its epoch (quickEpoch) lasts:
//   - a true fact stays true (the saturator never retracts one), and y,
//     once returned, stays returned;
//   - match(x,y) keeps its variable while both x and y live: only
//     forgetting one of them frees it. x forgotten leaves the list;
//     y forgotten while x lives drops every run (quickForgotten);
//   - the method list only loses operations (forgetting) or gains them
//     at its end (a call gets the next serial): the live operations
//     with serials from the holder's to end are a subset of the run, so
//     the run's times still bound theirs; a holder forgotten hands the
//     run to the next live operation in it (quickForgotten);
//   - a pending operation is never in a run (it ends one), so no
//     operation's own times change inside a run.
//
// What does depend on the instance, the order atoms of quickHolds (the
// witness's b(y,u) or b(u,y) and the level's checks) over the operations
// the earlier levels bind, runPasses decides for the whole run from its
// times, and only when real time decides every one of them the way
// quickHolds would pass it: so each operation passed over by a run
// would be passed over by quickHolds.
type quickRun struct {
	start, end  int // holder's serial + 1 (0: none), last serial
	yRet, yCall int
	ret, call   int
}

func (r *quickRun) add(o, y *Op) {
	r.end = o.Serial
	r.yRet, r.yCall = max(r.yRet, y.Return), min(r.yCall, y.Call)
	r.ret, r.call = max(r.ret, o.Return), min(r.call, o.Call)
}

func (r *quickRun) merge(q *quickRun) {
	r.end = max(r.end, q.end)
	r.yRet, r.yCall = max(r.yRet, q.yRet), min(r.yCall, q.yCall)
	r.ret, r.call = max(r.ret, q.ret), min(r.call, q.call)
}

// limitState is LIMIT's counter for one acquire x.
type limitState struct {
	n     int   // capacity
	k     int   // inputs allowed true beyond those known true; < 0: violated unless the guard holds
	regs  []Lit // regs[j-1]: at least j of the inputs so far are true (j ≤ k)
	guard []Lit // ¬used(x) while x is pending, and self(x) for n > 1
	dead  bool  // the guard holds for good: nothing to count
	extra []Lit // activation literals added to every clause
}

// retVars are the ret(o) = v variables of a pending operation o, in the
// order they were made. Most pending operations see few values: a short
// list searched linearly needs no hashing of the value and no map per
// operation. An operation that stays pending for long (a stalled one
// overlaps the whole window) can see hundreds, so from retIndexAt
// variables on an index by value (a map) is kept besides the list, and
// look-ups use it; the list stays for the walks (retTrue, Return), which
// cost less over a slice than over a map.
type retVars struct {
	vs  []retVar
	idx map[h.Value]Lit // nil until len(vs) reaches retIndexAt
}

// retVar is one ret(o) = v variable.
type retVar struct {
	v h.Value
	l Lit
}

// retIndexAt is the number of variables from which look-ups go through
// the map: below it a linear scan of the list costs less than hashing.
const retIndexAt = 8

// memoMethods bounds the methods whose facts are memoized per method;
// every object's methods are below it.
const memoMethods = 16
