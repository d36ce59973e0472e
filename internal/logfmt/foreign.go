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
// blank nor a '#' comment: '{"' starts a JSON event, '{' an EDN one, as
// does '[' followed by '{' or by nothing (a history.edn wrapped in a
// vector), a line with a ':invoke', ':ok', ':fail' or ':info' field is
// Jepsen's, and any other line starting with '[' is the native format. A
// line that starts otherwise may be one of a Jepsen log's other lines
// (INFO jepsen.core - ..., a stack trace): the first line with an event
// type within the first 64 KiB decides Jepsen, and without one the log
// is native (whose reader reports what is wrong with it). It reads from
// br without consuming anything, and no further than it needs.
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
			// A native action, or Jepsen's history.edn: a vector of
			// event maps, '[{:type :invoke, ...' or '[' on its own line.
			f = Native
			rest := bytes.TrimLeft(line[1:], " \t,")
			switch {
			case bytes.HasPrefix(rest, []byte(`{"`)):
				f = JSON // an array, which the JSON reader words
			case len(rest) == 0 || rest[0] == '{' || rest[0] == '#':
				f = EDN
			}
		default:
			for _, w := range bytes.Fields(line) {
				switch string(w) {
				case ":invoke", ":ok", ":fail", ":info":
					f = Jepsen
					return true
				}
			}
			// Another line of a Jepsen log (INFO jepsen.core - ..., a
			// stack trace) may come before its first event: look on.
			return false
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
	file := opt.Name
	if file == "" {
		file = "<input>"
	}
	er := &eventReader{file: file, format: f, forced: fam, abandons: opt.Abandons,
		objects: map[string]*ObjectDecl{}, procs: map[string]*procOp{}, gen: map[string]int{}}
	if f == EDN {
		er.edn = newEDNScanner(r)
	} else {
		er.sc = bufio.NewScanner(r)
		er.sc.Buffer(make([]byte, 0, 4096), MaxLine+2)
	}
	return er, nil
}

// The fields of an event that satmon reads, and where each was found.
const (
	fProcess = iota
	fType
	fF
	fKey
	fValue
	nFields
)

// fieldNames are the fields' names, by index.
var fieldNames = [nFields]string{fProcess: "process", fType: "type", fF: "f", fKey: "key", fValue: "value"}

// fieldOf is the index of the field named name, if satmon reads it.
func fieldOf(name string) (int, bool) {
	switch name {
	case "process":
		return fProcess, true
	case "type":
		return fType, true
	case "f":
		return fF, true
	case "key":
		return fKey, true
	case "value":
		return fValue, true
	}
	return 0, false
}

// eventMap holds the values of an event's fields, by index; nil for a
// field the event does not have (a field whose value is nil reads as
// absent).
type eventMap [nFields]any

// fieldPos holds where each field's value starts; a zero pos is unknown.
type fieldPos [nFields]pos

// fieldError is what is wrong with one field of an event: the error is
// placed at that field's value when its position is known.
type fieldError struct {
	field int
	msg   string
}

func (e *fieldError) Error() string { return e.msg }

func fieldErrorf(field int, format string, args ...any) error {
	return &fieldError{field, fmt.Sprintf(format, args...)}
}

