package logfmt

import (
	"unicode"
	"unicode/utf8"
)

// tokKind classifies the tokens of one log line.
type tokKind uint8

const (
	tEOL     tokKind = iota // end of the line
	tWord                   // a value token: method names, arguments, values
	tLParen                 // (
	tRParen                 // )
	tComma                  // ,
	tLBrack                 // [
	tRBrack                 // ]
	tComment                // # to the end of the line
)

type token struct {
	kind tokKind
	text string
	pos  int // byte offset in the line
}

// describe names a token for messages, quoting what the user wrote.
func (t token) describe() string {
	switch t.kind {
	case tEOL:
		return "end of line"
	case tComment:
		return "comment"
	case tWord:
		return quote(t.text)
	}
	return "'" + t.text + "'"
}

// lexer splits the part of a line after "[ID]" into tokens. Whitespace is
// Unicode whitespace; the writer relies on the same definition, so a value
// that the reader accepted is written back as the same token.
type lexer struct {
	s   string
	pos int
}

func (l *lexer) next() token {
	l.pos = skipSpace(l.s, l.pos)
	start := l.pos
	if start >= len(l.s) {
		return token{kind: tEOL, pos: start}
	}
	var k tokKind
	switch l.s[start] {
	case '(':
		k = tLParen
	case ')':
		k = tRParen
	case ',':
		k = tComma
	case '[':
		k = tLBrack
	case ']':
		k = tRBrack
	case '#':
		l.pos = len(l.s)
		return token{kind: tComment, text: l.s[start:], pos: start}
	default:
		l.pos = wordEnd(l.s, start)
		return token{kind: tWord, text: l.s[start:l.pos], pos: start}
	}
	l.pos++
	return token{kind: k, text: l.s[start:l.pos], pos: start}
}

// stops marks the bytes at which wordEnd stops to look: the ASCII
// punctuation and spaces that end a value token, and every byte of a
// multi-byte rune, whose rune decides. One load a byte instead of a chain
// of comparisons: every line of a log goes through here.
var stops = func() (t [256]bool) {
	for _, c := range "()[],# \t\n\v\f\r" {
		t[c] = true
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = true
	}
	return t
}()

// wordEnd returns the end of the value token starting at i.
func wordEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if !stops[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return i
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return i
		}
		i += w
	}
	return i
}

// skipSpace returns the offset of the first non-space rune at or after i.
func skipSpace(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !asciiSpace(c) {
				return i
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			return i
		}
		i += w
	}
	return i
}

// idText is an id as messages show it: shortened and escaped like quote,
// without the quotes.
func idText(id string) string {
	q := quote(id)
	return q[1 : len(q)-1]
}

// asciiSpace is unicode.IsSpace for ASCII bytes.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// quote quotes s for a message, shortening very long tokens so that one
// bad 1 MiB line does not produce a 1 MiB message.
func quote(s string) string {
	const max = 40
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			b = append(b, `\x`...)
			b = append(b, "0123456789abcdef"[s[i]>>4], "0123456789abcdef"[s[i]&15])
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < ' ' || r == 0x7f:
			b = append(b, `\x`...)
			b = append(b, "0123456789abcdef"[r>>4], "0123456789abcdef"[r&15])
		default:
			b = append(b, s[i:i+w]...)
		}
		i += w
	}
	return string(append(b, '"'))
}
