package logfmt

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"olympos.io/encoding/edn"

	"github.com/satmon/satmon/internal/history"
)

// Format is a log format satmon reads.
type Format uint8

// The formats. Auto recognises the others from the content.
const (
	Auto   Format = iota
	Native        // satmon's own format (docs/format.md)
	Jepsen        // Jepsen's log lines: "INFO  jepsen.util - 3	:invoke	:read	nil"
	EDN           // one EDN event map per line: {:process 0, :type :invoke, :f :read, ...}
	JSON          // one JSON event object per line, with the fields of the EDN maps
)

var formatNames = [...]string{Auto: "auto", Native: "native", Jepsen: "jepsen", EDN: "edn", JSON: "json"}

func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "format(" + strconv.Itoa(int(f)) + ")"
}

// ParseFormat reads a format name: auto, native (or satmon), jepsen (or
// etcd), edn, json (or jsonl).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "auto", "":
		return Auto, nil
	case "native", "satmon":
		return Native, nil
	case "jepsen", "etcd":
		return Jepsen, nil
	case "edn":
		return EDN, nil
	case "json", "jsonl":
		return JSON, nil
	}
	return Auto, fmt.Errorf("unknown input format %q (want auto, native, jepsen, edn or json)", s)
}

// sniffSize is the most of a log Detect and NamedObjects look at.
const sniffSize = 64 << 10

// peekLines calls decide on the lines at the start of br that are
// complete, reading more (without consuming it) only while decide cannot
// tell yet: on a live pipe, the first lines suffice and nothing waits for
// sniffSize bytes. decide returns done=false to see more lines.
func peekLines(br *bufio.Reader, decide func(line []byte) (done bool)) {
	seen := 0 // bytes of complete lines already decided on
	for {
		buf, err := br.Peek(br.Buffered())
		buf = buf[seen:]
		for {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				break
			}
			if decide(trimLine(buf[:i], seen == 0)) {
				return
			}
			seen += i + 1
			buf = buf[i+1:]
		}
		if err != nil || br.Buffered() >= min(br.Size(), sniffSize) {
			if len(buf) > 0 {
				decide(trimLine(buf, seen == 0)) // the last line, without newline
			}
			return
		}
		// One more byte than buffered: bufio reads once, as much as comes.
		if _, err := br.Peek(br.Buffered() + 1); err != nil {
			if buf, _ := br.Peek(br.Buffered()); len(buf) > seen {
				decide(trimLine(buf[seen:], seen == 0))
			}
			return
		}
	}
}

// trimLine trims a line's spaces, and a byte-order mark on the first.
func trimLine(line []byte, first bool) []byte {
	if first {
		line = bytes.TrimPrefix(line, []byte("\ufeff"))
	}
	return bytes.TrimSpace(line)
}

// Detect recognises a log's format from its first line that is neither
// blank nor a '#' comment: '{"' starts a JSON event, '{' an EDN one, a
// line with a ':invoke', ':ok', ':fail' or ':info' field is Jepsen's, and
// anything else is the native format (which reports what is wrong with
// it). It reads from br without consuming anything, and no further than
// that line.
func Detect(br *bufio.Reader) Format {
	f := Native
	peekLines(br, func(line []byte) bool {
		if len(line) == 0 || line[0] == '#' {
			return false
		}
		switch {
		case bytes.HasPrefix(line, []byte(`{"`)):
			f = JSON
		case line[0] == '{':
			f = EDN
		case line[0] == '[':
			f = Native
		default:
			for _, w := range bytes.Fields(line) {
				switch string(w) {
				case ":invoke", ":ok", ":fail", ":info":
					f = Jepsen
					return true
				}
			}
		}
		return true
	})
	return f
}