// rawEvent is one Jepsen event, in any of the foreign formats.
type rawEvent struct {
	process string
	typ     string // invoke, ok, fail, info
	f       string
	key     string
	hasKey  bool
	value   ednValue
	at      fieldPos
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

// SkippedLine is a line of a Jepsen log that is not an operation (a
// logger's other lines, a stack trace), skipped.
type SkippedLine struct {
	Line int
	Text string
}

// maxSkippedKept is how many skipped lines a reader keeps to list: an
// endless log must not fill memory with them; all are counted.
const maxSkippedKept = 100

// Skipper is a Source that skips the lines that are not events (Jepsen's
// logs interleave them). Skipped returns how many were skipped, and the
// first of them (at most 100).
type Skipper interface {
	Skipped() (n int, first []SkippedLine)
}

// eventReader reads Jepsen events and turns them into satmon's actions:
// a process's :invoke is a call, its next :ok (or a :fail that is an
// outcome) the return. :info, and a :fail that says the operation had no
// effect, leave the operation pending to the end: it may have taken
// effect at any time after its call. The process may then invoke again;
// its new operation gets a fresh id ("3", then "3~1", "3~2", ...).
type eventReader struct {
	abandons bool           // say when an operation is left pending (Options.Abandons)
	sc       *bufio.Scanner // Jepsen and JSON: one event per line
	edn      *ednScanner    // EDN: event maps, wrapped or not, over any lines
	file     string
	format   Format
	forced   *family
	line     int // the line of the event read last
	col      int // its column
	seq      int

	// independent is set when the history is jepsen.independent's:
	// every :value is a tuple [KEY VALUE], and each key is an object.
	// It is decided by the first invoke (indepKnown).
	independent, indepKnown bool

	skipped     int
	skippedList []SkippedLine

	objects map[string]*ObjectDecl // by key
	procs   map[string]*procOp     // by process: the open operation
	gen     map[string]int         // by process: operations it left pending
	err     error
	eof     bool
}

// Skipped implements Skipper.
func (r *eventReader) Skipped() (int, []SkippedLine) { return r.skipped, r.skippedList }

// errNotEvent marks a line of a Jepsen log that holds no event.
var errNotEvent = errors.New("not a Jepsen operation line")

// nextRaw reads the next event, setting r.line and r.col to where it
// starts. It returns io.EOF at the end.
func (r *eventReader) nextRaw() (rawEvent, error) {
	if r.edn != nil {
		elems, at, err := r.edn.event()
		r.line, r.col = at.line, at.col
		if err != nil {
			return rawEvent{}, err
		}
		return ednEvent(elems, r.edn.whole)
	}
	for r.sc.Scan() {
		r.line++
		raw := r.sc.Text()
		s := raw
		off := 0
		if r.line == 1 && strings.HasPrefix(s, "\ufeff") {
			s, off = s[3:], 3
		}
		trimmed := strings.TrimLeft(s, " \t\r")
		off += len(s) - len(trimmed)
		s = strings.TrimRight(trimmed, " \t\r")
		r.col = off + 1
		if s == "" || s[0] == '#' {
			continue
		}
		var ev rawEvent
		var err error
		switch r.format {
		case Jepsen:
			ev, err = parseJepsenLine(s)
			if err == errNotEvent {
				// Another line of Jepsen's log: INFO jepsen.core, a
				// warning, a stack trace.
				r.skipped++
				if len(r.skippedList) < maxSkippedKept {
					if len(raw) > 200 {
						raw = raw[:200] + "..."
					}
					r.skippedList = append(r.skippedList, SkippedLine{r.line, raw})
				}
				continue
			}
		default:
			ev, err = parseJSONLine(s)
		}
		for i := range ev.at {
			if ev.at[i].col > 0 {
				ev.at[i] = pos{r.line, ev.at[i].col + off}
			}
		}
		if je, ok := err.(*ednError); ok {
			je.at = pos{r.line, je.at.col + off}
		}
		return ev, err
	}
	if err := r.sc.Err(); err != nil {
		msg := "read error: " + err.Error()
		if errors.Is(err, bufio.ErrTooLong) {
			msg = fmt.Sprintf("line too long: more than %d bytes", MaxLine)
		}
		r.line++
		r.col = 1
		return rawEvent{}, errors.New(msg)
	}
	return rawEvent{}, io.EOF
}

// NextEvent implements Source.
func (r *eventReader) NextEvent() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	if r.eof {
		return Event{}, io.EOF
	}
	for {
		ev, err := r.nextRaw()
		if err == io.EOF {
			r.eof = true
			return Event{}, io.EOF
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
			r.err = r.position(err, ev)
			return Event{}, r.err
		}
		if ok {
			if !e.Abandon {
				r.seq++
			}
			return e, nil
		}
	}
}

