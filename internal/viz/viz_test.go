package viz

import (
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
)

// drawing is a small history: a short and a long completed operation, a
// pending one, and optionally a core and a violation.
func drawing(violation bool) *Drawing {
	d := &Drawing{Title: "t", Ops: []Op{
		{ID: "1", Label: "add(123456789)", Call: 0, Return: 1},
		{ID: "2", Label: "rem ⇒ 123456789", Call: 2, Return: 5},
		{ID: "3", Label: "rem ⇒ ⊥", Call: 3, Return: -1},
		{ID: "4", Label: "add(7)", Call: 4, Return: 6},
		// A hasty operation with a long label among short ones: its
		// label is cut, not the timeline widened for it.
		{ID: "5", Label: "add(a value far too long for one step)", Call: 7, Return: 8},
	}}
	for i := range 6 {
		d.Ops = append(d.Ops, Op{ID: fmt.Sprint(10 + i), Label: "rem", Call: 9 + 2*i, Return: 10 + 2*i})
	}
	if violation {
		d.Ops[1].Core, d.Ops[1].Violation = true, true
		d.Ops[3].Core = true
	}
	return d
}

// bars parses an SVG and returns, per operation group, its bar's width
// and its label.
func bars(t *testing.T, svg string) map[string]struct {
	width int
	label string
} {
	t.Helper()
	out := map[string]struct {
		width int
		label string
	}{}
	dec := xml.NewDecoder(strings.NewReader(svg))
	var id string
	var width int
	inText := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch e := tok.(type) {
		case xml.StartElement:
			for _, a := range e.Attr {
				switch {
				case e.Name.Local == "g" && a.Name.Local == "data-id" && strings.Contains(attr(e, "class"), "op"):
					id = a.Value
				case e.Name.Local == "rect" && a.Name.Local == "width" && id != "":
					fmt.Sscan(a.Value, &width)
				}
			}
			inText = e.Name.Local == "text" && id != ""
		case xml.CharData:
			if inText {
				out[id] = struct {
					width int
					label string
				}{width, string(e)}
			}
		case xml.EndElement:
			if e.Name.Local == "g" {
				id = ""
			}
			inText = false
		}
	}
	return out
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// No label is wider than its bar (as estimated), and the core's labels
// are whole.
func TestLabelsFitBars(t *testing.T) {
	var b strings.Builder
	if err := SVG(&b, drawing(true)); err != nil {
		t.Fatal(err)
	}
	got := bars(t, b.String())
	if len(got) != 11 {
		t.Fatalf("%d labelled bars, want 11:\n%s", len(got), b.String())
	}
	if !strings.HasSuffix(got["5"].label, "…") {
		t.Errorf("[5]: label %q not cut", got["5"].label)
	}
	for id, g := range got {
		if w := textW(g.label, id == "2" || id == "4"); w > g.width {
			t.Errorf("[%s]: label %q (%d px) on a bar of %d px", id, g.label, w, g.width)
		}
	}
	for _, id := range []string{"2", "4"} {
		if strings.HasSuffix(got[id].label, "…") {
			t.Errorf("core operation [%s]: label cut to %q", id, got[id].label)
		}
	}
}

// The legend explains what is drawn and only that; the HTML page keeps
// the legend and the lane names out of the timeline's scrolling box.
func TestLegend(t *testing.T) {
	for _, violation := range []bool{false, true} {
		var b strings.Builder
		if err := HTML(&b, drawing(violation)); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		for _, c := range []struct {
			text string
			want bool
		}{
			{"core: these operations alone are not linearizable", violation},
			{"the return that proved the violation", violation},
			{"dashed, to the right edge: pending", true},
			{"⇒ ⊥: no return value", true},
			{"place in the witness", false},
		} {
			if strings.Contains(page, c.text) != c.want {
				t.Errorf("violation %v: legend has %q: %v, want %v", violation, c.text, !c.want, c.want)
			}
		}
		legend := strings.Index(page, `class="legend"`)
		lanes := strings.Index(page, `class="lanes"`)
		wrap := strings.Index(page, `class="wrap`)
		if legend < 0 || lanes < 0 || wrap < 0 || !(legend < lanes && lanes < wrap) {
			t.Errorf("legend at %d, lane names at %d, scrolling box at %d: want them in that order, the first two outside the box", legend, lanes, wrap)
		}
		if !strings.Contains(page, "white-space:pre-wrap") {
			t.Errorf("the text under the picture does not wrap")
		}
	}
}
