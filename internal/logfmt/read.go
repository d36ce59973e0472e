package logfmt

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/openset"
)

// MaxLine is the longest line the reader accepts, in bytes. A longer line
// is an error rather than an unbounded allocation: a log that never ends a
// line (a binary file, a runaway writer) must not exhaust memory.
const MaxLine = 1 << 20

// doneMemory is how many recently returned ids the reader remembers to tell
// a second return from a return without call. It bounds the memory a
// reader needs on an endless log.
const doneMemory = 4096

// Options configure a Reader.
type Options struct {
	// Name is the file name used in messages: "-" or "<stdin>" for stdin.
	Name string
	// Object is used when the log has no "# @object" header (the CLI's
	// --object); history.NoObject if none. A header naming another object
	// is an error.
	Object history.Object
	// Param is the object's parameter when the header gives none.
	Param string
	// Abandons: an operation that will never return (a native log's
	// "[ID] crash"; a foreign log's operation that ends without a result,
	// Jepsen's :info or a :fail that says nothing) yields an Event with
	// Abandon set, after which it stays open to the end. Without it, no
	// event marks that point (Next never returns one).
	Abandons bool
}

// Error is a malformed log: the position of the offending token and what
// is wrong there. Line and Col count from 1; Col counts bytes.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// openOp is an operation whose call was read and whose return was not.
type openOp struct {
	id    string // its id, cloned out of the line
	name  string // the method as written, for messages
	label history.Label
	seq   int
	line  int
	obj   *ObjectDecl // the object called
	// ret is what the method returns: its signature's Ret, known at the
	// call (an object's methods have one signature each).
	ret history.RetKind
	// crashed is the line of its "[ID] crash", 0 when it did not crash:
	// a crashed operation stays open to the end, and its id taken.
	crashed int
}

// openID is an open operation's id, as the open set asks.
func openID(o *openOp) string { return o.id }

// Reader reads a log one action at a time. It keeps only the open
// operations and a fixed number of recently returned ids, so it runs in
// bounded memory on endless logs.
type Reader struct {
	sc     *lineScanner
	opt    Options
	file   string
	line   int // lines read so far
	seq    int // actions returned so far
	colOff int // bytes removed from the start of the current line (a BOM)

	obj        history.Object
	param      string
	headerLine int  // line of the "# @object" header, 0 if none yet
	started    bool // an action was read

	// single is the object of a log of one object, once known; named
	// holds the objects of a log that declares them by name (docs/format.md).
	single *ObjectDecl
	named  map[string]*ObjectDecl
	last   *ObjectDecl // the object of the action Next returned last

	open openset.Set[*openOp]
	free []*openOp // returned operations' structs, for the next calls
	done doneRing

	err error // sticky: once set, Next returns it forever
	eof bool

	// crash: the line parseLine read last was "[ID] crash"; wantCrash:
	// NextInto returns such a line (NextEvent with Options.Abandons)
	// rather than skipping it.
	crash, wantCrash bool

	// The fast path's state (fast.go): the methods of sigsOf's kind and
	// those seen last, and the block an operation's strings are cut from
	// (text).
	sigs     []history.Signature
	sigsOf   *ObjectDecl
	seen     [2]seenMethod
	nextSeen int
	block    []byte
	hk       *hooks // tests' switches (hooks.go); nil outside tests
}

// NewReader returns a reader of the log r.
func NewReader(r io.Reader, opt Options) *Reader {
	// +2 leaves room for the "\r\n" that the scanner strips.
	sc := newLineScanner(r, make([]byte, 0, 4096), MaxLine+2)
	file := opt.Name
	if file == "" {
		file = "<input>"
	}
	return &Reader{sc: sc, opt: opt, file: file, open: openset.Make(openID)}
}

// Object is the log's object, known once the header or the first action
// was read (or, for a log with neither, at its end); NoObject before.
func (r *Reader) Object() history.Object { return r.obj }

// Param is the object's parameter as written ("" when none).
func (r *Reader) Param() string { return r.param }

// Pending returns the ids of the operations still open, in call order.
func (r *Reader) Pending() []string {
	// The open set keeps no order (openset.Set.Delete): the calls' seq
	// gives it back, for this rare question.
	ops := slices.SortedFunc(slices.Values(r.open.Values()), func(a, b *openOp) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = o.id
	}
	return out
}

// Next returns the next action. It returns io.EOF at the clean end of the
// log and an *Error for a malformed one; after an error it keeps returning
// that error.
func (r *Reader) Next() (a history.Action, err error) {
	err = r.NextInto(&a)
	return a, err
}

