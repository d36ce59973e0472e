package valtab

import h "github.com/satmon/satmon/internal/history"

// ID is a value's small integer name in an Interner.
type ID = uint32

// Interner names values by small integers: a value is hashed once, when
// an operation that carries it enters, and the tables of the per-step
// path are then indexed by its ID, and values compared as IDs.
//
// IDs are counted references: Intern takes one, Release gives one back,
// and an ID whose last reference goes is free for the next new value.
// So a live log with unboundedly many distinct values keeps as many IDs
// as values are held, and a holder never sees its ID name another value:
// an ID is reused only once no holder has it any more. Whoever keeps an
// ID in a table must hold a reference for as long as it does.
//
// The values given to NewInterner have the fixed IDs 0, 1, …, in their
// order, and are never freed; Intern and Release count nothing for them.
type Interner struct {
	tab   Table[ID]
	ids   []entry // by ID: one slice, so that a new ID grows one allocation
	free  []ID
	fixed ID
}

// entry is an ID's value, the value's hash (for deleting it) and its
// references.
type entry struct {
	val  h.Value
	hash uint64
	refs int32
}

// Fixed are the values with fixed IDs in an interner made by NewValues:
// VoidID, EmptyID, …, in this order. A pending operation's return value
// is Void, and the others are the values that the encoder, the remover
// and the theory's constants compare with.
var Fixed = [...]h.Value{h.Void, h.Empty, h.True, h.False, h.Null, h.OK, h.Fail}

// The fixed IDs of NewValues.
const (
	VoidID ID = iota
	EmptyID
)

// NewValues returns an interner of history values, with the Fixed values
// at their fixed IDs.
func NewValues() *Interner { return NewInterner(Fixed[:]...) }

// NewInterner returns an interner where fixed[i] has ID i for good.
func NewInterner(fixed ...h.Value) *Interner {
	// As many entries at once as the table has slots at first: a
	// window holds a few dozen values as a rule.
	in := &Interner{ids: make([]entry, 0, 32)}
	for _, v := range fixed {
		if _, ok := in.Lookup(v); ok {
			panic("valtab: fixed value given twice")
		}
		in.Intern(v)
	}
	in.fixed = ID(len(in.ids))
	return in
}

// Intern returns v's ID and takes a reference to it.
func (in *Interner) Intern(v h.Value) ID {
	s := in.tab.Put(v)
	if s.Val == 0 {
		// Slot values are ID+1, so that the zero slot value is "new".
		var id ID
		if n := len(in.free); n > 0 {
			id = in.free[n-1]
			in.free = in.free[:n-1]
			in.ids[id] = entry{val: v, hash: s.Hash()}
		} else {
			id = ID(len(in.ids))
			in.ids = append(in.ids, entry{val: v, hash: s.Hash()})
		}
		s.Val = id + 1
	}
	id := s.Val - 1
	if id >= in.fixed {
		in.ids[id].refs++
	}
	return id
}

// Lookup returns v's ID if v is held, taking no reference.
func (in *Interner) Lookup(v h.Value) (ID, bool) {
	id := in.tab.Get(v)
	return id - 1, id != 0
}

// Hold takes one more reference to id, which must be held.
func (in *Interner) Hold(id ID) {
	if id >= in.fixed {
		in.ids[id].refs++
	}
}

// Release gives back one reference to id; the last one frees it. Small
// enough to be inlined: most IDs given back are fixed ones (Void).
func (in *Interner) Release(id ID) {
	if id >= in.fixed {
		in.release(id)
	}
}

func (in *Interner) release(id ID) {
	e := &in.ids[id]
	if e.refs--; e.refs == 0 {
		in.tab.Delete(e.val, e.hash)
		e.val = ""
		in.free = append(in.free, id)
	}
}

// Value returns the value of id, which must be held.
func (in *Interner) Value(id ID) h.Value { return in.ids[id].val }

// Cap is one more than the largest ID given so far: tables indexed by ID
// need no more entries.
func (in *Interner) Cap() int { return len(in.ids) }

// Held returns the number of IDs held (fixed ones included).
func (in *Interner) Held() int { return len(in.ids) - len(in.free) }
