package encode

import (
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
)

// varReg owns what the encoder knows of its variables: the b, used and
// match variables by pair, what each variable stands for and which
// operations it belongs to, the epoch in which it was last made, its
// name, and whether a unit clause fixed it.
type varReg struct {
	vars  varTable         // b, used and match variables, by varPair.key
	names map[z.Var]string // filled when Encoder.Names is on
	nvars int
	// meaning[v] says what variable v stands for, for the lazy
	// transitivity, which learns of assignments by variable; varOps[v]
	// are its operations (x, and y for b and match), so that no table
	// is looked up by serial.
	meaning []varMeaning
	varOps  [][2]*Op
	epoch   []uint32 // indexed by variable
	// units[v] is +1 or -1 once a unit clause fixing variable v was
	// emitted (limit.go reads it), else 0.
	units []int8
	// owners[v] lists the serials that own variable v, when trackOwners
	// is on (TrackOwners).
	owners      [][]int32
	trackOwners bool
}

// varMeaning is what a variable stands for: its pair, and for a return
// variable ret(x) = ret its value, so that the value is compared with an
// argument instead of looked up in x.rets (pairClauses). It shares the
// slice of the pairs: a slice of its own would add allocations to every
// fresh encoder.
type varMeaning struct {
	varPair
	ret h.Value
}

// made records the new variable v, an auxiliary until define says more.
func (r *varReg) made(v z.Var) {
	for int(v) >= len(r.epoch) {
		r.epoch = append(r.epoch, 0)
		r.meaning = append(r.meaning, varMeaning{varPair: varPair{kind: vNone}})
		r.varOps = append(r.varOps, [2]*Op{})
		r.units = append(r.units, 0)
	}
	r.meaning[v] = varMeaning{varPair: varPair{kind: vAux}}
	r.varOps[v] = [2]*Op{}
	r.nvars++
}

// name records v's name.
func (r *varReg) name(v z.Var, name string) {
	if r.names == nil {
		r.names = map[z.Var]string{}
	}
	r.names[v] = name
}

// define records that v, just made, is the variable of k; the b, used
// and match variables are then found by their pair.
func (r *varReg) define(v z.Var, k varKey) {
	if k.kind != vRet {
		r.meaning[v] = varMeaning{varPair: k.pair()}
		r.vars.put(k.pair().key(), v.Pos())
	} else {
		r.meaning[v] = varMeaning{varPair: k.pair(), ret: k.v}
	}
}

// setOps records the operations of v (x, and y for b and match).
func (r *varReg) setOps(v z.Var, x, y *Op) { r.varOps[v] = [2]*Op{x, y} }

// addOwner records that the operation serial owns v (TrackOwners).
func (r *varReg) addOwner(v z.Var, serial int) {
	for int(v) >= len(r.owners) {
		r.owners = append(r.owners, nil)
	}
	r.owners[v] = append(r.owners[v], int32(serial))
}

// fix records that a unit clause fixed v, to true when s is +1.
func (r *varReg) fix(v z.Var, s int8) {
	if int(v) < len(r.units) {
		r.units[v] = s
	}
}

// forget forgets the variable of ov, if it is still the one ov owned,
// and says whether it was: a variable forgotten once may since have been
// recycled for another owner.
func (r *varReg) forget(ov ownedVar) bool {
	if r.epoch[ov.v] != ov.epoch {
		return false
	}
	r.epoch[ov.v]++
	r.meaning[ov.v] = varMeaning{varPair: varPair{kind: vNone}}
	r.varOps[ov.v] = [2]*Op{}
	r.units[ov.v] = 0
	if ov.pair {
		r.vars.del(ov.key)
	}
	return true
}
