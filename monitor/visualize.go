package monitor

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/explain"
	"github.com/satmon/satmon/internal/viz"
)

// drawing is what Visualize needs of one object's check: the history as
// checked and what the explanation found in it.
type drawing struct {
	obj Object
	key string
	res engine.Result
	ex  *explain.Explanation
}

func visualize(w io.Writer, res Result) error {
	d := res.draw
	if d == nil {
		return errors.New("monitor.Visualize: nothing to draw: check with WithExplanation")
	}
	ex := d.ex
	who := d.obj.String()
	if d.key != "" {
		who = fmt.Sprintf("key %s (%s)", d.key, who)
	}
	var title string
	switch r := d.res; r.Verdict {
	case engine.Violation:
		title = fmt.Sprintf("%s: violation at step %d, proven by the return of operation %s", who, *r.ViolationStep, r.ViolationOp)
	case engine.OK:
		if r.Exact {
			title = fmt.Sprintf("%s: ok, linearizable (%s)", who, r.Algorithm)
		} else {
			title = fmt.Sprintf("%s: ok, no violation found (%s can miss violations; Symbolic decides)", who, r.Algorithm)
		}
	default:
		title = fmt.Sprintf("%s: %s, undecided", who, r.Verdict)
	}
	pic := &viz.Drawing{Title: title, Text: []string{title}}
	if ex.Note != "" {
		pic.Text = append(pic.Text, ex.Note)
	}
	core := map[int]bool{}
	for _, i := range ex.Core {
		core[i] = true
	}
	if len(ex.Core) > 0 {
		pic.Text = append(pic.Text, fmt.Sprintf("core: %d operations whose sub-history is not linearizable:", len(ex.Core)))
		for _, i := range ex.Core {
			o := &ex.History.Ops[i]
			pic.Text = append(pic.Text, fmt.Sprintf("  operation %s: %s", o.ID, opText(d.obj, o.Label.String())))
		}
		if deriv, err := explain.Derive(ex.History, ex.Core); err == nil {
			pic.Text = append(pic.Text, "derivation (SATURATE on the core):")
			for _, s := range deriv {
				pic.Text = append(pic.Text, "  "+s)
			}
		}
	}
	order := map[int]int{}
	dropped := map[string]bool{}
	if ex.Witness != nil {
		pic.Text = append(pic.Text, "witness: a linearization, in the order the object performs the operations:")
		for p, wo := range ex.Witness.Order {
			order[wo.Index] = p + 1
			pic.Text = append(pic.Text, fmt.Sprintf("  %d. operation %s: %s", p+1, wo.ID, wo.Op))
		}
		for _, id := range ex.Witness.Dropped {
			dropped[id] = true
		}
		if len(ex.Witness.Dropped) > 0 {
			pic.Text = append(pic.Text, "  pending, left out: operations "+strings.Join(ex.Witness.Dropped, ", "))
		}
	}
	for i := range ex.History.Ops {
		o := &ex.History.Ops[i]
		pic.Ops = append(pic.Ops, viz.Op{ID: o.ID, Label: opText(d.obj, o.Label.String()), Call: o.Call, Return: o.Return,
			Core: core[i], Violation: i == ex.Violation, Order: order[i], Dropped: o.Pending() && dropped[o.ID]})
	}
	return viz.HTML(w, pic)
}

// opText is an operation's label as the picture shows it: a string
// register's read of the empty string says so, where the label shows a
// bare "read".
func opText(obj Object, label string) string {
	if obj == StringRegister && label == "read" {
		return `read ⇒ ""`
	}
	return label
}
