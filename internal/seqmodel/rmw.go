package seqmodel

import (
	"strings"

	"github.com/satmon/satmon/internal/history"
)

// casRegister is the compare-and-set register: absent until the first
// write or successful cas (a read then returns nil), unless the history
// gives an initial value.
type casRegister struct {
	val     history.Value
	present bool
}

func (r *casRegister) Clone() Model                  { c := *r; return &c }
func (r *casRegister) Steps(l history.Label) []Model { return deterministic(r, l) }

// current is the value a read returns: nil while absent.
func (r *casRegister) current() history.Value {
	if !r.present {
		return history.Nil
	}
	return r.val
}

func (r *casRegister) Step(l history.Label) bool {
	if l.Pending {
		return false
	}
	switch l.Method {
	case history.Write:
		if l.Ret != history.Void {
			return false
		}
		r.set(l.Arg)
		return true
	case history.Read:
		return l.Ret == r.current()
	case history.CAS:
		found := r.current() == l.Old
		switch {
		case l.Ret == history.OK && found:
			r.set(l.Arg)
			return true
		case l.Ret == history.Fail && !found:
			return true
		}
	}
	return false
}

// set stores v; writing nil makes the register absent again.
func (r *casRegister) set(v history.Value) {
	r.val, r.present = v, v != history.Nil
}

// stringRegister holds a string, empty at first: put replaces it, append
// extends it, get returns it (Void is the empty string).
type stringRegister struct {
	s strings.Builder
}

func (r *stringRegister) Clone() Model {
	c := &stringRegister{}
	c.s.WriteString(r.s.String())
	return c
}

func (r *stringRegister) Steps(l history.Label) []Model { return deterministic(r, l) }

func (r *stringRegister) Step(l history.Label) bool {
	if l.Pending {
		return false
	}
	switch l.Method {
	case history.Write:
		if l.Ret != history.Void {
			return false
		}
		r.s.Reset()
		r.s.WriteString(string(l.Arg))
		return true
	case history.Append:
		if l.Ret != history.Void {
			return false
		}
		r.s.WriteString(string(l.Arg))
		return true
	case history.Read:
		return string(l.Ret) == r.s.String()
	}
	return false
}
