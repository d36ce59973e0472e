package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	h "github.com/satmon/satmon/internal/history"
)

// Operation is one operation of a timestamped history, as a test harness
// records it (the shape of Porcupine's Operation).
//
// Call and Return are instants on any int64 clock that never goes back,
// for example time.Now().UnixNano() or a shared atomic counter. Operation
// a precedes operation b in real time iff a.Return < b.Call; operations
// whose intervals touch (a.Return == b.Call) overlap, so a clock too coarse
// to separate two instants makes the check weaker, never wrong.
type Operation struct {
	ClientID int     // who ran the operation (a thread, a client); only named in messages
	Label    h.Label // method, argument (and priority), result; Label.Pending marks an operation that never returned
	Call     int64   // when the operation was called
	Return   int64   // when it returned; ignored when Label.Pending
}

// Check checks a timestamped history of obj with DefaultOptions, as
// Porcupine's CheckOperations does. The Result's ViolationOp is the index
// in ops of the operation whose return proved the violation. With the
// default (SATURATE), an OK verdict means no violation was found
// (Result.Exact is false); use CheckOperations with Symbolic for a proof.
// An ill-formed operation (a label that does not fit obj, a return before
// its call) is an error. When ctx is done first, the verdict is Timeout.
func Check(ctx context.Context, obj h.Object, ops []Operation) (Result, error) {
	return CheckOperations(ctx, obj, "", ops, Options{})
}

// CheckOperations is Check with the object's parameter (see ValidateParam)
// and a chosen variant.
func CheckOperations(ctx context.Context, obj h.Object, param string, ops []Operation, opt Options) (Result, error) {
	fail := func(m *Monitor, err error) (Result, error) {
		r := Result{Object: obj.String(), Algorithm: opt.Name(), Exact: opt.Exact()}
		if m != nil {
			r = m.Result()
		}
		r.Verdict, r.Error = Error, err.Error()
		return r, err
	}
	m, err := NewContext(ctx, obj, param, opt)
	if err != nil {
		return fail(nil, err)
	}
	m.Finite()
	type event struct {
		t    int64
		op   int
		kind h.Kind
	}
	evs := make([]event, 0, 2*len(ops))
	for i, o := range ops {
		evs = append(evs, event{t: o.Call, op: i, kind: h.Call})
		if !o.Label.Pending {
			if o.Return < o.Call {
				return fail(m, fmt.Errorf("operation %d (client %d): returns at %d, before its call at %d", i, o.ClientID, o.Return, o.Call))
			}
			evs = append(evs, event{t: o.Return, op: i, kind: h.Return})
		}
	}
	// At equal times calls come first: touching intervals overlap.
	slices.SortStableFunc(evs, func(a, b event) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.kind, b.kind)
	})
	for _, e := range evs {
		o := ops[e.op]
		id := strconv.Itoa(e.op)
		if e.kind == h.Call {
			err = m.Call(id, o.Label)
		} else {
			_, err = m.Return(id, o.Label.Ret)
		}
		if err != nil {
			return fail(m, fmt.Errorf("operation %d (client %d, %v): %w", e.op, o.ClientID, o.Label, err))
		}
		if m.Done() {
			break
		}
	}
	if _, err := m.End(); err != nil {
		return fail(m, err)
	}
	return m.Result(), nil
}

// ValidateParam reports whether param is a valid parameter of obj: a
// positive integer (the capacity) or "" (capacity 1) for a semaphore, any
// single value (the initial value) or "" for a register, and "" for every
// other object.
func ValidateParam(obj h.Object, param string) error {
	if len(h.Signatures(obj)) == 0 {
		return fmt.Errorf("unknown object %v", obj)
	}
	if param == "" {
		return nil
	}
	switch obj {
	case h.Semaphore:
		if n, err := strconv.Atoi(param); err != nil || n <= 0 {
			return fmt.Errorf("the capacity of %v must be a positive integer, got %q", obj, param)
		}
	case h.Register, h.CASRegister:
		if strings.ContainsAny(param, " \t\r\n#()[],") {
			return fmt.Errorf("the initial value of %v must be a single value, got %q", obj, param)
		}
	default:
		return fmt.Errorf("%v takes no parameter, got %q", obj, param)
	}
	return nil
}

// validate checks an action against the object's signature: the method
// is one of the object's, the argument is there when needed, and a return
// value has the method's form (nothing, true/false, one value, or an
// optional tag).
func (m *Monitor) validate(a *h.Action) (serial int, err error) {
	obj := m.win.obj
	switch a.Kind {
	case h.Call:
		if a.ID == "" {
			return 0, fmt.Errorf("empty operation id")
		}
		l := &a.Label
		sig := m.signature(l.Method)
		if sig == nil {
			return 0, fmt.Errorf("%v is not a method of %v (methods: %s)", l.Method, obj, MethodNames(obj))
		}
		switch {
		case sig.MinArgs > 0 && l.Arg == h.Void:
			return 0, fmt.Errorf("%v of %v takes an argument, got none", l.Method, obj)
		case sig.MaxArgs == 0 && l.Arg != h.Void:
			return 0, fmt.Errorf("%v of %v takes no argument, got %q", l.Method, obj, l.Arg)
		case l.Prio != 0 && !(obj == h.PQueue && l.Method == h.Add):
			return 0, fmt.Errorf("only a priority queue's add has a priority, got %d on %v of %v", l.Prio, l.Method, obj)
		}
	case h.Return:
		s, ok := m.win.openSerial(a.ID)
		serial = s
		if !ok {
			return 0, fmt.Errorf("return without call: [%s] is not open", a.ID)
		}
		method := m.win.op(s).Label.Method
		if a.Label.Method != h.NoMethod && a.Label.Method != method {
			return 0, fmt.Errorf("return of [%s] as %v, but it was called as %v", a.ID, a.Label.Method, method)
		}
		sig := m.signature(method)
		v := a.Label.Ret
		switch sig.Ret {
		case h.RetNone:
			if v != h.Void {
				return 0, fmt.Errorf("%v of %v returns nothing, got %q", method, obj, v)
			}
		case h.RetBool:
			if v != h.True && v != h.False {
				return 0, fmt.Errorf("%v of %v returns true or false, got %q", method, obj, v)
			}
		case h.RetStatus:
			if v != h.OK && v != h.Fail {
				return 0, fmt.Errorf("%v of %v returns ok or fail, got %q", method, obj, v)
			}
		case h.RetValue:
			if v == h.Void {
				return 0, fmt.Errorf("%v of %v returns a value, got none", method, obj)
			}
		}
	default:
		return 0, fmt.Errorf("bad action kind %d", a.Kind)
	}
	return serial, nil
}

// signature is the object's signature of method, or nil. The monitor
// keeps its object's signatures (m.sigs) and their index by method
// (m.sigAt) so that checking an action looks nothing up by object and
// searches no list: validate runs at every step.
func (m *Monitor) signature(method h.Method) *h.Signature {
	if i := m.sigAt[method]; i > 0 {
		return &m.sigs[i-1]
	}
	return nil
}

func MethodNames(obj h.Object) string {
	var names []string
	for _, s := range h.Signatures(obj) {
		names = append(names, s.Method.String())
	}
	return strings.Join(names, ", ")
}
