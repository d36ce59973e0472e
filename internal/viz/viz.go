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

const maxLabel = 24

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
	step    = 46 // per action position: room for a short label
	marginL = 70
	marginT = 58
)

// SVG writes the drawing as a standalone SVG document.
func SVG(w io.Writer, d *Drawing) error {
	var b strings.Builder
	writeSVG(&b, d)
	_, err := io.WriteString(w, b.String())
	return err
}

// HTML writes one self-contained HTML page: the SVG inline, the text
// below it; no scripts, fonts or other fetches. A timeline wider than the
// window opens scrolled to its right end, where the violation is.
func HTML(w io.Writer, d *Drawing) error {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
	b.WriteString(html.EscapeString(d.Title))
	b.WriteString("</title>\n<style>body{font-family:sans-serif;margin:1em}pre{font-size:13px;background:#f6f6f6;padding:.6em}" +
		".wrap{overflow-x:auto;border:1px solid #ddd;direction:rtl}.wrap svg{direction:ltr}</style></head><body>\n<h1 style=\"font-size:18px\">")
	b.WriteString(html.EscapeString(d.Title))
	b.WriteString("</h1>\n<div class=\"wrap\">\n")
	writeSVG(&b, d)
	b.WriteString("</div>\n<pre>")
	b.WriteString(html.EscapeString(strings.Join(d.Text, "\n")))
	b.WriteString("</pre>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func clip(s string) string {
	r := []rune(s)
	if len(r) > maxLabel {
		return string(r[:maxLabel-1]) + "…"
	}
	return s
}

func writeSVG(b *strings.Builder, d *Drawing) {
	ops, omitted := window(d.Ops)
	lane, nl := lanes(ops)
	// x: the action positions present, ranked, so gaps left by the
	// window take no room.
	var pos []int
	for _, o := range ops {
		pos = append(pos, o.Call)
		if o.Return >= 0 {
			pos = append(pos, o.Return)
		}
	}
	slices.Sort(pos)
	pos = slices.Compact(pos)
	x := func(p int) int {
		i, _ := slices.BinarySearch(pos, p)
		return marginL + i*step
	}
	right := marginL + 6*step
	if len(pos) > 0 {
		right += x(pos[len(pos)-1]) - marginL
	}
	width := max(right+260, 900)
	height := marginT + nl*laneH + 30
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	b.WriteString(`<style>.op rect{fill:#c9d6e3;stroke:#6b7f94}.op.core rect{fill:#f4a261;stroke:#c0392b;stroke-width:2.5}` +
		`.op.dropped rect{fill:#eee;stroke:#bbb;stroke-dasharray:3 2}.op.pending rect{stroke-dasharray:5 3}` +
		`.op text{fill:#222}.op.core text{font-weight:bold}.ord{fill:#1b5e20;font-weight:bold}</style>` + "\n")
	// Legend.
	fmt.Fprintf(b, `<g class="legend"><rect x="10" y="8" width="14" height="10" fill="#f4a261" stroke="#c0392b" stroke-width="2"/><text x="30" y="17">core: these operations alone are not linearizable</text>`)
	fmt.Fprintf(b, `<line x1="340" y1="6" x2="340" y2="20" stroke="#c0392b" stroke-width="3"/><text x="346" y="17">return that proved the violation</text>`)
	fmt.Fprintf(b, `<text x="540" y="17" class="ord">#n</text><text x="562" y="17">place in the witness linearization</text>`)
	if omitted > 0 {
		fmt.Fprintf(b, `<text x="10" y="36" fill="#555">%d operations far from the violation are not drawn</text>`, omitted)
	}
	b.WriteString("</g>\n")
	for l := range nl {
		y := marginT + l*laneH
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#eee"/><text x="6" y="%d" fill="#777">lane %d</text>`+"\n",
			marginL-8, y+laneH/2, right, y+laneH/2, y+laneH/2+4, l+1)
	}
	var marks strings.Builder
	for i, o := range ops {
		y := marginT + lane[i]*laneH + (laneH-barH)/2
		x0 := x(o.Call)
		x1 := right - step
		if o.Return >= 0 {
			x1 = x(o.Return)
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
		lines := fmt.Sprintf("line %d", o.CallLine)
		if o.ReturnLine > 0 {
			lines += fmt.Sprintf("–%d", o.ReturnLine)
		} else if o.Return < 0 {
			lines += ", pending"
		}
		fmt.Fprintf(b, `<g class="%s" data-id="%s"><title>[%s] %s (%s)</title><rect x="%d" y="%d" width="%d" height="%d" rx="3"/><text x="%d" y="%d">[%s] %s</text></g>`+"\n",
			cls, html.EscapeString(o.ID), html.EscapeString(o.ID), html.EscapeString(o.Label), lines,
			x0, y, x1-x0, barH, x0+3, y+barH-5, html.EscapeString(o.ID), html.EscapeString(clip(o.Label)))
		if o.Order > 0 {
			fmt.Fprintf(&marks, `<text class="ord" x="%d" y="%d">#%d</text>`+"\n", x0, y-2, o.Order)
		}
		if o.Violation && o.Return >= 0 {
			fmt.Fprintf(&marks, `<g class="violation" data-id="%s"><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#c0392b" stroke-width="3"/><text x="%d" y="%d" fill="#c0392b" font-weight="bold">violation proved here (line %d)</text></g>`+"\n",
				html.EscapeString(o.ID), x1, y-6, x1, y+barH+6, x1+4, y-6, o.ReturnLine)
		}
	}
	b.WriteString(marks.String())
	b.WriteString("</svg>\n")
}