// NextInto is Next writing the action into *a rather than returning it,
// which a reader of every line of a long log saves copying: an action is
// large. On an error or at the end, *a is the zero Action.
func (r *Reader) NextInto(a *history.Action) error {
	if r.err != nil {
		*a = history.Action{}
		return r.err
	}
	if r.eof {
		*a = history.Action{}
		return io.EOF
	}
	r.crash = false
	for r.sc.Scan() {
		r.line++
		b := r.sc.Bytes()
		if r.fast(b, a) {
			r.seq++
			return nil
		}
		s := string(b)
		r.colOff = 0
		if r.line == 1 && strings.HasPrefix(s, "\ufeff") {
			s = s[3:]
			r.colOff = 3
		}
		act, ok, err := r.parseLine(s)
		if err != nil {
			r.err = err
			*a = history.Action{}
			return err
		}
		if r.crash {
			if !r.wantCrash {
				continue
			}
			// Not an action: it counts in no Seq.
			*a = act
			return nil
		}
		if ok {
			r.seq++
			*a = act
			return nil
		}
	}
	*a = history.Action{}
	if err := r.sc.Err(); err != nil {
		msg := "read error: " + err.Error()
		if errors.Is(err, bufio.ErrTooLong) {
			msg = fmt.Sprintf("line too long: more than %d bytes", MaxLine)
		}
		r.err = &Error{File: r.file, Line: r.line + 1, Col: 1, Msg: msg}
		return r.err
	}
	if r.obj == history.NoObject && r.opt.Object != history.NoObject {
		line := max(r.line, 1)
		if err := r.useOptions(line, 0); err != nil {
			r.err = err
			return err
		}
	}
	r.eof = true
	return io.EOF
}

func (r *Reader) errorf(pos int, format string, args ...any) *Error {
	return &Error{File: r.file, Line: r.line, Col: pos + 1 + r.colOff, Msg: fmt.Sprintf(format, args...)}
}

