package explain

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/satmon/satmon/internal/engine"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// Explanation is what CheckLogExplain learned beyond the verdict: the
// history as read (up to the violation, or the whole log), the violation's
// core, and the witness of an exact ok.
type Explanation struct {
	History     *h.History
	ReturnLines []int // by operation; 0 while pending
	// Violation is the operation whose return proved the violation, -1
	// when there is none.
	Violation int
	// Core lists the core's operations (indices into History.Ops, in
	// call order); CoreExact says it was shown 1-minimal by exact checks
	// (otherwise it is minimal for SATURATE only, see FindCore).
	Core      []int
	CoreExact bool
	// Cut, when not nil, says the history was long and was cut to find
	// the core: History is then the part after the cut, from the state
	// the operations before it reach (FindCore's comment in core.go).
	Cut     *Cut
	Witness *engine.Witness
	// Note says why a core or witness is missing, when one is.
	Note string
}

// ExplainLimit bounds the time CheckLogExplain spends on a core or a
// witness when Options.Timeout is 0.
const ExplainLimit = 30 * time.Second

// CheckLogExplain is CheckLogFunc that also keeps the history it reads and,
// at the end, finds the core of a violation (FindCore) and, for an ok of
// an exact algorithm (ENUMERATE, SYMBOLIC), a witness (FindWitness, one
// more exact run on the whole history). Result.Core and Result.Witness are
// filled; onViolation sees the core. Keeping the history costs memory in
// proportion to the log, unlike CheckLogFunc with -r.
func CheckLogExplain(r io.Reader, lo logfmt.Options, opt engine.Options, onViolation func(engine.Result)) (engine.Result, *Explanation, error) {
	x := &Explanation{Violation: -1}
	var viol engine.Result
	var cut *Explanation // the history, cut, when the core needed a cut
	tee := &engine.ActionTee{}
	hook := func(res engine.Result) {
		x.History = &tee.B.H
		x.ReturnLines = tee.RetLines
		x.Violation = OpIndex(x.History, res.ViolationOp)
		limit := opt.Timeout
		if limit <= 0 {
			limit = ExplainLimit
		}
		if x.FindCore(limit) {
			cut = &Explanation{History: x.History, ReturnLines: x.ReturnLines}
		}
		res.Core = x.CoreOps()
		viol = res
		if onViolation != nil {
			onViolation(res)
		}
	}
	res, err := engine.CheckLogTee(r, lo, opt, tee, hook)
	if tee.B == nil {
		return res, x, err
	}
	x.History, x.ReturnLines = &tee.B.H, tee.RetLines
	if cut != nil {
		x.History, x.ReturnLines = cut.History, cut.ReturnLines
	}
	if err != nil {
		return res, x, err
	}
	if res.Verdict == engine.Violation {
		res.Core = viol.Core
		return res, x, nil
	}
	if res.Verdict == engine.OK && (opt.Algorithm == engine.Enumerate || opt.Algorithm == engine.Symbolic) {
		limit := opt.Timeout
		if limit <= 0 {
			limit = ExplainLimit
		}
		w, err := FindWitness(x.History, limit)
		switch {
		case err != nil:
			x.Note = "no witness: " + err.Error()
		case w == nil:
			// The exact algorithm said ok, the one SAT run on the whole
			// history says no: a bug in one of them, never hidden.
			return res, x, fmt.Errorf("%s: %s says ok but the witness search finds the history not linearizable", lo.Name, opt.Name())
		}
		x.Witness = w
		res.Witness = w
	}
	return res, x, nil
}

// FindCore finds the core of the violation x holds (History, ReturnLines
// and Violation set), cutting a long history (findCoreCut) when FindCore
// cannot take it whole; it reports whether it cut. Note says why there is
// no core, when there is none.
func (x *Explanation) FindCore(limit time.Duration) (cut bool) {
	var core []int
	var exact bool
	start := time.Now()
	err := errTooLong
	if len(x.History.Ops) <= coreMaxOps {
		core, exact, err = FindCore(x.History, x.Violation, limit)
	}
	if errors.Is(err, errTooLong) {
		c, cerr := x.cut(limit)
		if cerr == nil {
			*x = *c
			return true
		}
		err = fmt.Errorf("%w; and %w", err, cerr)
		if len(x.History.Ops) > coreMaxOps {
			err = fmt.Errorf("%d operations: %w; and %w", len(x.History.Ops), errTooLong, cerr)
			// A queue or stack of distinct values keeps only the
			// operations on the values a core names (subHistory): its
			// sub-histories stay small however long the history, so
			// with no cut to help, FindCore takes it whole, in what is
			// left of the time.
			if namedValues(x.History, make([]bool, len(x.History.Ops))) != nil {
				if left := limit - time.Since(start); left > 0 {
					var ferr error
					if core, exact, ferr = FindCore(x.History, x.Violation, left); ferr == nil {
						err = nil
					}
				}
			}
		}
	}
	switch {
	case err != nil:
		x.Note = "no core: " + err.Error()
	case core == nil:
		x.Note = "no core: the exact check could not confirm the violation in time"
	}
	x.Core, x.CoreExact = core, exact
	return false
}

// cut is x with its long history cut to find a core (findCoreCut).
func (x *Explanation) cut(limit time.Duration) (*Explanation, error) {
	sub, idx, cut, core, exact, err := findCoreCut(x.History, x.Violation, limit, x.ReturnLines)
	if err != nil {
		return nil, err
	}
	c := &Explanation{History: sub, ReturnLines: make([]int, len(idx)), Violation: -1, Core: core, CoreExact: exact, Cut: cut}
	for j, i := range idx {
		if i >= 0 && i < len(x.ReturnLines) {
			c.ReturnLines[j] = x.ReturnLines[i]
		}
		if i >= 0 && i == x.Violation {
			c.Violation = j
		}
	}
	return c, nil
}

// CoreOps is the core as Result reports it.
func (x *Explanation) CoreOps() []engine.CoreOp {
	var out []engine.CoreOp
	for _, i := range x.Core {
		o := &x.History.Ops[i]
		c := engine.CoreOp{ID: o.ID, Op: o.Label.String(), CallLine: o.Line}
		if i < len(x.ReturnLines) {
			c.ReturnLine = x.ReturnLines[i]
		}
		out = append(out, c)
	}
	return out
}

func OpIndex(hist *h.History, id string) int {
	for i := len(hist.Ops) - 1; i >= 0; i-- {
		if hist.Ops[i].ID == id {
			return i
		}
	}
	return -1
}