// NamedObjects reports whether a native log declares named objects
// ('# @object NAME KIND', NAME not a kind) before its first action,
// looking at what br holds without consuming it. A log of one object
// reads as it always has.
func NamedObjects(br *bufio.Reader) bool {
	named := false
	peekLines(br, func(line []byte) bool {
		if len(line) > 0 && line[0] == '[' {
			return true
		}
		rest, ok := bytes.CutPrefix(line, []byte("#"))
		if !ok {
			return false
		}
		rest, ok = bytes.CutPrefix(bytes.TrimSpace(rest), []byte("@object"))
		if !ok || len(rest) == 0 || rest[0] != ' ' && rest[0] != '\t' {
			return false
		}
		if f := bytes.Fields(rest); len(f) >= 2 {
			_, kind := history.ParseObject(string(f[0]))
			named = !kind
		}
		return true
	})
	return named
}

// NewSource returns the events of the log r in format f (Auto: detected
// from the content). A native log of one object yields the events of
// that object, with Object.Name "". Jepsen's logs and EDN or JSON event
// maps yield one object per :key (one object named "" when events have
// no key), of the kind of the family of their operations (kernels.go);
// opt.Object, when set, must be the kind of a family, which then applies.
func NewSource(r io.Reader, f Format, opt Options) (Source, error) {
	if f == Auto {
		br, ok := r.(*bufio.Reader)
		if !ok {
			br = bufio.NewReaderSize(r, sniffSize)
		}
		r, f = br, Detect(br)
	}
	if f == Native {
		return NewReader(r, opt), nil
	}
	var fam *family
	if opt.Object != history.NoObject {
		for _, c := range families {
			if c.kind == opt.Object {
				fam = c
				break
			}
		}
		if fam == nil {
			return nil, fmt.Errorf("%s logs run on a compare-and-set or string register, not on %s", f, opt.Object)
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLine+2)
	file := opt.Name
	if file == "" {
		file = "<input>"
	}
	return &eventReader{sc: sc, file: file, format: f, forced: fam, abandons: opt.Abandons,
		objects: map[string]*ObjectDecl{}, procs: map[string]*procOp{}, gen: map[string]int{}}, nil
}

// rawEvent is one Jepsen event, in any of the foreign formats.
type rawEvent struct {
	process string
	typ     string // invoke, ok, fail, info
	f       string
	key     string
	hasKey  bool
	value   ednValue
}

// procOp is the operation a process has open.
type procOp struct {
	id    string
	f     string
	op    jepsenOp
	obj   *ObjectDecl
	label history.Label
	line  int
}

// eventReader reads Jepsen events and turns them into satmon's actions:
// a process's :invoke is a call, its next :ok (or a :fail that is an
// outcome) the return. :info, and a :fail that says the operation had no
// effect, leave the operation pending to the end: it may have taken
// effect at any time after its call. The process may then invoke again;
// its new operation gets a fresh id ("3", then "3~1", "3~2", ...).
type eventReader struct {
	abandons bool
	sc       *bufio.Scanner
	file     string
	format   Format
	forced   *family
	line     int
	seq      int

	objects map[string]*ObjectDecl // by key
	procs   map[string]*procOp     // by process: the open operation
	gen     map[string]int         // by process: operations it left pending
	err     error
	eof     bool
}

func (r *eventReader) errorf(format string, args ...any) *Error {
	return &Error{File: r.file, Line: r.line, Col: 1, Msg: fmt.Sprintf(format, args...)}
}

// NextEvent implements Source.
func (r *eventReader) NextEvent() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	if r.eof {
		return Event{}, io.EOF
	}
	for r.sc.Scan() {
		r.line++
		s := r.sc.Text()
		if r.line == 1 {
			s = strings.TrimPrefix(s, "\ufeff")
		}
		s = strings.TrimSpace(s)
		if s == "" || s[0] == '#' {
			continue
		}
		var ev rawEvent
		var err error
		switch r.format {
		case Jepsen:
			ev, err = parseJepsenLine(s)
		case EDN:
			ev, err = parseEDNLine(s)
		default:
			ev, err = parseJSONLine(s)
		}
		if err == nil && (ev.process == ":nemesis" || ev.process == "nemesis") {
			continue // a fault injected by Jepsen, not an operation
		}
		var e Event
		var ok bool
		if err == nil {
			e, ok, err = r.apply(ev)
		}
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				err = r.errorf("%s", err.Error())
			}
			r.err = err
			return Event{}, err
		}
		if ok {
			if !e.Abandon {
				r.seq++
			}
			return e, nil
		}
	}
	if err := r.sc.Err(); err != nil {
		msg := "read error: " + err.Error()
		if errors.Is(err, bufio.ErrTooLong) {
			msg = fmt.Sprintf("line too long: more than %d bytes", MaxLine)
		}
		r.err = &Error{File: r.file, Line: r.line + 1, Col: 1, Msg: msg}
		return Event{}, r.err
	}
	r.eof = true
	return Event{}, io.EOF
}

