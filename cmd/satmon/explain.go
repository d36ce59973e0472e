package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/explain"
	"github.com/satmon/satmon/internal/history"

	"github.com/spf13/pflag"

	"github.com/satmon/satmon/internal/viz"
)

// explainFlags are check's --explain, --html, --svg and --draw.
type explainFlags struct {
	explain   bool
	html, svg string
	draw      string // the object of a log of many objects to draw
	// failed is set when a picture could not be written (or --draw
	// named no object of the log): the batch then exits 2 unless a
	// violation was found.
	failed bool
}

func addExplainFlags(fs *pflag.FlagSet) *explainFlags {
	x := &explainFlags{}
	fs.BoolVar(&x.explain, "explain", false, "explain the verdict: a violation's core (a 1-minimal set of operations already not linearizable) and SATURATE's derivation, or an exact ok's witness linearization; JSON gets \"core\" and \"witness\"")
	fs.StringVar(&x.html, "html", "", "write an HTML page with an SVG timeline of the history (core highlighted, witness numbered) to this file; one input only. A log of many objects (Jepsen keys, key-value files, '# @object NAME KIND') draws one: the first in violation, else the first, unless --draw names it")
	fs.StringVar(&x.svg, "svg", "", "write the SVG timeline alone to this file; one input only")
	fs.StringVar(&x.draw, "draw", "", "with --html or --svg on a log of many objects: the `NAME` (key) of the object to draw")
	return x
}

func (x *explainFlags) on() bool { return x.explain || x.pictures() }

// pictures reports whether a picture is asked for.
func (x *explainFlags) pictures() bool { return x != nil && (x.html != "" || x.svg != "") }

func (x *explainFlags) validate(files int) error {
	if x.pictures() && files > 1 {
		return fmt.Errorf("--html and --svg draw one history: give one FILE")
	}
	if x.draw != "" && !x.pictures() {
		return fmt.Errorf("--draw chooses the object --html or --svg draws: give one of them")
	}
	return nil
}

// report prints the explanation in text (JSON has it in the result) and
// writes the pictures. It returns false when a picture could not be
// written.
func (x *explainFlags) report(out *bufio.Writer, stderr io.Writer, json bool, res engine.Result, ex *explain.Explanation) bool {
	if ex == nil || ex.History == nil {
		return true
	}
	if x.draw != "" {
		fmt.Fprintf(stderr, "satmon check: --draw %s: %s is a log of one object; drawing it\n", x.draw, res.File)
	}
	text := explainText(res, ex, x.derivation(res, ex))
	if x.explain && !json {
		for _, l := range text {
			fmt.Fprintf(out, "    %s\n", l)
		}
		out.Flush()
	}
	return x.write(stderr, drawing(pictureTitle(res, ""), res, ex, text))
}

// derivation is SATURATE's derivation on a violation's core, when the
// text asks for one.
func (x *explainFlags) derivation(res engine.Result, ex *explain.Explanation) []string {
	if res.Verdict != engine.Violation || len(ex.Core) == 0 || !(x.explain || x.html != "") {
		return nil
	}
	deriv, err := explain.Derive(ex.History, ex.Core)
	if err != nil {
		return []string{"no derivation: " + err.Error()}
	}
	return deriv
}

// write writes the pictures asked for; it returns false, having said
// why, when one could not be written.
func (x *explainFlags) write(stderr io.Writer, d *viz.Drawing) bool {
	ok := true
	for _, pic := range []struct {
		path string
		draw func(io.Writer, *viz.Drawing) error
	}{{x.html, viz.HTML}, {x.svg, viz.SVG}} {
		if pic.path == "" {
			continue
		}
		f, err := os.Create(pic.path)
		if err == nil {
			err = pic.draw(f, d)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "satmon check: %v\n", err)
			ok = false
		}
	}
	if !ok {
		x.failed = true
	}
	return ok
}

func lines(call, ret int) string {
	switch {
	case call == 0:
		return ""
	case ret == 0:
		return fmt.Sprintf("line %d, pending", call)
	}
	return fmt.Sprintf("lines %d–%d", call, ret)
}

