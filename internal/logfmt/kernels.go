package logfmt

import (
	"fmt"
	"strconv"

	"github.com/satmon/satmon/internal/history"
)

// This file is the one place where foreign histories (Jepsen log lines,
// EDN and JSON event maps) meet satmon's kernels: which object each family
// of Jepsen operations runs on, with which parameter, and which label each
// operation and outcome becomes. The readers know nothing else about
// objects.
//
// Jepsen's register workload runs on the compare-and-set register
// (history.CASRegister), the key-value workload on one string register
// (history.StringRegister) per key.

// A family is the object a Jepsen workload exercises, and its operations.
type family struct {
	name  string         // for messages
	kind  history.Object // the kernel
	param string         // the object's parameter: its initial state
	ops   map[string]jepsenOp
}

// A jepsenOp maps one Jepsen operation (:f) to labels.
type jepsenOp struct {
	// call is the label of the :invoke, from its :value.
	call func(v ednValue) (history.Label, error)
	// ok is the return value of an :ok completion, from its :value.
	ok func(v ednValue) (history.Value, error)
	// fail is the return value of a :fail completion, when the failure is
	// an outcome of the operation (a cas that found another value);
	// constrains=false means :fail says the operation did not take effect
	// or returned nothing (a read that timed out): the operation is then
	// left pending, which for an operation without effect is the same as
	// never having happened (docs/format.md).
	fail func(v ednValue) (ret history.Value, constrains bool)
}

// absent is what a read of a compare-and-set register returns before any
// write (Jepsen's nil).
const absent = history.Nil

// emptyString is the string register's empty string (the value of a key
// never written): a get that returns nothing (history.Void).
const emptyString = history.Void

// casRegister is Jepsen's register workload (etcd): read, write and
// cas [OLD NEW], starting absent.
var casRegister = family{
	name:  "compare-and-set register",
	kind:  history.CASRegister,
	param: "", // absent at the start
	ops: map[string]jepsenOp{
		"read": {
			call: func(ednValue) (history.Label, error) { return history.Label{Method: history.Read}, nil },
			ok:   func(v ednValue) (history.Value, error) { return v.scalar(absent) },
			fail: noEffect,
		},
		"write": {
			call: func(v ednValue) (history.Label, error) {
				x, err := v.scalar("")
				if err == nil && (x == "" || x == absent) {
					err = fmt.Errorf("write of nil: a write needs a value")
				}
				return history.Label{Method: history.Write, Arg: x}, err
			},
			ok:   func(ednValue) (history.Value, error) { return history.Void, nil },
			fail: noEffect,
		},
		"cas": {
			call: func(v ednValue) (history.Label, error) {
				old, new, err := v.pair()
				if err != nil {
					return history.Label{}, err
				}
				return history.CASLabel(old, new), nil
			},
			ok: func(ednValue) (history.Value, error) { return history.OK, nil },
			fail: func(ednValue) (history.Value, bool) {
				return history.Fail, true
			},
		},
	},
}

// stringRegister is the key-value workload, one object per key: put sets
// the key's string, append appends to it, get returns it ("" when never
// written).
var stringRegister = family{
	name:  "string register",
	kind:  history.StringRegister,
	param: "", // the empty string at the start
	ops: map[string]jepsenOp{
		"put": {
			call: func(v ednValue) (history.Label, error) {
				x, err := v.str()
				return history.Label{Method: history.Write, Arg: x}, err
			},
			ok:   func(ednValue) (history.Value, error) { return history.Void, nil },
			fail: noEffect,
		},
		"get": {
			call: func(ednValue) (history.Label, error) { return history.Label{Method: history.Read}, nil },
			ok:   func(v ednValue) (history.Value, error) { return v.str() },
			fail: noEffect,
		},
		"append": {
			call: func(v ednValue) (history.Label, error) {
				x, err := v.str()
				if err != nil {
					return history.Label{}, err
				}
				return history.Label{Method: history.Append, Arg: x}, nil
			},
			ok:   func(ednValue) (history.Value, error) { return history.Void, nil },
			fail: noEffect,
		},
	},
}

// families are tried in order to find the family of an operation name.
var families = []*family{&casRegister, &stringRegister}

// familyOf finds the family whose operations include f.
func familyOf(f string) *family {
	for _, fam := range families {
		if _, ok := fam.ops[f]; ok {
			return fam
		}
	}
	return nil
}

func noEffect(ednValue) (history.Value, bool) { return history.Void, false }

// ednValue is the :value of an event, as the EDN or JSON decoder gave it.
type ednValue struct{ v any }

// scalar is a single value as a label value; nilAs stands for nil.
func (e ednValue) scalar(nilAs history.Value) (history.Value, error) {
	switch x := e.v.(type) {
	case nil:
		return nilAs, nil
	case string:
		if x == "" {
			return emptyString, nil
		}
		return history.Value(x), nil
	case int64:
		return history.Value(strconv.FormatInt(x, 10)), nil
	case float64: // JSON numbers
		if x == float64(int64(x)) {
			return history.Value(strconv.FormatInt(int64(x), 10)), nil
		}
		return history.Value(strconv.FormatFloat(x, 'g', -1, 64)), nil
	case bool:
		return history.Value(strconv.FormatBool(x)), nil
	case fmt.Stringer: // EDN keywords and symbols
		return history.Value(":" + x.String()), nil
	}
	return "", fmt.Errorf("expected a single value, found %s", e.describe())
}

// str is a string value; nil and "" are the empty string.
func (e ednValue) str() (history.Value, error) {
	switch x := e.v.(type) {
	case nil:
		return emptyString, nil
	case string:
		if x == "" {
			return emptyString, nil
		}
		return history.Value(x), nil
	}
	return "", fmt.Errorf("expected a string value, found %s", e.describe())
}

// pair is the [OLD NEW] of a cas.
func (e ednValue) pair() (old, new history.Value, err error) {
	v, ok := e.v.([]any)
	if !ok || len(v) != 2 {
		return "", "", fmt.Errorf("cas expects [OLD NEW], found %s", e.describe())
	}
	if old, err = (ednValue{v[0]}).scalar(absent); err != nil {
		return "", "", err
	}
	if new, err = (ednValue{v[1]}).scalar(""); err != nil || new == "" || new == absent {
		return "", "", fmt.Errorf("cas expects [OLD NEW] with a NEW value, found %s", e.describe())
	}
	return old, new, nil
}

func (e ednValue) describe() string {
	switch x := e.v.(type) {
	case nil:
		return "nil"
	case []any:
		return fmt.Sprintf("a vector of %d", len(x))
	case map[any]any, map[string]any:
		return "a map"
	}
	return quote(fmt.Sprint(e.v))
}