// apply turns one Jepsen event into an action, if it makes one.
func (r *eventReader) apply(ev rawEvent) (Event, bool, error) {
	if ev.process == "" || ev.typ == "" || ev.f == "" {
		return Event{}, false, fmt.Errorf("an event needs :process, :type and :f")
	}
	open := r.procs[ev.process]
	if ev.typ == "invoke" {
		if open != nil {
			return Event{}, false, fmt.Errorf("process %s invokes %s while its %s from line %d is open (only :ok, :fail or :info closes it)", ev.process, ev.f, open.f, open.line)
		}
		fam := r.forced
		if fam == nil {
			fam = familyOf(ev.f)
		}
		op, ok := jepsenOp{}, false
		if fam != nil {
			op, ok = fam.ops[ev.f]
		}
		if !ok {
			return Event{}, false, fmt.Errorf("unknown operation :%s; known: %s", ev.f, knownOps())
		}
		obj, err := r.object(ev, fam)
		if err != nil {
			return Event{}, false, err
		}
		l, err := op.call(ev.value)
		if err != nil {
			return Event{}, false, fmt.Errorf(":%s: %v", ev.f, err)
		}
		l.Pending, l.Ret = true, history.Void
		id := ev.process
		if g := r.gen[ev.process]; g > 0 {
			id += "~" + strconv.Itoa(g)
		}
		r.procs[ev.process] = &procOp{id: id, f: ev.f, op: op, obj: obj, label: l, line: r.line}
		return Event{Object: obj, Action: history.Action{Kind: history.Call, ID: id, Label: l, Seq: r.seq, Line: r.line}}, true, nil
	}
	if open == nil {
		return Event{}, false, fmt.Errorf(":%s of :%s by process %s, which has no operation open", ev.typ, ev.f, ev.process)
	}
	if ev.f != open.f {
		return Event{}, false, fmt.Errorf(":%s of :%s by process %s, whose open operation is :%s (line %d)", ev.typ, ev.f, ev.process, open.f, open.line)
	}
	if ev.hasKey && open.obj.Name != keyName(ev) {
		return Event{}, false, fmt.Errorf(":%s for key %s by process %s, whose open operation is on key %s (line %d)", ev.typ, quote(ev.key), ev.process, quote(open.obj.Name), open.line)
	}
	var ret history.Value
	switch ev.typ {
	case "ok":
		v, err := open.op.ok(ev.value)
		if err != nil {
			return Event{}, false, fmt.Errorf(":ok :%s: %v", ev.f, err)
		}
		ret = v
	case "fail":
		v, constrains := open.op.fail(ev.value)
		if !constrains {
			return r.leavePending(ev.process, open)
		}
		ret = v
	case "info":
		return r.leavePending(ev.process, open)
	default:
		return Event{}, false, fmt.Errorf("unknown event type :%s (want :invoke, :ok, :fail or :info)", ev.typ)
	}
	delete(r.procs, ev.process)
	l := open.label
	l.Pending, l.Ret = false, ret
	return Event{Object: open.obj, Action: history.Action{Kind: history.Return, ID: open.id, Label: l, Seq: r.seq, Line: r.line}}, true, nil
}

