package logfmt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"olympos.io/encoding/edn"
)

// pos is a position in a log: line and column (in bytes), from 1.
type pos struct{ line, col int }

// ednForm is the text of one EDN form and where it starts.
type ednForm struct {
	text string
	at   pos
}

// ednScanner cuts an EDN stream into Jepsen events, as Jepsen writes its
// history.edn: event maps one after another, or wrapped in one vector
// [...], each map on one line or pretty-printed over several. It only
// finds where forms begin and end (brackets, strings, characters,
// comments, discards and tags); the values it needs are read by the EDN
// library (decodeEDN), one element at a time, so that an error points at
// the element it is about. It reads the stream as it comes, one event at
// a time, so that a live pipe is checked as it is written.
type ednScanner struct {
	br   *bufio.Reader
	next pos // position of the next byte
	// wrap: 0 before the first form, 1 inside the vector that wraps the
	// history, 2 after it closed, 3 when the history is not wrapped.
	wrap   int
	wrapAt pos
	buf    []byte
	whole  string // the text of the event map read last, elements spaced
	elems  []ednForm
	ends   []int
}

func newEDNScanner(r io.Reader) *ednScanner {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	s := &ednScanner{br: br, next: pos{1, 1}}
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3)
		s.next.col = 4
	}
	return s
}

// ednError is a malformed stream at a position.
type ednError struct {
	at  pos
	msg string
}

func (e *ednError) Error() string { return e.msg }

func (s *ednScanner) errorf(at pos, format string, args ...any) error {
	return &ednError{at, fmt.Sprintf(format, args...)}
}

func (s *ednScanner) peek() (byte, bool) {
	b, err := s.br.Peek(1)
	if err != nil {
		return 0, false
	}
	return b[0], true
}

func (s *ednScanner) read() byte {
	c, _ := s.br.ReadByte()
	if c == '\n' {
		s.next.line++
		s.next.col = 1
	} else {
		s.next.col++
	}
	return c
}

// commentStart reports whether '#' at the scanner starts a line comment:
// '# ' or '#!' is not EDN, and satmon's writers put '# ...' lines first.
func (s *ednScanner) commentStart() bool {
	b, err := s.br.Peek(2)
	if len(b) == 1 && err != nil {
		return true // a lone '#' at the end
	}
	return len(b) == 2 && b[0] == '#' && (b[1] == ' ' || b[1] == '\t' || b[1] == '\r' || b[1] == '\n' || b[1] == '!')
}

// skipSpace skips whitespace, commas, ';' comments, '# ' comment lines
// and '#_' discarded forms.
func (s *ednScanner) skipSpace() error {
	for {
		c, ok := s.peek()
		if !ok {
			return nil
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '\f':
			s.read()
		case c == ';' || c == '#' && s.commentStart():
			for {
				c, ok := s.peek()
				if !ok || c == '\n' {
					break
				}
				s.read()
			}
		case c == '#':
			b, _ := s.br.Peek(2)
			if len(b) < 2 || b[1] != '_' {
				return nil
			}
			at := s.next
			s.read()
			s.read()
			if err := s.skipSpace(); err != nil {
				return err
			}
			if _, ok := s.peek(); !ok {
				return s.errorf(at, "'#_' discards nothing: the input ends")
			}
			mark := len(s.buf)
			if _, err := s.form(); err != nil {
				return err
			}
			s.buf = s.buf[:mark]
		default:
			return nil
		}
	}
}

func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', '\f', '(', ')', '[', ']', '{', '}', '"', ';':
		return true
	}
	return false
}

var closer = map[byte]byte{'(': ')', '[': ']', '{': '}'}

// form reads one form into s.buf and returns where it starts. The
// scanner is at its first byte.
func (s *ednScanner) form() (pos, error) {
	at := s.next
	c, _ := s.peek()
	switch {
	case c == '(' || c == '[' || c == '{':
		s.buf = append(s.buf, s.read())
		return at, s.seq(at, c)
	case c == ')' || c == ']' || c == '}':
		return at, s.errorf(at, "unexpected '%c'", c)
	case c == '"':
		s.buf = append(s.buf, s.read())
		for {
			// The plain run up to a quote, a backslash or a newline, at once.
			b, _ := s.br.Peek(max(s.br.Buffered(), 1))
			n := 0
			for n < len(b) && b[n] != '"' && b[n] != '\\' && b[n] != '\n' {
				n++
			}
			s.buf = append(s.buf, b[:n]...)
			s.br.Discard(n)
			s.next.col += n
			c, ok := s.peek()
			if !ok {
				return at, s.errorf(at, "unterminated string: missing '\"' to close the '\"' at line %d, column %d", at.line, at.col)
			}
			s.buf = append(s.buf, s.read())
			if c == '\\' {
				if _, ok := s.peek(); ok {
					s.buf = append(s.buf, s.read())
				}
			} else if c == '"' {
				return at, nil
			}
		}
	case c == '\\': // a character: \a, \newline, \u0041, \(
		s.buf = append(s.buf, s.read())
		if _, ok := s.peek(); ok {
			s.buf = append(s.buf, s.read())
		}
		s.atom()
		return at, nil
	case c == '#':
		s.buf = append(s.buf, s.read())
		c, ok := s.peek()
		switch {
		case !ok:
			return at, s.errorf(at, "'#' at the end of the input")
		case c == '{': // a set
			s.buf = append(s.buf, s.read())
			return at, s.seq(at, '{')
		case c == '"': // a regular expression
			_, err := s.form()
			return at, err
		case c == '#': // ##Inf, ##NaN: whole
			s.atom()
			return at, nil
		}
		// A tag, #inst or #jepsen.history.Op: it applies to the next form.
		s.atom()
		s.buf = append(s.buf, ' ')
		if err := s.skipSpace(); err != nil {
			return at, err
		}
		if _, ok := s.peek(); !ok {
			return at, s.errorf(at, "tag %s tags nothing: the input ends", quote(lastWord(s.buf)))
		}
		_, err := s.form()
		return at, err
	}
	s.atom()
	return at, nil
}

