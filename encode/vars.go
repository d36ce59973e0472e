package encode

import (
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
)

// varReg owns what the encoder knows of its variables: the b and match
// variables by pair, what each variable stands for and which
// operations it belongs to, the epoch in which it was last made, its
// name, and whether a unit clause fixed it.
type varReg struct {
	vars  varTable         // b and match variables, by varPair.key
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

// made records the new variable v, an auxiliary.
func (r *varReg) made(v z.Var) {
	r.grow(v)
	r.meaning[v] = varMeaning{varPair: varPair{kind: vAux}}
	r.varOps[v] = [2]*Op{}
	r.nvars++
}

// grow makes room for variable v in the tables indexed by variable.
func (r *varReg) grow(v z.Var) {
	for int(v) >= len(r.epoch) {
		if len(r.epoch) == cap(r.epoch) {
			r.room(v)
		}
		r.epoch = append(r.epoch, 0)
		r.meaning = append(r.meaning, varMeaning{varPair: varPair{kind: vNone}})
		r.varOps = append(r.varOps, [2]*Op{})
		r.units = append(r.units, 0)
	}
}

// room makes room in the tables for v at once, twice what is needed
// (see room): appended to one by one, they grew at every new largest
// variable.
//
//go:noinline
func (r *varReg) room(v z.Var) {
	n := int(v) + 1 - len(r.epoch)
	r.epoch, r.meaning = room(r.epoch, n), room(r.meaning, n)
	r.varOps, r.units = room(r.varOps, n), room(r.units, n)
}

// makeDefined records the new variable v as the variable of k, whose
// operations are x and y (nil but for b and match): what it stands for
// and its operations are written once, and the b, used and match
// variables are found by their pair from now on. Only a return
// variable's value is written: ret is read for return variables alone
// (pairClauses), so another kind leaves whatever an earlier variable of
// the index left there, as forgetOwned does. The operations are written
// first, so that nothing lives across the call of put, which would
// otherwise save and reload them around it.
func (r *varReg) makeDefined(v z.Var, k *varKey, x, y *Op) {
	if int(v) >= len(r.epoch) {
		r.grow(v)
	}
	r.varOps[v], r.nvars = [2]*Op{x, y}, r.nvars+1
	switch p := (varPair{k.kind, int32(k.x), int32(k.y)}); k.kind {
	case vB, vMatch:
		r.meaning[v].varPair = p
		r.vars.put(p.key(), v.Pos())
	case vRet:
		r.meaning[v] = varMeaning{varPair: p, ret: k.v}
	default:
		// used(x) is not in vars: it is kept in x.usedVar (used), and
		// nothing looks it up by its pair.
		r.meaning[v].varPair = p
	}
}

// ownedOf is the entry of v, just made, in its owners' lists.
func (r *varReg) ownedOf(v z.Var) ownedVar { return ownedVar{v: v, epoch: r.epoch[v]} }

// liveKind is the kind of ov's variable, or vNone if it was forgotten
// (and maybe recycled) since ov was made.
func (r *varReg) liveKind(ov ownedVar) varKind {
	if r.epoch[ov.v] != ov.epoch {
		return vNone
	}
	return r.meaning[ov.v].kind
}

// name records v's name.
func (r *varReg) name(v z.Var, name string) {
	if r.names == nil {
		r.names = map[z.Var]string{}
	}
	r.names[v] = name
}

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

// forgetOwned forgets the variables of owned, an owner list, that are
// still the ones it owns, appends them to out and returns it: a variable
// forgotten once (by its other operation, or earlier) may since have
// been recycled for another owner. A b or match variable leaves vars
// under the key its meaning gives (a match variable that ruleOut took
// out already is simply not found there). It is Remove's inner loop,
// with the tables in locals; units is cut to epoch's length (the tables
// indexed by variable have one length, grow), so that it needs no bounds
// check of its own after epoch's.
func (r *varReg) forgetOwned(owned ownedList, out []z.Var) []z.Var {
	epoch, units := r.epoch, r.units[:len(r.epoch)]
	from := len(out)
	for _, ov := range owned {
		if v := ov.v; epoch[v] == ov.epoch {
			epoch[v]++
			units[v] = 0
			out = append(out, v)
		}
	}
	// What they stood for, in a loop of its own: the calls that take b
	// and match variables out of vars would otherwise make the first loop
	// save and reload its registers around them.
	for _, v := range out[from:] {
		m := &r.meaning[v]
		if k := m.kind; k == vB || k == vMatch {
			r.vars.del(m.varPair.key())
		}
		// Only the kind is reset, and varOps[v] is left as it is: every
		// reader reads the rest only for a variable whose kind (or epoch)
		// says it is live, and the next variable to get the index
		// overwrites them all (made, makeDefined).
		m.kind = vNone
	}
	return out
}

// unit records that the unit clause l was emitted.
func (r *varReg) unit(l Lit) {
	v, s := l.Var(), int8(1)
	if l.IsNeg() {
		s = -1
	}
	r.fix(v, s)
}

// bExisting is b(x,y) for an overlapping pair, if its variable exists.
func (r *varReg) bExisting(x, y *Op) (Lit, bool) {
	if x.Serial < y.Serial {
		v, ok := r.vars.get(varPair{vB, int32(x.Serial), int32(y.Serial)}.key())
		return v, ok
	}
	v, ok := r.vars.get(varPair{vB, int32(y.Serial), int32(x.Serial)}.key())
	if !ok {
		return z.LitNull, false
	}
	return v.Not(), true
}