// parseLine parses one line; ok reports whether it held an action.
func (r *Reader) parseLine(s string) (a history.Action, ok bool, err error) {
	if n := len(s); n > 0 && (s[n-1] >= utf8.RuneSelf || asciiSpace(s[n-1])) {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	i := skipSpace(s, 0)
	if i >= len(s) {
		return a, false, nil
	}
	switch s[i] {
	case '#':
		return a, false, r.parseComment(s, i)
	case '[':
		a, err = r.parseAction(s, i)
		return a, err == nil, err
	}
	end := wordEnd(s, i)
	if end == i {
		end = i + 1
	}
	return a, false, r.errorf(i, "expected an action ('[ID] call METHOD(ARGS)' or '[ID] return VALUES'), a '#' comment or a blank line; found %s", quote(s[i:end]))
}

// parseComment checks a comment line for the "# @object" header.
func (r *Reader) parseComment(s string, i int) error {
	j := skipSpace(s, i+1)
	const directive = "@object"
	if !strings.HasPrefix(s[j:], directive) {
		return nil
	}
	k := j + len(directive)
	if k < len(s) && s[k] != '#' {
		if c, _ := utf8.DecodeRuneInString(s[k:]); !unicode.IsSpace(c) {
			return nil // "@objects" and the like are ordinary comments
		}
	}
	lx := lexer{s: s, pos: k}
	name := lx.next()
	if name.kind != tWord {
		return r.errorf(name.pos, "missing object name after '# @object'; valid objects: %s", objectList())
	}
	obj, ok := history.ParseObject(name.text)
	if !ok && r.single == nil && r.headerLine == 0 {
		// Not a kind: the first word names one object of many.
		return r.parseDecl(&lx, name)
	}
	if r.named != nil {
		return r.errorf(j, "'# @object KIND' in a log of named objects: declare each object as '# @object NAME KIND [PARAM]'")
	}
	if r.started {
		return r.errorf(j, "header '# @object' after the first action: the header must come before all actions")
	}
	if r.headerLine != 0 {
		return r.errorf(j, "second '# @object' header (the first is at line %d); to check several objects in one log, declare each as '# @object NAME KIND [PARAM]'", r.headerLine)
	}
	if !ok {
		return r.errorf(name.pos, "unknown object %s; valid objects: %s", quote(name.text), objectList())
	}
	if r.opt.Object != history.NoObject && obj != r.opt.Object {
		return r.errorf(name.pos, "header names %s but the object given (--object) is %s", obj, r.opt.Object)
	}
	t := lx.next()
	if t.kind == tWord {
		if msg := checkParam(obj, t.text); msg != "" {
			return r.errorf(t.pos, "bad parameter: %s", msg)
		}
		r.obj, r.param = obj, t.text
		t = lx.next()
	} else {
		if msg := checkParam(obj, r.opt.Param); msg != "" {
			return r.errorf(name.pos, "bad parameter from options (--param): %s", msg)
		}
		r.obj, r.param = obj, r.opt.Param
	}
	if t.kind != tEOL && t.kind != tComment {
		return r.errorf(t.pos, "unexpected %s in header; expected '# @object NAME [PARAM]'", t.describe())
	}
	r.headerLine = r.line
	return nil
}

// useOptions takes the object from the options, for a log without header.
func (r *Reader) useOptions(line, pos int) error {
	if msg := checkParam(r.opt.Object, r.opt.Param); msg != "" {
		return &Error{File: r.file, Line: line, Col: pos + 1 + r.colOff, Msg: "bad parameter from options (--param): " + msg}
	}
	r.obj, r.param = r.opt.Object, r.opt.Param
	return nil
}

// checkParam validates an object's parameter; it returns what is wrong, or
// "" when p is fine.
func checkParam(obj history.Object, p string) string {
	if p == "" {
		return ""
	}
	if wordEnd(p, 0) != len(p) {
		return fmt.Sprintf("%s is not a single value token", quote(p))
	}
	switch obj {
	case history.Semaphore:
		if n, err := strconv.Atoi(p); err != nil || n <= 0 {
			return fmt.Sprintf("the capacity of %s must be a positive integer, got %s", obj, quote(p))
		}
	case history.Register, history.CASRegister:
		// Any value: the initial value of the register.
	default:
		return fmt.Sprintf("%s takes no parameter, got %s", obj, quote(p))
	}
	return ""
}

func objectList() string {
	names := make([]string, len(history.Objects))
	for i, o := range history.Objects {
		names[i] = o.String()
	}
	return strings.Join(names, ", ") + " (the 'atomic-' prefix may be left out)"
}

func methodList(obj history.Object) string {
	var parts []string
	for _, s := range history.Signatures(obj) {
		p := s.Names[0]
		if len(s.Names) > 1 {
			p += " (also " + strings.Join(s.Names[1:], ", ") + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// parseAction parses "[ID] call ..." or "[ID] return ..."; s[i] is '['.
func (r *Reader) parseAction(s string, i int) (history.Action, error) {
	var a history.Action
	p := i + 1
	q := p
	for q < len(s) {
		if c := s[q]; c < utf8.RuneSelf {
			if c == ']' || asciiSpace(c) {
				break
			}
			q++
			continue
		}
		c, w := utf8.DecodeRuneInString(s[q:])
		if unicode.IsSpace(c) {
			break
		}
		q += w
	}
	if q == p {
		if q < len(s) && s[q] == ']' {
			return a, r.errorf(i, "empty id '[]': an id is a non-empty run of characters other than whitespace and ']'")
		}
		return a, r.errorf(q, "expected an id after '['")
	}
	if q >= len(s) || s[q] != ']' {
		return a, r.errorf(q, "missing ']' after id %s", quote(s[p:q]))
	}
	id := s[p:q]
	lx := lexer{s: s, pos: q + 1}
	kw := lx.next()
	// The keywords in any case; most logs write them in lower case.
	isCall := kw.kind == tWord && (kw.text == "call" || strings.EqualFold(kw.text, "call"))
	isRet := kw.kind == tWord && !isCall && (kw.text == "return" || strings.EqualFold(kw.text, "return"))
	isCrash := kw.kind == tWord && strings.EqualFold(kw.text, "crash")
	if !isCall && !isRet && !isCrash {
		return a, r.errorf(kw.pos, "expected \"call\", \"return\" or \"crash\" after [%s], found %s", idText(id), kw.describe())
	}
	if r.obj == history.NoObject && r.named == nil {
		if r.opt.Object == history.NoObject {
			return a, r.errorf(i, "no object: add '# @object NAME' as the first line or pass --object")
		}
		if err := r.useOptions(r.line, i); err != nil {
			return a, err
		}
	}
	r.started = true
	switch {
	case isCall:
		return r.parseCall(&lx, id, p)
	case isCrash:
		return r.parseCrash(&lx, id, p)
	}
	return r.parseReturn(&lx, id, p)
}

// parseCrash parses the rest of "[ID] crash": the open operation ID will
// never return. It stays pending to the end, its id taken, and may have
// taken effect at any time after its call, or never (Jepsen's :info).
func (r *Reader) parseCrash(lx *lexer, id string, idPos int) (history.Action, error) {
	var a history.Action
	if t := lx.next(); !isEnd(t) {
		return a, r.errorf(t.pos, "unexpected %s after \"crash\"; expected the end of the line or a '#' comment", t.describe())
	}
	o, _ := r.open.Find(id)
	switch {
	case o == nil:
		if line, ok := r.done.lookup(id); ok {
			return a, r.errorf(idPos, "crash of [%s], which returned at line %d: only an open operation can crash", idText(id), line)
		}
		return a, r.errorf(idPos, "crash without call: no call [%s] is open", idText(id))
	case o.crashed != 0:
		return a, r.errorf(idPos, "second crash for [%s] (crashed at line %d)", idText(id), o.crashed)
	}
	o.crashed = r.line
	r.last = o.obj
	r.crash = true
	return history.Action{ID: o.id, Line: r.line}, nil
}

func isEnd(t token) bool { return t.kind == tEOL || t.kind == tComment }

func (r *Reader) parseCall(lx *lexer, id string, idPos int) (history.Action, error) {
	var a history.Action
	m := lx.next()
	if m.kind != tWord {
		return a, r.errorf(m.pos, "expected a method name after \"call\", found %s", m.describe())
	}
	var args []token
	t := lx.next()
	switch {
	case isEnd(t):
	case t.kind == tLParen:
		open := t
		t = lx.next()
		if t.kind != tRParen {
			for {
				if t.kind != tWord {
					switch {
					case isEnd(t):
						return a, r.errorf(t.pos, "unbalanced parentheses: missing ')' to close the '(' at column %d", open.pos+1+r.colOff)
					case t.kind == tLParen:
						return a, r.errorf(t.pos, "unbalanced parentheses: unexpected '(' inside the argument list")
					case len(args) > 0:
						return a, r.errorf(t.pos, "expected an argument after ',', found %s", t.describe())
					}
					return a, r.errorf(t.pos, "expected an argument or ')', found %s", t.describe())
				}
				args = append(args, t)
				t = lx.next()
				if t.kind == tRParen {
					break
				}
				if t.kind == tComma {
					t = lx.next()
					continue
				}
				switch {
				case isEnd(t):
					return a, r.errorf(t.pos, "unbalanced parentheses: missing ')' to close the '(' at column %d", open.pos+1+r.colOff)
				case t.kind == tLParen:
					return a, r.errorf(t.pos, "unbalanced parentheses: unexpected '(' inside the argument list")
				}
				return a, r.errorf(t.pos, "expected ',' or ')' after argument %s, found %s", quote(args[len(args)-1].text), t.describe())
			}
		}
		t = lx.next()
		if t.kind == tRParen {
			return a, r.errorf(t.pos, "unbalanced parentheses: extra ')'")
		}
		if !isEnd(t) {
			return a, r.errorf(t.pos, "unexpected %s after ')'; expected the end of the line or a '#' comment", t.describe())
		}
	case t.kind == tRParen:
		return a, r.errorf(t.pos, "unbalanced parentheses: ')' without '('")
	case t.kind == tWord:
		return a, r.errorf(t.pos, "unexpected %s after method %s; arguments go in parentheses, as in %s(%s)", t.describe(), quote(m.text), m.text, t.text)
	default:
		return a, r.errorf(t.pos, "unexpected %s after method %s; expected '(' or the end of the line", t.describe(), quote(m.text))
	}

	if o, _ := r.open.Find(id); o != nil {
		if o.crashed != 0 {
			return a, r.errorf(idPos, "duplicate id [%s]: it crashed at line %d and stays pending to the end, so its id is never free again", idText(id), o.crashed)
		}
		return a, r.errorf(idPos, "duplicate id [%s]: it is already open (called at line %d); an id may be reused only after its return", idText(id), o.line)
	}
	decl, err := r.callee(&m)
	if err != nil {
		return a, err
	}
	obj := decl.Kind
	sig, ok := history.LookupMethod(obj, m.text)
	if !ok {
		hint := ""
		if r.named == nil && strings.Contains(m.text, ".") {
			hint = "; to address one of several objects as NAME.method, declare each with '# @object NAME KIND'"
		}
		return a, r.errorf(m.pos, "unknown method %s for %s; accepted methods: %s%s", quote(m.text), obj, methodList(obj), hint)
	}
	if n := len(args); n < sig.MinArgs || n > sig.MaxArgs {
		pos := m.pos
		if n > sig.MaxArgs {
			pos = args[sig.MaxArgs].pos
		}
		return a, r.errorf(pos, "wrong number of arguments: %s takes %s, got %d", m.text, arity(sig.MinArgs, sig.MaxArgs, "argument"), n)
	}
	l := history.Label{Method: sig.Method, Pending: true}
	if len(args) > 0 {
		l.Arg = history.Value(args[0].text)
	}
	if sig.Method == history.CAS {
		l.Old, l.Arg = history.Value(args[0].text), history.Value(args[1].text)
		l.Old = history.Value(strings.Clone(string(l.Old)))
	}
	if obj == history.PQueue && sig.Method == history.Add {
		pt := args[len(args)-1]
		p, err := strconv.ParseInt(pt.text, 10, 64)
		if err != nil {
			if len(args) == 1 {
				return a, r.errorf(pt.pos, "bad priority %s: %s with one argument uses it as both value and priority, so it must be an integer; write %s(VALUE, PRIORITY) for other values", quote(pt.text), m.text, m.text)
			}
			return a, r.errorf(pt.pos, "bad priority %s: the priority must be an integer", quote(pt.text))
		}
		l.Prio = p
	}
	// Clone what outlives the line, so that an open operation does not pin
	// a whole (possibly 1 MiB) line in memory.
	id = strings.Clone(id)
	l.Arg = history.Value(strings.Clone(string(l.Arg)))
	o := r.newOpen()
	*o = openOp{id: id, name: methodName(sig, m.text), label: l, seq: r.seq, line: r.line, obj: decl, ret: sig.Ret}
	r.open.Add(openset.Key(o.id), o)
	r.last = decl
	return history.Action{Kind: history.Call, ID: id, Label: l, Seq: r.seq, Line: r.line}, nil
}

func (r *Reader) parseReturn(lx *lexer, id string, idPos int) (history.Action, error) {
	var a history.Action
	var vals []token
	t := lx.next()
	end := t
	for !isEnd(t) {
		if t.kind != tWord {
			if len(vals) > 0 {
				return a, r.errorf(t.pos, "expected a value after ',', found %s", t.describe())
			}
			return a, r.errorf(t.pos, "expected a return value or the end of the line, found %s", t.describe())
		}
		vals = append(vals, t)
		t = lx.next()
		if t.kind == tComma {
			t = lx.next()
			if isEnd(t) {
				return a, r.errorf(t.pos, "expected a value after ',', found %s", t.describe())
			}
			continue
		}
		if !isEnd(t) {
			return a, r.errorf(t.pos, "expected ',' or the end of the line after return value %s, found %s", quote(vals[len(vals)-1].text), t.describe())
		}
		end = t
	}
	o, _ := r.open.Find(id)
	if o == nil {
		if line, ok := r.done.lookup(id); ok {
			return a, r.errorf(idPos, "second return for [%s] (returned at line %d)", idText(id), line)
		}
		return a, r.errorf(idPos, "return without call: no call [%s] is open", idText(id))
	}
	if o.crashed != 0 {
		return a, r.errorf(idPos, "return of [%s], which crashed at line %d: a crashed operation never returns", idText(id), o.crashed)
	}
	sig, _ := history.SignatureOf(o.obj.Kind, o.label.Method)
	n := len(vals)
	switch sig.Ret {
	case history.RetNone:
		if n > 0 {
			return a, r.errorf(vals[0].pos, "wrong number of return values: %s returns no value, got %s", o.name, vals[0].describe())
		}
	case history.RetBool:
		if n == 0 {
			return a, r.errorf(end.pos, "wrong number of return values: %s returns true or false, got nothing", o.name)
		}
		if n > 1 {
			return a, r.errorf(vals[1].pos, "wrong number of return values: %s returns one value, true or false", o.name)
		}
		if v := vals[0].text; v != string(history.True) && v != string(history.False) {
			return a, r.errorf(vals[0].pos, "%s returns true or false, got %s", o.name, quote(v))
		}
	case history.RetValue:
		if n != 1 {
			hint := ""
			switch o.label.Method {
			case history.Rem:
				hint = ` ("empty" when the collection was empty)`
			case history.Exchange:
				hint = ` ("null" when no partner was found)`
			}
			if n == 0 {
				return a, r.errorf(end.pos, "wrong number of return values: %s returns one value%s, got nothing", o.name, hint)
			}
			return a, r.errorf(vals[1].pos, "wrong number of return values: %s returns one value%s, got %d", o.name, hint, n)
		}
	case history.RetStatus:
		if n != 1 {
			return a, r.errorf(end.pos, "wrong number of return values: %s returns ok or fail", o.name)
		}
		if v := vals[0].text; v != string(history.OK) && v != string(history.Fail) {
			return a, r.errorf(vals[0].pos, "%s returns ok or fail, got %s", o.name, quote(v))
		}
	case history.RetOptional:
		if n > 1 {
			return a, r.errorf(vals[1].pos, "wrong number of return values: %s returns at most one value (a tag), got %d", o.name, n)
		}
	}
	l := o.label
	l.Pending = false
	if n == 1 {
		l.Ret = history.Value(vals[0].text)
	}
	r.open.Delete(o)
	r.last = o.obj
	r.done.add(o.id, r.line)
	r.free = append(r.free, o)
	return history.Action{Kind: history.Return, ID: id, Label: l, Seq: r.seq, Line: r.line}, nil
}

// arity describes an argument count range: "no arguments", "1 argument",
// "at most 1 argument", "1 or 2 arguments".
func arity(lo, hi int, noun string) string {
	plural := func(n int) string {
		if n == 1 {
			return noun
		}
		return noun + "s"
	}
	switch {
	case hi == 0:
		return "no " + noun + "s"
	case lo == hi:
		return fmt.Sprintf("%d %s", lo, plural(lo))
	case lo == 0:
		return fmt.Sprintf("at most %d %s", hi, plural(hi))
	case hi == lo+1:
		return fmt.Sprintf("%d or %d %s", lo, hi, plural(hi))
	}
	return fmt.Sprintf("%d to %d %s", lo, hi, plural(hi))
}

// doneRing remembers the ids of the last doneMemory returns and the line
// of each return. It is read only to word an error (a second return), so
// it is searched rather than indexed: every return adds to it, and a map
// from id to slot cost an insertion and a deletion at each.
type doneRing struct {
	ids   []string
	lines []int
	next  int
}

func (d *doneRing) add(id string, line int) {
	if len(d.ids) < doneMemory {
		d.ids = append(d.ids, id)
		d.lines = append(d.lines, line)
		return
	}
	d.ids[d.next], d.lines[d.next] = id, line
	d.next = (d.next + 1) % doneMemory
}

// lookup returns the line of id's latest remembered return.
func (d *doneRing) lookup(id string) (int, bool) {
	// Newest first: from next-1 back to 0, then from the end back to next.
	for k := range d.ids {
		i := (d.next - 1 - k + 2*len(d.ids)) % len(d.ids)
		if d.ids[i] == id {
			return d.lines[i], true
		}
	}
	return 0, false
}

// newOpen returns a struct for a new open operation, reusing a returned
// one's.
func (r *Reader) newOpen() *openOp {
	if n := len(r.free); n > 0 {
		o := r.free[n-1]
		r.free = r.free[:n-1]
		return o
	}
	return new(openOp)
}

// methodName is the method as written, kept for messages: the
// signature's own spelling when it is that, else a copy out of the line.
func methodName(sig history.Signature, text string) string {
	for _, n := range sig.Names {
		if n == text {
			return n
		}
	}
	return strings.Clone(text)
}

// ReadHistory reads a whole log into a history.
func ReadHistory(r io.Reader, opt Options) (*history.History, error) {
	rd := NewReader(r, opt)
	var b *history.Builder
	for {
		a, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if rd.Named() {
			return nil, &Error{File: rd.file, Line: a.Line, Col: 1, Msg: "this log declares named objects; a history holds one object (satmon check reads logs of many)"}
		}
		if b == nil {
			b = history.NewBuilder(rd.Object(), rd.Param())
		}
		if _, err := b.Add(a); err != nil {
			// The reader has already checked what the builder checks.
			return nil, &Error{File: rd.file, Line: a.Line, Col: 1, Msg: err.Error()}
		}
	}
	if b == nil {
		if rd.Object() == history.NoObject {
			return nil, &Error{File: rd.file, Line: max(rd.line, 1), Col: 1, Msg: "no object: add '# @object NAME' as the first line or pass --object"}
		}
		b = history.NewBuilder(rd.Object(), rd.Param())
	}
	return &b.H, nil
}