// leavePending closes a process's operation without a return: it stays
// open in the history to the end. With Options.Abandons an event says so.
func (r *eventReader) leavePending(process string, open *procOp) (Event, bool, error) {
	delete(r.procs, process)
	r.gen[process]++
	if !r.abandons {
		return Event{}, false, nil
	}
	return Event{Object: open.obj, Action: history.Action{ID: open.id, Line: r.line}, Abandon: true}, true, nil
}

func keyName(ev rawEvent) string {
	if !ev.hasKey {
		return ""
	}
	return ev.key
}

// object is the object an invoke addresses: one per key, of the family of
// its first operation.
func (r *eventReader) object(ev rawEvent, fam *family) (*ObjectDecl, error) {
	name := keyName(ev)
	if d, ok := r.objects[name]; ok {
		if d.Kind != fam.kind || d.Param != fam.param {
			return nil, fmt.Errorf(":%s is an operation of a %s, but %s was first used as another object", ev.f, fam.name, objectWord(name))
		}
		return d, nil
	}
	d := &ObjectDecl{Name: name, Kind: fam.kind, Param: fam.param}
	r.objects[name] = d
	return d, nil
}

func objectWord(key string) string {
	if key == "" {
		return "the log's object"
	}
	return "key " + quote(key)
}

func knownOps() string {
	var parts []string
	for _, fam := range families {
		var names []string
		for _, n := range []string{"read", "write", "cas", "put", "get", "append"} {
			if _, ok := fam.ops[n]; ok {
				names = append(names, ":"+n)
			}
		}
		parts = append(parts, strings.Join(names, " ")+" ("+fam.name+")")
	}
	return strings.Join(parts, "; ")
}

// parseJepsenLine reads "… PROCESS	:TYPE	:F	VALUE": the fields after
// the logger's prefix, whitespace-separated; VALUE, to the end of the
// line, is read as EDN.
func parseJepsenLine(s string) (rawEvent, error) {
	var ev rawEvent
	type field struct {
		text     string
		from, to int
	}
	var fs []field
	for i := 0; i < len(s); {
		i = skipSpace(s, i)
		if i >= len(s) {
			break
		}
		j := i
		for j < len(s) && !asciiSpace(s[j]) {
			j++
		}
		fs = append(fs, field{s[i:j], i, j})
		i = j
	}
	t := -1
	for k, f := range fs {
		switch f.text {
		case ":invoke", ":ok", ":fail", ":info":
			t = k
		}
		if t >= 0 {
			break
		}
	}
	switch {
	case t < 0:
		return ev, fmt.Errorf("not a Jepsen operation line: expected 'PROCESS :invoke|:ok|:fail|:info :F VALUE'")
	case t == 0:
		return ev, fmt.Errorf("missing process before %s", fs[t].text)
	case t+1 >= len(fs) || !strings.HasPrefix(fs[t+1].text, ":") || len(fs[t+1].text) < 2:
		return ev, fmt.Errorf("missing operation (:read, :write, ...) after %s", fs[t].text)
	}
	ev.process = fs[t-1].text
	ev.typ = fs[t].text[1:]
	ev.f = fs[t+1].text[1:]
	if t+2 < len(fs) {
		text := s[fs[t+2].from:]
		v, err := decodeEDN(text)
		if err != nil {
			return ev, fmt.Errorf("bad value %s: %v", quote(text), err)
		}
		ev.value = ednValue{v}
	}
	return ev, nil
}

// decodeEDN reads exactly one EDN value from s.
func decodeEDN(s string) (any, error) {
	if v, ok := fastEDN(s); ok {
		return v, nil
	}
	d := edn.NewDecoder(strings.NewReader(s))
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var extra any
	if err := d.Decode(&extra); err != io.EOF {
		return nil, fmt.Errorf("more than one value")
	}
	return normalize(v), nil
}