// explainText is the explanation as printed by --explain and shown under
// the picture.
func explainText(res engine.Result, ex *explain.Explanation, deriv []string) []string {
	var t []string
	if ex.Note != "" {
		t = append(t, ex.Note)
	}
	if res.Verdict == engine.Violation && len(ex.Core) > 0 {
		how := "relaxing any one of them makes it linearizable"
		if !ex.CoreExact {
			how = "minimal for SATURATE; too large to shrink exactly"
		}
		t = append(t, fmt.Sprintf("core: %d operations whose sub-history is not linearizable (%s):", len(ex.Core), how))
		w := 0
		for _, c := range res.Core {
			w = max(w, len(c.ID)+len([]rune(opText(res.Object, c.Op)))+3)
		}
		for _, c := range res.Core {
			s := fmt.Sprintf("[%s] %s", c.ID, opText(res.Object, c.Op))
			t = append(t, fmt.Sprintf("  %s%s  %s", s, strings.Repeat(" ", w-len([]rune(s))), lines(c.CallLine, c.ReturnLine)))
		}
		if c := ex.Cut; c != nil {
			t = append(t, fmt.Sprintf("(the log was cut after line %d: every linearization of its %d operations before that point ends in state %s, no operation open; the core is among the operations after it, from that state)", c.Line, c.Before, cutState(res.Object, c.State)))
		}
		other := "(the other operations count as pending: called where they were, returning anything or never)"
		if o := res.Object; o == history.Queue.String() || o == history.Stack.String() {
			other = "(the other operations on the values the core names count as pending: called where they were, returning anything or never; with values all distinct, those on other values are left out)"
		}
		t = append(t, other)
		if len(deriv) > 0 {
			t = append(t, "derivation (SATURATE on the core):")
			for _, d := range deriv {
				t = append(t, "  "+d)
			}
		}
	}
	if ex.Witness != nil {
		t = append(t, fmt.Sprintf("witness: a linearization, in the order the atomic object performs the operations (%d of %d; pending ones completed or left out):", len(ex.Witness.Order), len(ex.History.Ops)))
		for p, wo := range ex.Witness.Order {
			s := fmt.Sprintf("  %d. [%s] %s", p+1, wo.ID, wo.Op)
			if wo.Completed {
				s += "  (pending, completed)"
			}
			if wo.Partner != "" {
				s += fmt.Sprintf("  (swaps with [%s])", wo.Partner)
			}
			t = append(t, s)
		}
		if len(ex.Witness.Dropped) > 0 {
			t = append(t, "  pending, left out: ["+strings.Join(ex.Witness.Dropped, "], [")+"]")
		}
	}
	return t
}

// pictureTitle is the title of the picture of res: its verdict as check
// prints it, and for an object of a log of many, its name (key).
func pictureTitle(res engine.Result, name string) string {
	who := res.Object
	if name != "" {
		who = fmt.Sprintf("object %s (%s)", name, res.Object)
	}
	switch res.Verdict {
	case engine.Violation:
		if name != "" {
			return fmt.Sprintf("%s: %s: violation at step %d of the object (line %d, return of [%s])", res.File, who, *res.ViolationStep, res.ViolationLine, res.ViolationOp)
		}
		return fmt.Sprintf("%s: violation of %s at step %d (line %d, return of [%s])", res.File, who, *res.ViolationStep, res.ViolationLine, res.ViolationOp)
	case engine.OK:
		if res.Exact {
			return fmt.Sprintf("%s: %s: ok, linearizable (%s)", res.File, who, res.Algorithm)
		}
		return fmt.Sprintf("%s: %s: ok, no violation found (%s can miss violations; %s)", res.File, who, res.Algorithm, decider(res.Algorithm))
	}
	return fmt.Sprintf("%s: %s: %s, undecided", res.File, who, res.Verdict)
}

func drawing(title string, res engine.Result, ex *explain.Explanation, text []string) *viz.Drawing {
	d := &viz.Drawing{Title: title}
	core := map[int]bool{}
	for _, i := range ex.Core {
		core[i] = true
	}
	order := map[int]int{}
	dropped := map[string]bool{}
	if ex.Witness != nil {
		for p, wo := range ex.Witness.Order {
			order[wo.Index] = p + 1
		}
		for _, id := range ex.Witness.Dropped {
			dropped[id] = true
		}
	}
	for i := range ex.History.Ops {
		o := &ex.History.Ops[i]
		v := viz.Op{ID: o.ID, Label: opText(res.Object, o.Label.String()), Call: o.Call, Return: o.Return, CallLine: o.Line,
			Core: core[i], Violation: i == ex.Violation, Order: order[i], Dropped: o.Pending() && dropped[o.ID]}
		if i < len(ex.ReturnLines) {
			v.ReturnLine = ex.ReturnLines[i]
		}
		d.Ops = append(d.Ops, v)
	}
	d.Text = append([]string{d.Title}, text...)
	return d
}

// opText is an operation's label as the explanation shows it: a string
// register's read that returned the empty string says so, where the
// label, which writes no empty value, shows a bare "read".
func opText(object, label string) string {
	if object == history.StringRegister.String() && label == "read" {
		return `read ⇒ ""`
	}
	return label
}

// cutState names the state of an object at a cut.
func cutState(object, state string) string {
	switch {
	case object == history.CASRegister.String() && (state == "" || state == "nil"):
		return "absent (nil)"
	case object == history.StringRegister.String() && state == "":
		return "\"\" (empty)"
	case object == history.Register.String() && state == "":
		return "unwritten"
	case object == history.Register.String() || object == history.CASRegister.String() || object == history.StringRegister.String():
		return fmt.Sprintf("%q", state)
	}
	return "initial (empty, free)"
}
