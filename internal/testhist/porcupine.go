package testhist

import (
	"hash/maphash"
	"math"
	"slices"

	"github.com/anishathalye/porcupine"
	h "github.com/satmon/satmon/internal/history"
)

// Porcupine (github.com/anishathalye/porcupine) is a general
// linearizability checker: a depth-first search over linearizations with a
// cache of (linearized set, state) pairs. It serves twice here: as a
// second exact oracle, independent of the theory and of ENUMERATE, and as
// the yardstick for SATURATE -r's speed on the paper's long Michael–Scott
// queue logs. It is a test-only dependency.
//
// Its models are written for its search: values are interned to int32
// once, states are small immutable slices (a step copies, so that states
// on the search stack are never shared), and every model has a Hash so
// that the cache compares few states. The priority queue keeps its
// multiset sorted, so that equal states are equal slices. The set is
// partitioned per element (a set is the product of independent per-element
// booleans), so each partition's state is one bool.

// Interned special values. Real values are interned to 0, 1, 2, ...
const (
	pEmpty int32 = -1
	pVoid  int32 = -2
	pTrue  int32 = -3
	pFalse int32 = -4
	pNone  int32 = -5 // the register before its first write, when it has no initial value
	pOK    int32 = -6
	pFail  int32 = -7
)

// pOp is an operation as a Porcupine model sees it: its Input. The output
// travels in the input too (Output is unused) because a pending operation
// has none and may return anything.
type pOp struct {
	method  h.Method
	arg     int32
	old     int32 // cas(old, arg)
	prio    int64
	ret     int32
	pending bool
	// The string register's argument and return, as strings.
	str, retStr string
}

// pItem is one element of a collection state.
type pItem struct {
	val  int32
	prio int64
}

var pSeed = maphash.MakeSeed()

func hashItems(s []pItem) uint64 {
	var m maphash.Hash
	m.SetSeed(pSeed)
	var b [12]byte
	for _, it := range s {
		u := uint32(it.val)
		p := uint64(it.prio)
		b = [12]byte{byte(u), byte(u >> 8), byte(u >> 16), byte(u >> 24),
			byte(p), byte(p >> 8), byte(p >> 16), byte(p >> 24), byte(p >> 32), byte(p >> 40), byte(p >> 48), byte(p >> 56)}
		m.Write(b[:])
	}
	return m.Sum64()
}

// collectionModel is the queue, stack or priority queue. A removal that is
// pending may take any element the object would hand out, or find it
// empty; Porcupine places it anywhere after its call, last included, so
// leaving its result open is exactly "it may or may not have taken effect".
func collectionModel(obj h.Object) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return []pItem(nil) },
		Step: func(state, input, _ any) (bool, any) {
			s := state.([]pItem)
			o := input.(*pOp)
			switch o.method {
			case h.Add:
				if !o.pending && o.ret != pVoid {
					return false, nil
				}
				n := make([]pItem, len(s)+1)
				copy(n, s)
				n[len(s)] = pItem{o.arg, o.prio}
				if obj == h.PQueue {
					slices.SortFunc(n, cmpItem)
				}
				return true, n
			case h.Rem:
				if len(s) == 0 {
					return o.pending || o.ret == pEmpty, s
				}
				i := -1
				switch obj {
				case h.Queue:
					i = 0
				case h.Stack:
					i = len(s) - 1
				case h.PQueue:
					// Sorted by priority, then value: the top priority
					// is at the end; the removal takes an element of its
					// value among them, if any. (A pending removal could
					// take any of them: several successors, which this
					// deterministic model does not express, so
					// PorcupineSupports leaves such histories out.)
					top := s[len(s)-1].prio
					for j := len(s) - 1; j >= 0 && s[j].prio == top; j-- {
						if s[j].val == o.ret {
							i = j
							break
						}
					}
				}
				if i < 0 || !o.pending && s[i].val != o.ret {
					return false, nil
				}
				return true, slices.Delete(slices.Clone(s), i, i+1)
			}
			return false, nil
		},
		Equal: func(a, b any) bool { return slices.Equal(a.([]pItem), b.([]pItem)) },
		Hash:  func(state any) uint64 { return hashItems(state.([]pItem)) },
	}
}

func cmpItem(a, b pItem) int {
	if a.prio != b.prio {
		if a.prio < b.prio {
			return -1
		}
		return 1
	}
	return int(a.val) - int(b.val)
}

// registerModel is the read/write register; state is the interned value.
func registerModel(initial int32) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return initial },
		Step: func(state, input, _ any) (bool, any) {
			v := state.(int32)
			o := input.(*pOp)
			switch o.method {
			case h.Write:
				return o.pending || o.ret == pVoid, o.arg
			case h.Read:
				return o.pending || v != pNone && o.ret == v, v
			}
			return false, nil
		},
		Hash: func(state any) uint64 { return uint64(uint32(state.(int32))) },
	}
}

