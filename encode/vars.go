package encode

import "github.com/satmon/satmon/internal/z"

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
	meaning []varPair
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
