// Package viz draws a history as a self-contained SVG timeline (or an HTML
// page holding one): a lane per process, operations as labelled bars, a
// violation's core highlighted and a witness's order numbered.
package viz

import (
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
)

// Op is one operation to draw.
type Op struct {
	ID     string
	Label  string // method, argument and return, e.g. "pop ⇒ 2"
	Call   int    // position of the call among the log's actions
	Return int    // position of the return; -1 while pending
	// CallLine and ReturnLine are the log's lines (0: unknown).
	CallLine, ReturnLine int
	Core                 bool // in the violation's core
	Violation            bool // its return proved the violation
	Order                int  // place in the witness, from 1 (0: none)
	Dropped              bool // pending, left out by the witness
}

// Drawing is a history to draw, with the text shown under it.
type Drawing struct {
	Title string
	Ops   []Op
	Text  []string
}

// MaxOps bounds the operations drawn: beyond it, a window of operations
// around the violation (or the end of the log), plus the core, is drawn, so
// that the file stays well under 1 MB however long the log.
const MaxOps = 200

// window returns the operations to draw and how many were left out.
func window(ops []Op) ([]Op, int) {
	if len(ops) <= MaxOps {
		return ops, 0
	}
	focus := len(ops) - 1
	for i := range ops {
		if ops[i].Violation {
			focus = i
		}
	}
	lo := max(0, focus-MaxOps*3/4)
	hi := min(len(ops), lo+MaxOps)
	var out []Op
	for i := range ops {
		if i >= lo && i < hi || ops[i].Core {
			out = append(out, ops[i])
		}
	}
	return out, len(ops) - len(out)
}

// lanes assigns each operation a lane: by id when ids repeat (then they
// name threads or processes), else greedily, each operation on the first
// lane free at its call.
func lanes(ops []Op) ([]int, int) {
	lane := make([]int, len(ops))
	seen := map[string]int{}
	repeat := false
	for _, o := range ops {
		if _, ok := seen[o.ID]; ok {
			repeat = true
		}
		seen[o.ID] = 0
	}
	if repeat {
		ids := map[string]int{}
		for i, o := range ops {
			l, ok := ids[o.ID]
			if !ok {
				l = len(ids)
				ids[o.ID] = l
			}
			lane[i] = l
		}
		return lane, len(ids)
	}
	idx := make([]int, len(ops))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return ops[a].Call - ops[b].Call })
	var free []int // per lane, the position after which it is free
	for _, i := range idx {
		l := 0
		for l < len(free) && free[l] >= ops[i].Call {
			l++
		}
		if l == len(free) {
			free = append(free, 0)
		}
		end := ops[i].Return
		if end < 0 {
			end = int(^uint(0) >> 1)
		}
		free[l] = end
		lane[i] = l
	}
	return lane, len(free)
}

// Geometry.
const (
	laneH   = 40
	barH    = 18
	minStep = 46  // per action position: room for a short label
	maxStep = 150 // and at most, so that long labels are cut, not the page
	marginL = 70  // the lane names' column
	marginT = 14  // above the first lane: the witness numbers
	// charW and boldW are generous estimates of the width of a character
	// of the 11px sans-serif labels, so that a label cut to its bar's
	// width does not spill past it.
	charW = 6.6
	boldW = 7.3
)