// normalize turns the EDN decoder's keywords and symbols into strings
// marked as such, so that the rest of the reader sees plain Go values.
func normalize(v any) any {
	switch x := v.(type) {
	case edn.Keyword:
		return keyword(x)
	case edn.Symbol:
		return keyword(x)
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
	}
	return v
}

// keyword is an EDN keyword or symbol; it prints without its colon.
type keyword string

func (k keyword) String() string { return string(k) }

// parseEDNLine reads one EDN event map.
func parseEDNLine(s string) (rawEvent, error) {
	v, err := decodeEDN(s)
	if err != nil {
		return rawEvent{}, fmt.Errorf("bad EDN event: %v", err)
	}
	m, ok := v.(map[any]any)
	if !ok {
		return rawEvent{}, fmt.Errorf("expected an EDN map {:process …, :type …, :f …}, found %s", (ednValue{v}).describe())
	}
	fields := map[string]any{}
	for k, x := range m {
		kw, ok := k.(edn.Keyword)
		if !ok {
			return rawEvent{}, fmt.Errorf("event map key %v is not a keyword", k)
		}
		fields[string(kw)] = normalize(x)
	}
	return eventFields(fields)
}

// parseJSONLine reads one JSON event object.
func parseJSONLine(s string) (rawEvent, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return rawEvent{}, fmt.Errorf("bad JSON event: %v", err)
	}
	if d.More() {
		return rawEvent{}, fmt.Errorf("bad JSON event: more than one value on the line")
	}
	for k, x := range m {
		m[k] = jsonValue(x)
	}
	return eventFields(m)
}

// jsonValue turns JSON numbers into int64 where they are integers.
func jsonValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = jsonValue(x[i])
		}
	}
	return v
}

// eventFields reads the fields of an event map, EDN or JSON.
func eventFields(m map[string]any) (rawEvent, error) {
	var ev rawEvent
	name := func(field string, required bool) (string, error) {
		x, ok := m[field]
		if !ok || x == nil {
			if required {
				return "", fmt.Errorf("event without :%s", field)
			}
			return "", nil
		}
		switch y := x.(type) {
		case keyword:
			return ":" + string(y), nil
		case string:
			return y, nil
		case int64:
			return strconv.FormatInt(y, 10), nil
		}
		return "", fmt.Errorf(":%s must be a keyword, string or integer, found %s", field, (ednValue{x}).describe())
	}
	var err error
	if ev.process, err = name("process", true); err != nil {
		return ev, err
	}
	if ev.typ, err = name("type", true); err != nil {
		return ev, err
	}
	if ev.f, err = name("f", true); err != nil {
		return ev, err
	}
	ev.typ = strings.TrimPrefix(ev.typ, ":")
	ev.f = strings.TrimPrefix(ev.f, ":")
	if k, ok := m["key"]; ok && k != nil {
		if ev.key, err = name("key", true); err != nil {
			return ev, err
		}
		ev.hasKey = true
	}
	ev.value = ednValue{m["value"]}
	return ev, nil
}

// fastEDN decodes, without the EDN decoder, the values most Jepsen lines
// carry: nil, an integer, or a vector of those separated by single
// spaces, as the decoder would (TestFastEDN); ok is false for anything
// else. Building a decoder for each line was most of what reading a
// Jepsen log cost.
func fastEDN(s string) (v any, ok bool) {
	if v, ok := fastAtom(s); ok {
		return v, true
	}
	if len(s) < 3 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	var out []any
	for _, f := range strings.Split(s[1:len(s)-1], " ") {
		a, ok := fastAtom(f)
		if !ok {
			return nil, false
		}
		out = append(out, a)
	}
	return out, true
}

// fastAtom decodes nil or a decimal integer of at most 18 digits without
// leading zeros.
func fastAtom(s string) (any, bool) {
	if s == "nil" {
		return nil, true
	}
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || d[0] == '0' && len(d) > 1 {
		return nil, false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return nil, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, false
	}
	return n, true
}