// casRegisterModel is the compare-and-set register; state is the
// interned value, the interned nil while absent. A cas succeeds iff it
// finds its old value; a pending operation returns anything, but its
// effect, when it is placed, is the atomic one.
func casRegisterModel(initial int32) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return initial },
		Step: func(state, input, _ any) (bool, any) {
			v := state.(int32)
			o := input.(*pOp)
			switch o.method {
			case h.Write:
				return o.pending || o.ret == pVoid, o.arg
			case h.Read:
				return o.pending || o.ret == v, v
			case h.CAS:
				if v == o.old {
					return o.pending || o.ret == pOK, o.arg
				}
				return o.pending || o.ret == pFail, v
			}
			return false, nil
		},
		Hash: func(state any) uint64 { return uint64(uint32(state.(int32))) },
	}
}

// stringRegisterModel is the string register (a key of a key-value
// store); state is the string itself, "" when empty.
func stringRegisterModel() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return "" },
		Step: func(state, input, _ any) (bool, any) {
			v := state.(string)
			o := input.(*pOp)
			switch o.method {
			case h.Write:
				return o.pending || o.ret == pVoid, o.str
			case h.Append:
				return o.pending || o.ret == pVoid, v + o.str
			case h.Read:
				return o.pending || o.retStr == v, v
			}
			return false, nil
		},
		Hash: func(state any) uint64 {
			var m maphash.Hash
			m.SetSeed(pSeed)
			m.WriteString(state.(string))
			return m.Sum64()
		},
	}
}

// setModel is the set, partitioned by element: state is whether the
// element is present.
func setModel() porcupine.Model {
	return porcupine.Model{
		Partition: func(ops []porcupine.Operation) [][]porcupine.Operation {
			by := map[int32][]porcupine.Operation{}
			var keys []int32
			for _, op := range ops {
				k := op.Input.(*pOp).arg
				if _, ok := by[k]; !ok {
					keys = append(keys, k)
				}
				by[k] = append(by[k], op)
			}
			out := make([][]porcupine.Operation, 0, len(keys))
			for _, k := range keys {
				out = append(out, by[k])
			}
			return out
		},
		Init: func() any { return false },
		Step: func(state, input, _ any) (bool, any) {
			in := state.(bool)
			o := input.(*pOp)
			if !o.pending && o.ret != pTrue && o.ret != pFalse {
				return false, nil
			}
			ok := func(want bool) bool { return o.pending || (o.ret == pTrue) == want }
			switch o.method {
			case h.Add:
				return ok(!in), true
			case h.Rem:
				return ok(in), false
			case h.Contains:
				return ok(in), in
			}
			return false, nil
		},
		Hash: func(state any) uint64 {
			if state.(bool) {
				return 1
			}
			return 0
		},
	}
}

// PorcupineSupports reports whether ToPorcupine models hist: the objects
// above, without pending priority-queue removals (their several successor
// states would need a nondeterministic model).
func PorcupineSupports(hist *h.History) bool {
	switch hist.Object {
	case h.Queue, h.Stack, h.Register, h.Set, h.CASRegister, h.StringRegister:
		return true
	case h.PQueue:
		for i := range hist.Ops {
			if o := &hist.Ops[i]; o.Pending() && o.Label.Method == h.Rem {
				return false
			}
		}
		return true
	}
	return false
}

// ToPorcupine converts hist to Porcupine's operations and model. Call and
// Return are the actions' positions, which are distinct, so Porcupine's
// closed intervals order operations exactly as real time does; a pending
// operation returns at +∞.
func ToPorcupine(hist *h.History) (porcupine.Model, []porcupine.Operation) {
	ids := map[h.Value]int32{h.Empty: pEmpty, h.Void: pVoid}
	switch hist.Object {
	case h.Set:
		ids[h.True], ids[h.False] = pTrue, pFalse
	case h.CASRegister:
		ids[h.OK], ids[h.Fail] = pOK, pFail
	}
	intern := func(v h.Value) int32 {
		id, ok := ids[v]
		if !ok {
			id = int32(len(ids))
			ids[v] = id
		}
		return id
	}
	ops := make([]porcupine.Operation, len(hist.Ops))
	in := make([]pOp, len(hist.Ops))
	for i := range hist.Ops {
		o := &hist.Ops[i]
		l := o.Label
		in[i] = pOp{method: l.Method, arg: intern(l.Arg), prio: l.Prio, pending: o.Pending() || l.Pending,
			str: string(l.Arg)}
		if l.Method == h.CAS {
			in[i].old = intern(l.Old)
		}
		if !in[i].pending {
			in[i].ret = intern(l.Ret)
			in[i].retStr = string(l.Ret)
		}
		ret := int64(math.MaxInt64)
		if !o.Pending() {
			ret = int64(o.Return)
		}
		ops[i] = porcupine.Operation{Input: &in[i], Call: int64(o.Call), Return: ret}
	}
	var model porcupine.Model
	switch hist.Object {
	case h.Register:
		initial := pNone
		if hist.Param != "" {
			initial = intern(h.Value(hist.Param))
		}
		model = registerModel(initial)
	case h.CASRegister:
		initial := intern(h.Nil)
		if hist.Param != "" {
			initial = intern(h.Value(hist.Param))
		}
		model = casRegisterModel(initial)
	case h.StringRegister:
		model = stringRegisterModel()
	case h.Set:
		model = setModel()
	default:
		model = collectionModel(hist.Object)
	}
	return model, ops
}

func PorcupineLinearizable(hist *h.History) bool {
	model, ops := ToPorcupine(hist)
	return porcupine.CheckOperations(model, ops)
}
