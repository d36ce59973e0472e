package monitor

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/satmon/satmon/internal/apiconf"
	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/explain"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/multi"
)

// The checker reports in the CLI's terms (docs/output.md: ids as strings,
// a step that may be null); these turn its reports into the library's.

func configure(opts []Option) config { return apiconf.Configure(opts) }

// opIndex reads an operation's index from its id: Check names each
// operation by its index in the slice.
func opIndex(id string) int {
	i, err := strconv.Atoi(id)
	if err != nil {
		return -1
	}
	return i
}

// recordedOp is the index of a recorded operation: the recorder numbers
// operations from 1 in the order of their calls.
func recordedOp(id string) int {
	if i := opIndex(id); i >= 1 {
		return i - 1
	}
	return -1
}

func fromEngine(r engine.Result, index func(string) int) Result {
	res := Result{Verdict: Verdict(r.Verdict), Exact: r.Exact, Algorithm: r.Algorithm, Operations: r.Operations, Steps: r.Steps, ViolationOp: -1, ViolationStep: -1}
	if r.ViolationStep != nil {
		res.ViolationStep = *r.ViolationStep
	}
	if r.ViolationOp != "" {
		res.ViolationOp = index(r.ViolationOp)
	}
	return res
}

func fromLog(ctx context.Context, obj Object, lr multi.LogResult, keyed bool, c config, index func(string) int) Result {
	res := fromEngine(lr.Result, index)
	res.Key = lr.ViolationObject
	keys := make([]Result, len(lr.Objects))
	for i := range lr.Objects {
		keys[i] = fromObject(ctx, obj, &lr.Objects[i], c, index)
	}
	if len(keys) == 0 {
		return res
	}
	if !keyed {
		k := keys[0]
		k.Verdict, k.Exact = res.Verdict, res.Exact
		return k
	}
	res.Keys = keys
	res.draw = keys[0].draw
	for _, k := range keys {
		if res.Verdict == Violation && k.Verdict == Violation && k.Key == res.Key {
			res.Core, res.Note, res.draw = k.Core, k.Note, k.draw
			break
		}
	}
	return res
}

func fromObject(ctx context.Context, obj Object, o *multi.ObjectResult, c config, index func(string) int) Result {
	r := fromEngine(o.Result, index)
	r.Key = o.Name
	ex := o.Explanation
	if !c.Explain || ex == nil || ex.History == nil {
		return r
	}
	for _, i := range ex.Core {
		r.Core = append(r.Core, index(ex.History.Ops[i].ID))
	}
	if r.Verdict == OK && r.Exact && ex.Witness == nil {
		limit := explain.ExplainLimit
		if d, ok := ctx.Deadline(); ok {
			limit = min(limit, time.Until(d))
		}
		if w, err := explain.FindWitness(ex.History, limit); err != nil {
			ex.Note = "no witness: " + err.Error()
		} else {
			ex.Witness = w
		}
	}
	if ex.Witness != nil {
		r.Witness = make([]int, 0, len(ex.Witness.Order))
		for _, wo := range ex.Witness.Order {
			r.Witness = append(r.Witness, index(ex.History.Ops[wo.Index].ID))
		}
	}
	r.Note = ex.Note
	r.draw = &drawing{obj: obj, key: o.Name, res: o.Result, ex: ex}
	return r
}

func readLog(r io.Reader) (Object, string, []Operation, error) {
	src, err := logfmt.NewSource(r, logfmt.Auto, logfmt.Options{})
	if err != nil {
		return NoObject, "", nil, err
	}
	var (
		ops  []Operation
		decl *logfmt.ObjectDecl
		open = map[[2]string]int{} // object name and id → index
	)
	for {
		e, err := src.NextEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return NoObject, "", nil, err
		}
		if decl == nil {
			decl = e.Object
		} else if e.Object.Kind != decl.Kind || e.Object.Param != decl.Param {
			return NoObject, "", nil, fmt.Errorf("objects %s and %s differ in kind or parameter: check them apart", decl.Label(), e.Object.Label())
		}
		k := [2]string{e.Object.Name, e.ID}
		switch {
		case e.Abandon:
			delete(open, k) // pending for ever
		case e.Kind == h.Call:
			open[k] = len(ops)
			l := labelOf(e.Label)
			l.Ret, l.Pending = Void, true
			ops = append(ops, Operation{Key: e.Object.Name, Label: l, Call: int64(e.Seq)})
		default:
			o := &ops[open[k]]
			o.Label.Ret, o.Label.Pending, o.Return = Value(e.Label.Ret), false, int64(e.Seq)
			delete(open, k)
		}
	}
	if decl == nil {
		return NoObject, "", nil, nil
	}
	return Object(decl.Kind), decl.Param, ops, nil
}