// position turns an error about ev into a positioned *Error: at the
// field it is about when that is known, else at the event.
func (r *eventReader) position(err error, ev rawEvent) error {
	var pe *Error
	if errors.As(err, &pe) {
		return err
	}
	at := pos{r.line, max(r.col, 1)}
	var fe *fieldError
	var ee *ednError
	switch {
	case errors.As(err, &fe):
		if p := ev.at[fe.field]; p.line > 0 {
			at = p
		}
	case errors.As(err, &ee):
		if ee.at.line > 0 {
			at = ee.at
		}
	}
	return &Error{File: r.file, Line: at.line, Col: at.col, Msg: err.Error()}
}

// apply turns one Jepsen event into an action, if it makes one.
func (r *eventReader) apply(ev rawEvent) (Event, bool, error) {
	switch {
	case ev.process == "":
		return Event{}, false, fmt.Errorf("event without :process")
	case ev.typ == "":
		return Event{}, false, fmt.Errorf("event without :type")
	case ev.f == "":
		return Event{}, false, fmt.Errorf("event without :f")
	}
	switch ev.typ {
	case "invoke", "ok", "fail", "info":
	default:
		return Event{}, false, fieldErrorf(fType, "unknown event type :%s (want :invoke, :ok, :fail or :info)", ev.typ)
	}
	if err := r.unwrap(&ev); err != nil {
		return Event{}, false, err
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
			return Event{}, false, fieldErrorf(fF, "unknown operation :%s; known: %s", ev.f, knownOps())
		}
		obj, err := r.object(ev, fam)
		if err != nil {
			return Event{}, false, err
		}
		l, err := op.call(ev.value)
		if err != nil {
			return Event{}, false, fieldErrorf(fValue, ":%s: %v", ev.f, err)
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
		return Event{}, false, fieldErrorf(fF, ":%s of :%s by process %s, whose open operation is :%s (line %d)", ev.typ, ev.f, ev.process, open.f, open.line)
	}
	if ev.hasKey && open.obj.Name != keyName(ev) {
		return Event{}, false, fieldErrorf(fKey, ":%s for key %s by process %s, whose open operation is on key %s (line %d)", ev.typ, quote(ev.key), ev.process, quote(open.obj.Name), open.line)
	}
	var ret history.Value
	switch ev.typ {
	case "ok":
		v, err := open.op.ok(ev.value)
		if err != nil {
			return Event{}, false, fieldErrorf(fValue, ":ok :%s: %v", ev.f, err)
		}
		ret = v
	case "fail":
		v, constrains := open.op.fail(ev.value)
		if !constrains {
			return r.leavePending(ev.process, open)
		}
		ret = v
	default: // info
		return r.leavePending(ev.process, open)
	}
	delete(r.procs, ev.process)
	l := open.label
	l.Pending, l.Ret = false, ret
	return Event{Object: open.obj, Action: history.Action{Kind: history.Return, ID: open.id, Label: l, Seq: r.seq, Line: r.line}}, true, nil
}