// atom reads the rest of a symbol, keyword or number: from the buffered
// bytes at once, since an atom holds no newline.
func (s *ednScanner) atom() {
	for {
		b, _ := s.br.Peek(max(s.br.Buffered(), 1))
		n := 0
		for n < len(b) && !isDelim(b[n]) {
			n++
		}
		s.buf = append(s.buf, b[:n]...)
		s.br.Discard(n)
		s.next.col += n
		if n < len(b) || len(b) == 0 {
			return
		}
	}
}

func lastWord(b []byte) string {
	t := strings.TrimSpace(string(b))
	if i := strings.LastIndexAny(t, " \t\n"); i >= 0 {
		t = t[i+1:]
	}
	return t
}

// seq reads the elements of a list, vector, map or set whose opening
// bracket open, at at, was read, up to its closing bracket.
func (s *ednScanner) seq(at pos, open byte) error {
	want := closer[open]
	for {
		if err := s.skipSpace(); err != nil {
			return err
		}
		c, ok := s.peek()
		if !ok {
			return s.errorf(at, "missing '%c' to close the '%c' at line %d, column %d: the input ends", want, open, at.line, at.col)
		}
		switch c {
		case want:
			s.buf = append(s.buf, s.read())
			return nil
		case ')', ']', '}':
			return s.errorf(s.next, "'%c' where '%c' should close the '%c' at line %d, column %d", c, want, open, at.line, at.col)
		}
		if _, err := s.form(); err != nil {
			return err
		}
		s.buf = append(s.buf, ' ')
	}
}

// event reads the next event map: its elements, keys and values in
// turn, and where the map starts. It returns io.EOF at the clean end.
func (s *ednScanner) event() (elems []ednForm, at pos, err error) {
	for {
		if err := s.skipSpace(); err != nil {
			return nil, pos{}, err
		}
		c, ok := s.peek()
		if !ok {
			if s.wrap == 1 {
				return nil, s.next, s.errorf(s.next, "missing ']' to close the history's '[' at line %d, column %d: the input ends", s.wrapAt.line, s.wrapAt.col)
			}
			return nil, pos{}, io.EOF
		}
		switch {
		case c == '[' && s.wrap == 0:
			s.wrap, s.wrapAt = 1, s.next
			s.read()
			continue
		case c == ']' && s.wrap == 1:
			s.wrap = 2
			s.read()
			continue
		case s.wrap == 2:
			return nil, s.next, s.errorf(s.next, "unexpected %s after the ']' that closes the history (opened at line %d, column %d)", describeByte(c), s.wrapAt.line, s.wrapAt.col)
		case s.wrap == 0:
			s.wrap = 3
		}
		break
	}
	at = s.next
	// A record's tag (#jepsen.history.Op{...}) is left out: the map is
	// the event.
	if c, _ := s.peek(); c == '#' {
		if b, _ := s.br.Peek(2); len(b) == 2 && b[1] != '{' && b[1] != '"' {
			s.read()
			s.buf = s.buf[:0]
			s.atom()
			if err := s.skipSpace(); err != nil {
				return nil, at, err
			}
		}
	}
	if c, ok := s.peek(); !ok || c != '{' {
		s.buf = s.buf[:0]
		fat := s.next
		if !ok {
			return nil, at, s.errorf(at, "a tag without its event map: the input ends")
		}
		if _, err := s.form(); err != nil {
			return nil, fat, err
		}
		return nil, fat, s.errorf(fat, "expected an event map {:process …, :type …, :f …}, found %s", describeForm(string(s.buf)))
	}
	s.read()
	// The map's text is gathered in s.buf, its elements separated by
	// spaces: one string, which the elements' texts are cut from.
	s.buf = append(s.buf[:0], '{')
	// The slices are reused: the caller is done with an event's elements
	// before it reads the next.
	elems, ends := s.elems[:0], s.ends[:0]
	defer func() { s.elems, s.ends = elems, ends }()
	for {
		if err := s.skipSpace(); err != nil {
			return nil, at, err
		}
		c, ok := s.peek()
		if !ok {
			return nil, at, s.errorf(at, "missing '}' to close the event map at line %d, column %d: the input ends", at.line, at.col)
		}
		if c == '}' {
			s.read()
			break
		}
		if c == ')' || c == ']' {
			return nil, at, s.errorf(s.next, "'%c' where '}' should close the event map at line %d, column %d", c, at.line, at.col)
		}
		start := len(s.buf)
		fat, err := s.form()
		if err != nil {
			return nil, at, err
		}
		elems = append(elems, ednForm{at: fat})
		ends = append(ends, start, len(s.buf))
		s.buf = append(s.buf, ' ')
	}
	s.buf = append(s.buf, '}')
	whole := string(s.buf)
	for i := range elems {
		elems[i].text = whole[ends[2*i]:ends[2*i+1]]
	}
	s.whole = whole
	if len(elems)%2 != 0 {
		k := elems[len(elems)-1]
		return nil, at, s.errorf(k.at, "%s has no value: an event map holds keys and values in pairs", describeForm(k.text))
	}
	return elems, at, nil
}