// SVG writes the drawing as a standalone SVG document: the title, the
// legend, the lane names and the timeline.
func SVG(w io.Writer, d *Drawing) error {
	var b strings.Builder
	lay := layout(d)
	leg := legend(d, lay)
	top := 30 + leg.height
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		marginL+lay.width, top+lay.height, marginL+lay.width, top+lay.height)
	b.WriteString(style)
	fmt.Fprintf(&b, `<text x="10" y="18" font-size="14" font-weight="bold">%s</text>`+"\n", html.EscapeString(d.Title))
	fmt.Fprintf(&b, `<g transform="translate(0,28)">%s</g>`+"\n", leg.body)
	fmt.Fprintf(&b, `<g transform="translate(0,%d)">`+"\n", top)
	writeLanes(&b, lay)
	fmt.Fprintf(&b, `<g transform="translate(%d,0)">`+"\n", marginL)
	writeTimeline(&b, lay)
	b.WriteString("</g></g>\n</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// HTML writes one self-contained page: the title, the legend, the lane
// names and the timeline as inline SVG, the text below; no scripts, fonts
// or other fetches. The lane names and the legend stay in view while the
// timeline scrolls; the timeline of a violation wider than the window
// opens scrolled to its right end, where the violation is.
func HTML(w io.Writer, d *Drawing) error {
	var b strings.Builder
	lay := layout(d)
	leg := legend(d, lay)
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
	b.WriteString(html.EscapeString(d.Title))
	b.WriteString("</title>\n<style>body{font-family:sans-serif;margin:1em}" +
		"h1{font-size:18px;overflow-wrap:anywhere}" +
		"pre{font-size:13px;background:#f6f6f6;padding:.6em;white-space:pre-wrap;overflow-wrap:anywhere}" +
		".row{display:flex;border:1px solid #ddd}.lanes{flex:none;background:#fafafa;border-right:1px solid #ddd}" +
		".wrap{overflow-x:auto;flex:auto}.wrap svg{direction:ltr;display:block}.wrap.end{direction:rtl}</style></head><body>\n<h1>")
	b.WriteString(html.EscapeString(d.Title))
	b.WriteString("</h1>\n")
	fmt.Fprintf(&b, `<svg class="legend" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", legendW, leg.height)
	b.WriteString(leg.body)
	b.WriteString("</svg>\n<div class=\"row\">\n")
	fmt.Fprintf(&b, `<svg class="lanes" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", marginL, lay.height)
	writeLanes(&b, lay)
	// A timeline of a violation wider than most windows opens at its
	// right end (rtl scrolling), where the violation is; any other opens
	// at its start, by the lane names, and reads left to right.
	if lay.width > narrow && slices.ContainsFunc(d.Ops, func(o Op) bool { return o.Violation }) {
		b.WriteString("</svg>\n<div class=\"wrap end\">\n")
	} else {
		b.WriteString("</svg>\n<div class=\"wrap\">\n")
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		lay.width, lay.height, lay.width, lay.height)
	b.WriteString(style)
	writeTimeline(&b, lay)
	b.WriteString("</svg>\n</div></div>\n<pre>")
	b.WriteString(html.EscapeString(strings.Join(d.Text, "\n")))
	b.WriteString("</pre>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

const style = `<style>.op rect{fill:#c9d6e3;stroke:#6b7f94}.op.core rect{fill:#f4a261;stroke:#c0392b;stroke-width:2.5}` +
	`.op.dropped rect{fill:#eee;stroke:#bbb;stroke-dasharray:3 2}.op.pending rect{stroke-dasharray:5 3}` +
	`.op text{fill:#222}.op.core text{font-weight:bold}.ord{fill:#1b5e20;font-weight:bold}` +
	`.halo{paint-order:stroke;stroke:#fff;stroke-width:4px;stroke-linejoin:round}</style>` + "\n"

// textW is the estimated width of s in pixels.
func textW(s string, bold bool) int {
	w := charW
	if bold {
		w = boldW
	}
	return int(float64(len([]rune(s))) * w)
}

// fit cuts s to what fits in width pixels, with an ellipsis when cut.
func fit(s string, width int, bold bool) string {
	w := charW
	if bold {
		w = boldW
	}
	n := int(float64(width-6) / w)
	r := []rune(s)
	switch {
	case len(r) <= n:
		return s
	case n < 2:
		return ""
	}
	return string(r[:n-1]) + "…"
}

// lay is a drawing laid out: the operations drawn, their lanes and
// the timeline's x of each action position.
type lay struct {
	ops           []Op
	lane          []int
	lanes         int
	omitted       int
	pos           []int
	step          int // the width of an action position
	width, height int
}

func layout(d *Drawing) *lay {
	l := &lay{}
	l.ops, l.omitted = window(d.Ops)
	l.lane, l.lanes = lanes(l.ops)
	// x: the action positions present, ranked, so gaps left by the
	// window take no room.
	for _, o := range l.ops {
		l.pos = append(l.pos, o.Call)
		if o.Return >= 0 {
			l.pos = append(l.pos, o.Return)
		}
	}
	slices.Sort(l.pos)
	l.pos = slices.Compact(l.pos)
	// Each action position is as wide as the labels need, spread over the
	// positions their bars span, within bounds: the core's and the
	// violation's labels fit whole; of the others, three in four do (a
	// log with a few hasty operations is not drawn ten times wider for
	// them), and the rest are cut, whole on hover.
	l.step = minStep
	var others []int
	for _, o := range l.ops {
		if o.Return < 0 {
			continue
		}
		w := charW
		if o.Core {
			w = boldW
		}
		need := int(float64(len([]rune(o.ID))+len([]rune(o.Label))+3)*w) + 8
		i, _ := slices.BinarySearch(l.pos, o.Call)
		j, _ := slices.BinarySearch(l.pos, o.Return)
		per := min(maxStep, (need+j-i-1)/max(j-i, 1))
		if o.Core || o.Violation {
			l.step = max(l.step, per)
		} else {
			others = append(others, per)
		}
	}
	if len(others) > 0 {
		slices.Sort(others)
		l.step = max(l.step, others[len(others)*3/4])
	}
	// Room on the right for the pending bars' ends and the violation's
	// note.
	l.width = max(10+len(l.pos)*l.step+rightPad, 900-marginL)
	l.height = marginT + l.lanes*laneH + 8
	return l
}

// x is the timeline's x of action position p.
func (l *lay) x(p int) int {
	i, _ := slices.BinarySearch(l.pos, p)
	return 10 + i*l.step
}

// rightPad is the room right of the last action position: pendingRun of
// it for the pending bars, the rest for the violation's note.
const (
	rightPad   = 280
	pendingRun = 40
)

// narrow is the widest timeline that opens at its left end.
const narrow = 1100

// legendW is the width the legend wraps at.
const legendW = 1200

type legendOut struct {
	body   string
	height int
}

// legend explains what the drawing shows, and only that: an ok has no
// core, a log with nothing pending no dashed bars.
func legend(d *Drawing, l *lay) legendOut {
	var core, viol, ord, pending, dropped, bottom bool
	for _, o := range l.ops {
		core = core || o.Core
		viol = viol || o.Violation
		ord = ord || o.Order > 0
		pending = pending || o.Return < 0 && !o.Dropped
		dropped = dropped || o.Dropped
		bottom = bottom || strings.Contains(o.Label, "⊥")
	}
	type item struct {
		icon string // SVG at (0,0)-(22,12)
		text string
	}
	var items []item
	// The legend's bars repeat the style's colours as attributes: a
	// group of class "core" is a core operation to whoever reads the page.
	bar := func(attrs string) string {
		return `<rect x="0" y="1" width="22" height="11" rx="2" ` + attrs + `/>`
	}
	items = append(items, item{bar(`fill="#c9d6e3" stroke="#6b7f94"`), "an operation, from its call to its return: [id] method(arg) ⇒ return; hover for its log lines"})
	if core {
		items = append(items, item{bar(`fill="#f4a261" stroke="#c0392b" stroke-width="2"`), "core: these operations alone are not linearizable"})
	}
	if viol {
		items = append(items, item{`<line x1="11" y1="-2" x2="11" y2="14" stroke="#c0392b" stroke-width="3"/>`, "the return that proved the violation"})
	}
	if pending {
		items = append(items, item{bar(`fill="#c9d6e3" stroke="#6b7f94" stroke-dasharray="5 3"`), "dashed, to the right edge: pending, called and never returned"})
	}
	if bottom {
		items = append(items, item{`<text x="4" y="11" font-weight="bold">⊥</text>`, "⇒ ⊥: no return value (pending: it may return anything, or never take effect)"})
	}
	if ord {
		items = append(items, item{`<text x="0" y="11" class="ord">#n</text>`, "place in the witness linearization"})
	}
	if dropped {
		items = append(items, item{bar(`fill="#eee" stroke="#bbb" stroke-dasharray="3 2"`), "grey: pending, left out by the witness"})
	}
	var b strings.Builder
	x, y := 10, 4
	for _, it := range items {
		w := 30 + int(float64(len([]rune(it.text)))*charW) + 18
		if x > 10 && x+w > legendW {
			x, y = 10, y+18
		}
		fmt.Fprintf(&b, `<g transform="translate(%d,%d)">%s<text x="28" y="11">%s</text></g>`+"\n", x, y, it.icon, html.EscapeString(it.text))
		x += w
	}
	h := y + 18
	if l.omitted > 0 {
		fmt.Fprintf(&b, `<text x="10" y="%d" fill="#555">%d operations far from the violation are not drawn (the text below lists the core)</text>`+"\n", h+10, l.omitted)
		h += 16
	}
	return legendOut{b.String(), h + 4}
}

// writeLanes writes the lane names, at x 0 to marginL.
func writeLanes(b *strings.Builder, l *lay) {
	for i := range l.lanes {
		y := marginT + i*laneH + laneH/2
		fmt.Fprintf(b, `<text x="6" y="%d" fill="#777">lane %d</text>`+"\n", y+4, i+1)
	}
}

// writeTimeline writes the lanes' lines and the operations, from x 0.
// openView is about the width of the timeline a window shows when the
// page opens (1400 pixels wide, less the lane names and margins).
const openView = 1200

func writeTimeline(b *strings.Builder, l *lay) {
	right := l.width - rightPad + pendingRun
	for i := range l.lanes {
		y := marginT + i*laneH + laneH/2
		fmt.Fprintf(b, `<line x1="0" y1="%d" x2="%d" y2="%d" stroke="#eee"/>`+"\n", y, right, y)
	}
	var marks strings.Builder
	violation := slices.ContainsFunc(l.ops, func(o Op) bool { return o.Violation })
	for i, o := range l.ops {
		y := marginT + l.lane[i]*laneH + (laneH-barH)/2
		x0 := l.x(o.Call)
		x1 := right
		if o.Return >= 0 {
			x1 = l.x(o.Return)
		}
		if x1-x0 < 8 {
			x1 = x0 + 8
		}
		cls := "op"
		if o.Core {
			cls += " core"
		}
		if o.Return < 0 {
			cls += " pending"
		}
		if o.Dropped {
			cls += " dropped"
		}
		// Operations checked from a slice (the library's Check) have no
		// log lines: they say only what they are.
		var lines string
		if o.CallLine > 0 {
			lines = fmt.Sprintf(" (line %d", o.CallLine)
			if o.ReturnLine > 0 {
				lines += fmt.Sprintf("–%d", o.ReturnLine)
			}
		}
		if o.Return < 0 {
			lines += map[bool]string{true: ", pending", false: " (pending"}[lines != ""]
		}
		if lines != "" {
			lines += ")"
		}
		label := fit(fmt.Sprintf("[%s] %s", o.ID, o.Label), x1-x0, o.Core)
		fmt.Fprintf(b, `<g class="%s" data-id="%s"><title>[%s] %s%s</title><rect x="%d" y="%d" width="%d" height="%d" rx="3"/><text x="%d" y="%d">%s</text>`,
			cls, html.EscapeString(o.ID), html.EscapeString(o.ID), html.EscapeString(o.Label), lines,
			x0, y, x1-x0, barH, x0+3, y+barH-5, html.EscapeString(label))
		if full := fmt.Sprintf("[%s] %s", o.ID, o.Label); label == full && x1-x0 > 3*textW(full, o.Core) && (o.Return < 0 || violation && x0 < l.width-openView) {
			// A long bar also says what it is at its end, which is in
			// view when the page opens at the right end (a violation's,
			// HTML) while its start may not be: a pending operation's,
			// and one that starts left of what a window shows first.
			fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end" fill-opacity="0.75">%s</text>`, x1-6, y+barH-5, html.EscapeString(full))
		}
		b.WriteString("</g>\n")
		if o.Order > 0 {
			fmt.Fprintf(&marks, `<text class="ord halo" x="%d" y="%d">#%d</text>`+"\n", x0, y-2, o.Order)
		}
		if o.Violation && o.Return >= 0 {
			// The mark is a red tick just past the bar's end and a note to
			// its right, on a halo: it crosses no label.
			fmt.Fprintf(&marks, `<g class="violation" id="violation" data-id="%s"><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#c0392b" stroke-width="3"/><text class="halo" x="%d" y="%d" fill="#c0392b" font-weight="bold">← violation proved here%s</text></g>`+"\n",
				html.EscapeString(o.ID), x1+2, y-4, x1+2, y+barH+4, x1+8, y+barH-5, provedAt(o.ReturnLine))
		}
	}
	b.WriteString(marks.String())
}

// provedAt names the log line of the proving return, when there is one.
func provedAt(line int) string {
	if line <= 0 {
		return ""
	}
	return fmt.Sprintf(" (line %d)", line)
}