// unwrap reads the tuple [KEY VALUE] of a jepsen.independent history:
// the key becomes the event's, the value its value. Whether the history
// is one is decided at its first invoke without :key, from the shape of
// its value: a pair where the operation takes a single value (a read's
// nil, a write's value), or a pair whose second element is itself a
// pair for a cas ([KEY [OLD NEW]]).
func (r *eventReader) unwrap(ev *rawEvent) error {
	pair, isPair := ev.value.v.([]any)
	isPair = isPair && len(pair) == 2
	if !r.indepKnown && ev.typ == "invoke" {
		r.indepKnown = true
		if isPair && !ev.hasKey {
			inner, innerPair := pair[1].([]any)
			r.independent = ev.f != "cas" || innerPair && len(inner) == 2
		}
	}
	if !r.independent {
		return nil
	}
	if ev.hasKey {
		return fieldErrorf(fKey, "an event with :key in a jepsen.independent history, whose values are [KEY VALUE]")
	}
	if !isPair {
		if ev.typ == "fail" || ev.typ == "info" {
			return nil // the open operation's key applies
		}
		return fieldErrorf(fValue, "expected a jepsen.independent tuple [KEY VALUE], found %s: the history's first invoke has one", ev.value.describe())
	}
	k, err := (ednValue{pair[0]}).scalar("")
	if err != nil || k == "" {
		return fieldErrorf(fValue, "the key of a jepsen.independent tuple must be a single value, found %s", (ednValue{pair[0]}).describe())
	}
	ev.key, ev.hasKey, ev.value = string(k), true, ednValue{pair[1]}
	ev.at[fKey] = ev.at[fValue]
	return nil
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
// line, is read as EDN. A line without a :TYPE field is not an event
// (errNotEvent). Positions in the event are columns of s, on line 0.
func parseJepsenLine(s string) (rawEvent, error) {
	var ev rawEvent
	type field struct {
		text     string
		from, to int
	}
	// The fields up to the value's first are what is read: the rest of
	// the line is the value. A line's fields mostly fit in fs's first
	// array, on the stack.
	fs := make([]field, 0, 16)
	t := -1 // the type's field
	for i := 0; i < len(s) && (t < 0 || len(fs) < t+3); {
		i = skipSpace(s, i)
		if i >= len(s) {
			break
		}
		j := i
		for j < len(s) && !asciiSpace(s[j]) {
			j++
		}
		fs = append(fs, field{s[i:j], i, j})
		if t < 0 {
			switch s[i:j] {
			case ":invoke", ":ok", ":fail", ":info":
				t = len(fs) - 1
			}
		}
		i = j
	}
	at := func(i int) *ednError { return &ednError{at: pos{0, fs[i].from + 1}} }
	switch {
	case t < 0:
		return ev, errNotEvent
	case t == 0:
		e := at(t)
		e.msg = fmt.Sprintf("missing process before %s", fs[t].text)
		return ev, e
	case t+1 >= len(fs) || !strings.HasPrefix(fs[t+1].text, ":") || len(fs[t+1].text) < 2:
		e := &ednError{at: pos{0, fs[t].to + 1}}
		if t+1 < len(fs) {
			e = at(t + 1)
		}
		e.msg = fmt.Sprintf("missing operation (:read, :write, ...) after %s", fs[t].text)
		return ev, e
	}
	ev.process = fs[t-1].text
	ev.typ = fs[t].text[1:]
	ev.f = fs[t+1].text[1:]
	ev.at[fProcess] = pos{0, fs[t-1].from + 1}
	ev.at[fType] = pos{0, fs[t].from + 1}
	ev.at[fF] = pos{0, fs[t+1].from + 1}
	if t+2 < len(fs) && ev.process != ":nemesis" && ev.process != "nemesis" {
		// A nemesis's value is not read: its event is skipped, and the
		// value may print Java objects as #object[...].
		text := s[fs[t+2].from:]
		ev.at[fValue] = pos{0, fs[t+2].from + 1}
		v, err := decodeEDN(text)
		if err != nil {
			e := at(t + 2)
			e.msg = fmt.Sprintf("bad value %s: %s", describeForm(text), ednMessage(err))
			return ev, e
		}
		ev.value = ednValue{v}
	}
	return ev, nil
}

var errMoreThanOne = errors.New("more than one value")

// decodeEDN reads exactly one EDN value from s: by fastEDN when it can,
// as the library would, else by the library.
func decodeEDN(s string) (any, error) {
	if v, ok := fastEDN(s); ok {
		return v, nil
	}
	return decodeEDNLibrary(s)
}

// decodeEDNLibrary reads exactly one EDN value from s by the EDN library.
func decodeEDNLibrary(s string) (any, error) {
	d := edn.NewDecoder(strings.NewReader(s))
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var extra any
	if err := d.Decode(&extra); err != io.EOF {
		return nil, errMoreThanOne
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

// parseJSONLine reads one JSON event object. Positions in the event are
// columns of s, on line 0.
func parseJSONLine(s string) (rawEvent, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	bad := func(off int64, err error) (rawEvent, error) {
		msg := err.Error()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset // the offending byte's, through Token
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			off, msg = int64(len(s)), "the line ends inside the event"
		}
		msg = strings.TrimPrefix(msg, "json: ")
		return rawEvent{}, &ednError{at: pos{0, int(off) + 1}, msg: "bad JSON event: " + msg}
	}
	start := d.InputOffset()
	tok, err := d.Token()
	if err != nil {
		return bad(start, err)
	}
	if tok == json.Delim('[') {
		return rawEvent{}, &ednError{at: pos{0, 1}, msg: "a JSON array: write one event object per line (JSON Lines), or the history as EDN"}
	}
	if tok != json.Delim('{') {
		return rawEvent{}, &ednError{at: pos{0, 1}, msg: fmt.Sprintf("expected a JSON object {\"process\": …, \"type\": …, \"f\": …}, found %s", describeForm(s))}
	}
	var m eventMap
	var at fieldPos
	for d.More() {
		koff := d.InputOffset()
		tok, err := d.Token()
		if err != nil {
			return bad(koff, err)
		}
		k, _ := tok.(string)
		// The value starts after the ':' that follows the key.
		voff := d.InputOffset()
		for int(voff) < len(s) && (s[voff] == ':' || asciiSpace(s[voff])) {
			voff++
		}
		var x any
		if err := d.Decode(&x); err != nil {
			return bad(voff, err)
		}
		if f, ok := fieldOf(k); ok {
			m[f] = jsonValue(x)
			at[f] = pos{0, int(voff) + 1}
		}
	}
	if _, err := d.Token(); err != nil {
		return bad(d.InputOffset(), err)
	}
	if rest := strings.TrimSpace(s[d.InputOffset():]); rest != "" {
		return rawEvent{}, &ednError{at: pos{0, int(d.InputOffset()) + 1 + len(s[d.InputOffset():]) - len(strings.TrimLeft(s[d.InputOffset():], " \t"))}, msg: "bad JSON event: more than one value on the line"}
	}
	ev, err := eventFields(&m)
	ev.at = at
	return ev, err
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
func eventFields(m *eventMap) (rawEvent, error) {
	var ev rawEvent
	// name reads a field that names something; a keyword keeps its
	// colon when colon is set.
	name := func(field int, required, colon bool) (string, error) {
		x := m[field]
		if x == nil {
			if required {
				return "", fmt.Errorf("event without :%s", fieldNames[field])
			}
			return "", nil
		}
		switch y := x.(type) {
		case keyword:
			if colon {
				return ":" + string(y), nil
			}
			return string(y), nil
		case string:
			if colon {
				return y, nil
			}
			return strings.TrimPrefix(y, ":"), nil
		case int64:
			return strconv.FormatInt(y, 10), nil
		}
		return "", fieldErrorf(field, ":%s must be a keyword, string or integer, found %s", fieldNames[field], (ednValue{x}).describe())
	}
	var err error
	if ev.process, err = name(fProcess, true, true); err != nil {
		return ev, err
	}
	// An event's type and operation are read without their colon.
	if ev.typ, err = name(fType, true, false); err != nil {
		return ev, err
	}
	if ev.f, err = name(fF, true, false); err != nil {
		return ev, err
	}
	if m[fKey] != nil {
		if ev.key, err = name(fKey, true, true); err != nil {
			return ev, err
		}
		ev.hasKey = true
	}
	ev.value = ednValue{m[fValue]}
	return ev, nil
}
