package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/explain"
	"github.com/satmon/satmon/internal/multi"
)

// drawLog writes the pictures of a log of many objects (or of a Jepsen,
// EDN or JSON history, even of one object): one object is drawn, the one
// --draw names, else the first in violation in the log, else the first
// object. Its name (the key) is in the title, and the text under the
// picture says which of the log's objects it is. It returns false, having
// said why, when nothing could be drawn.
func (x *explainFlags) drawLog(stderr io.Writer, lr multi.LogResult, opt engine.Options) bool {
	o, why := pickObject(lr, x.draw)
	if o == nil {
		fmt.Fprintf(stderr, "satmon check: %s: %s\n", lr.File, why)
		x.failed = true
		return false
	}
	ex := o.Explanation
	if ex == nil || ex.History == nil {
		fmt.Fprintf(stderr, "satmon check: %s: object %s: no history kept to draw\n", lr.File, o.Name)
		x.failed = true
		return false
	}
	res := o.Result
	if res.Verdict == engine.OK && res.Exact && ex.Witness == nil && ex.Note == "" {
		limit := opt.Timeout
		if limit <= 0 {
			limit = explain.ExplainLimit
		}
		if w, err := explain.FindWitness(ex.History, limit); err != nil {
			ex.Note = "no witness: " + err.Error()
		} else if w != nil {
			ex.Witness = w
		}
	}
	text := explainText(res, ex, x.derivation(res, ex))
	text = append([]string{why}, text...)
	return x.write(stderr, drawing(pictureTitle(res, o.Name), res, ex, text))
}

// pickObject chooses the object of lr to draw (see drawLog) and says why
// it was chosen, or, when none is, why not.
func pickObject(lr multi.LogResult, name string) (*multi.ObjectResult, string) {
	n := len(lr.Objects)
	if name != "" {
		for i := range lr.Objects {
			if lr.Objects[i].Name == name {
				return &lr.Objects[i], fmt.Sprintf("drawn: object %s (--draw), one of the log's %d objects", name, n)
			}
		}
		return nil, fmt.Sprintf("--draw %s: no object of that name in the log; its objects: %s", name, objectNames(lr))
	}
	if n == 0 {
		return nil, "no operations to draw"
	}
	bad := 0
	for _, o := range lr.Objects {
		if o.Verdict == engine.Violation {
			bad++
		}
	}
	if n == 1 {
		return &lr.Objects[0], "drawn: the log's only object"
	}
	other := "; --draw NAME draws another"
	if lr.ViolationObject != "" || bad > 0 {
		for i := range lr.Objects {
			if o := &lr.Objects[i]; o.Verdict == engine.Violation && (o.Name == lr.ViolationObject || lr.ViolationObject == "") {
				return o, fmt.Sprintf("drawn: object %s, the first proven in violation (%d of the log's %d objects are)%s", label(o), bad, n, other)
			}
		}
	}
	return &lr.Objects[0], fmt.Sprintf("drawn: object %s, the first of the log's %d objects%s", label(&lr.Objects[0]), n, other)
}

func label(o *multi.ObjectResult) string {
	if o.Name == "" {
		return o.Object
	}
	return o.Name
}

// objectNames lists the names of lr's objects, the first 20 of them.
func objectNames(lr multi.LogResult) string {
	var names []string
	for i := range lr.Objects {
		if i == 20 {
			names = append(names, fmt.Sprintf("… (%d in all)", len(lr.Objects)))
			break
		}
		names = append(names, label(&lr.Objects[i]))
	}
	return strings.Join(names, ", ")
}
