package logfmt

import (
	"strings"

	"github.com/satmon/satmon/internal/history"
)

// ObjectDecl is one object of a log: its name ("" for the object of a log
// of one object), its kind and its parameter, and the line that declared
// it (0 when it was declared implicitly, as a key of a key-value log).
type ObjectDecl struct {
	Name  string
	Kind  history.Object
	Param string
	Line  int
}

// Label is how messages name the object: its name, or its kind for the
// object of a log of one object.
func (d *ObjectDecl) Label() string {
	if d.Name == "" {
		return d.Kind.String()
	}
	return d.Name
}

// Event is one action of a log together with the object it addresses.
// Action.Seq counts the actions of the whole log, not of one object.
type Event struct {
	Object *ObjectDecl
	history.Action
	// Abandon (only with Options.Abandons): the open operation Action.ID
	// will never return; Action holds nothing else. It may have taken
	// effect at any time after its call, or never.
	Abandon bool
}

// Source is a log read as a stream of events: the native format (one
// object or many) or a foreign one (NewSource). NextEvent returns io.EOF at
// the clean end and a positioned *Error for a malformed log.
type Source interface {
	NextEvent() (Event, error)
}

// NextEvent is Next with the object the action addresses. Events of one
// object share one *ObjectDecl.
func (r *Reader) NextEvent() (Event, error) {
	var a history.Action
	r.wantCrash = r.opt.Abandons
	err := r.NextInto(&a)
	r.wantCrash = false
	if err != nil {
		return Event{}, err
	}
	return Event{Object: r.last, Action: a, Abandon: r.crash}, nil
}

// NextIntoCrash is NextInto that also returns the log's "[ID] crash"
// lines (docs/format.md), whatever Options.Abandons says: crash reports
// one, and *a then holds only its ID and Line.
func (r *Reader) NextIntoCrash(a *history.Action) (crash bool, err error) {
	r.wantCrash = true
	err = r.NextInto(a)
	r.wantCrash = false
	return err == nil && r.crash, err
}

// Named reports whether the log declares its objects by name
// ('# @object NAME KIND'), as far as it has been read.
func (r *Reader) Named() bool { return r.named != nil }

// parseDecl reads the rest of '# @object NAME KIND [PARAM]'; name is the
// token after '@object', which is not a kind. Declarations may come
// anywhere before the object's first action, so that a live log can bring
// in new objects.
func (r *Reader) parseDecl(lx *lexer, name token) error {
	if r.opt.Object != history.NoObject {
		return r.errorf(name.pos, "'# @object NAME KIND' declares one of many objects; --object applies only to logs of one object")
	}
	if i := strings.IndexByte(name.text, '.'); i >= 0 {
		return r.errorf(name.pos+i, "object name %s contains '.', which separates the object from the method in 'NAME.method'", quote(name.text))
	}
	if d, dup := r.named[name.text]; dup {
		return r.errorf(name.pos, "object %s declared twice (first at line %d)", quote(name.text), d.Line)
	}
	kt := lx.next()
	if kt.kind != tWord {
		if r.started || r.named != nil {
			return r.errorf(kt.pos, "missing kind after object name %s; expected '# @object NAME KIND [PARAM]', kinds: %s", quote(name.text), objectList())
		}
		return r.errorf(name.pos, "unknown object %s; valid objects: %s; or declare a named object with '# @object NAME KIND [PARAM]'", quote(name.text), objectList())
	}
	kind, ok := history.ParseObject(kt.text)
	if !ok {
		// Neither word is a kind: '# @object stak 3' misspells the kind
		// of a log of one object, '# @object q1 stak' the kind of a named
		// object. The word that looks like a kind is the misspelt one.
		if r.named == nil && !r.started && nearKind(name.text) && !nearKind(kt.text) {
			return r.errorf(name.pos, "unknown object %s; valid objects: %s", quote(name.text), objectList())
		}
		return r.errorf(kt.pos, "unknown kind %s for object %s; kinds: %s", quote(kt.text), quote(name.text), objectList())
	}
	if r.started && r.named == nil {
		return r.errorf(name.pos, "'# @object NAME KIND' after actions of a log without named objects")
	}
	d := &ObjectDecl{Name: strings.Clone(name.text), Kind: kind, Line: r.line}
	t := lx.next()
	if t.kind == tWord {
		if msg := checkParam(kind, t.text); msg != "" {
			return r.errorf(t.pos, "bad parameter: %s", msg)
		}
		d.Param = strings.Clone(t.text)
		t = lx.next()
	}
	if !isEnd(t) {
		return r.errorf(t.pos, "unexpected %s in declaration; expected '# @object NAME KIND [PARAM]'", t.describe())
	}
	if r.named == nil {
		r.named = map[string]*ObjectDecl{}
	}
	r.named[d.Name] = d
	return nil
}

// callee finds the object a call addresses. In a log of named objects the
// method token is NAME.method; m is cut down to the method.
func (r *Reader) callee(m *token) (*ObjectDecl, error) {
	if r.named == nil {
		if r.single == nil || r.single.Kind != r.obj {
			r.single = &ObjectDecl{Kind: r.obj, Param: r.param, Line: r.headerLine}
		}
		return r.single, nil
	}
	i := strings.IndexByte(m.text, '.')
	if i < 0 {
		return nil, r.errorf(m.pos, "method %s names no object: in a log of named objects a call is '[ID] call NAME.method(ARGS)'", quote(m.text))
	}
	d, ok := r.named[m.text[:i]]
	if !ok {
		return nil, r.errorf(m.pos, "unknown object %s: declare it with '# @object %s KIND [PARAM]' before its first call", quote(m.text[:i]), m.text[:i])
	}
	if i+1 >= len(m.text) {
		return nil, r.errorf(m.pos+i+1, "missing method name after %s", quote(m.text[:i+1]))
	}
	m.text, m.pos = m.text[i+1:], m.pos+i+1
	return d, nil
}

// nearKind reports whether w looks like a misspelt kind: a kind's name,
// with or without 'atomic-', within two edits of it.
func nearKind(w string) bool {
	w = strings.TrimPrefix(strings.ToLower(w), "atomic-")
	for _, o := range history.Objects {
		k := strings.TrimPrefix(o.String(), "atomic-")
		if editDistance(w, k) <= 2 || len(w) >= 3 && strings.HasPrefix(k, w) {
			return true
		}
	}
	return false
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