func describeByte(c byte) string {
	if c < ' ' || c > '~' {
		return fmt.Sprintf("byte %#02x", c)
	}
	return fmt.Sprintf("'%c'", c)
}

func describeForm(t string) string {
	t = strings.TrimSpace(t)
	if len(t) > 40 {
		t = t[:37] + "..."
	}
	return quote(t)
}

// ednEvent reads an event's fields from its map's text and elements: each key
// must be a keyword; the values of the fields satmon uses are read by the
// EDN library, the others (:time, :index, :error, ...) only skipped.
func ednEvent(elems []ednForm, whole string) (rawEvent, error) {
	at := ednFieldPos(elems)
	// Most events are maps of keywords to plain values, read without the
	// library (fastFields) as it reads them (ednEventLibrary).
	var fields eventMap
	if fastFields(elems, &fields) {
		ev, err := eventFields(&fields)
		ev.at = at
		return ev, err
	}
	return ednEventLibrary(elems, whole, at)
}

// ednFieldPos is where the values of an event's fields are.
func ednFieldPos(elems []ednForm) fieldPos {
	var at fieldPos
	for i := 0; i+1 < len(elems); i += 2 {
		if f, ok := fieldOf(strings.TrimPrefix(elems[i].text, ":")); ok && elems[i].text[0] == ':' {
			at[f] = elems[i+1].at
		}
	}
	return at
}

// ednEventLibrary reads an event as ednEvent does, by the EDN library: the
// whole map at once, by one decoder, since most events are well formed;
// else element by element. at is where its fields are.
func ednEventLibrary(elems []ednForm, whole string, at fieldPos) (rawEvent, error) {
	if v, err := decodeEDNLibrary(whole); err == nil {
		if m, isMap := v.(map[any]any); isMap {
			var fields eventMap
			good := true
			for k, x := range m {
				kw, isKw := k.(edn.Keyword)
				if !isKw {
					good = false // the element by element reading words it
					break
				}
				if f, used := fieldOf(string(kw)); used {
					fields[f] = normalize(x)
				}
			}
			if good {
				ev, err := eventFields(&fields)
				ev.at = at
				return ev, err
			}
		}
	}
	return ednEventByElement(elems)
}

// ednEventByElement reads an event's fields one element at a time, for an
// error at the element it is about, and so that a field satmon does not
// use cannot make the event unreadable.
func ednEventByElement(elems []ednForm) (rawEvent, error) {
	var m eventMap
	var seen [nFields]bool
	var at fieldPos
	var valueErr error // the first value that could not be read
	for i := 0; i < len(elems); i += 2 {
		k, v := elems[i], elems[i+1]
		name, ok := strings.CutPrefix(k.text, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t\n") {
			return rawEvent{}, &ednError{k.at, fmt.Sprintf("event map key %s is not a keyword", describeForm(k.text))}
		}
		f, used := fieldOf(name)
		if !used {
			continue
		}
		if seen[f] {
			return rawEvent{}, &ednError{k.at, fmt.Sprintf("key :%s twice in one event map", name)}
		}
		x, err := decodeEDN(v.text)
		if err != nil {
			if valueErr == nil {
				valueErr = &ednError{v.at, fmt.Sprintf("bad EDN value %s for :%s: %s", describeForm(v.text), name, ednMessage(err))}
			}
			continue
		}
		m[f], seen[f] = x, true
		at[f] = v.at
	}
	if valueErr != nil && !isNemesis(m[fProcess]) {
		return rawEvent{}, valueErr
	}
	ev, err := eventFields(&m)
	ev.at = at
	return ev, err
}

// isNemesis reports whether a :process is Jepsen's nemesis, whose events
// are faults, skipped: their values (which may print Java objects as
// #object[...]) are not read.
func isNemesis(p any) bool {
	switch x := p.(type) {
	case keyword:
		return x == "nemesis"
	case string:
		return x == "nemesis" || x == ":nemesis"
	}
	return false
}

// ednMessage words an error of the EDN library for a user.
func ednMessage(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "No more tokens"):
		return "the value ends too early"
	case errors.Is(err, errMoreThanOne):
		return "more than one value"
	}
	return strings.TrimPrefix(msg, "edn: ")
}
