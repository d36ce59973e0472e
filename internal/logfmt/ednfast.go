package logfmt

import "unicode/utf8"

// The EDN values of Jepsen's events are mostly a few shapes: nil, an
// integer, a keyword (:timed-out), a string ("x 0 1 y"), and vectors of
// those ([3 0], [KEY [OLD NEW]]); their event maps have keyword keys.
// Building the EDN library's decoder for each of them was most of what
// reading a Jepsen log or an EDN history cost, so these shapes are read
// here, straight from the text, exactly as the library reads them
// (TestEDNFastAgrees, FuzzEDNFast compare the two). Anything else — a
// symbol, a float, an escape in a string, a tag, a map, a set, a value
// the library rejects — is left to the library, which stays the
// definition of EDN: a fast path that is not sure of the library's answer
// declines, and the library then reads the text from the start and words
// any error.

// maxFastDepth is how deeply vectors may nest on the fast path.
const maxFastDepth = 8

// fastEDN reads s, which must hold exactly one EDN value, as the library
// does (decodeEDN, normalized); ok is false when it leaves s to the
// library.
func fastEDN(s string) (v any, ok bool) {
	v, n, ok := fastValue(s, 0, 0)
	if !ok || n != len(s) {
		return nil, false
	}
	return v, true
}

// fastValue reads the value that starts at s[i], and returns it with the
// index just past it. A value ends at the end of s, or where a space, a
// comma or ']' follows it.
func fastValue(s string, i, depth int) (any, int, bool) {
	if i >= len(s) {
		return nil, i, false
	}
	switch s[i] {
	case '[':
		if depth >= maxFastDepth {
			return nil, i, false
		}
		out := []any{} // the library's empty vector is not nil
		i++
		for {
			for i < len(s) && (s[i] == ' ' || s[i] == ',') {
				i++
			}
			if i >= len(s) {
				return nil, i, false
			}
			if s[i] == ']' {
				return out, i + 1, true
			}
			v, j, ok := fastValue(s, i, depth+1)
			if !ok || j < len(s) && s[j] != ' ' && s[j] != ',' && s[j] != ']' {
				return nil, i, false
			}
			out = append(out, v)
			i = j
		}
	case '"':
		// A string without escapes, of printable ASCII or valid UTF-8.
		ascii := true
		for j := i + 1; j < len(s); j++ {
			switch c := s[j]; {
			case c == '"':
				t := s[i+1 : j]
				if !ascii && !utf8.ValidString(t) {
					return nil, i, false
				}
				return t, j + 1, true
			case c == '\\' || c < ' ' || c == 0x7f:
				return nil, i, false
			case c >= utf8.RuneSelf:
				ascii = false
			}
		}
		return nil, i, false
	}
	j := i
	for j < len(s) && s[j] != ' ' && s[j] != ',' && s[j] != ']' {
		j++
	}
	v, ok := fastAtom(s[i:j])
	return v, j, ok
}

// fastAtom reads nil, a keyword (fastKeyword), or a decimal integer of
// at most 18 digits without leading zeros.
func fastAtom(s string) (any, bool) {
	if s == "nil" {
		return nil, true
	}
	if len(s) > 0 && s[0] == ':' {
		k, ok := fastKeyword(s)
		return keyword(k), ok
	}
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || d[0] == '0' && len(d) > 1 {
		return nil, false
	}
	var n int64
	for k := 0; k < len(d); k++ {
		if !isDigit(d[k]) {
			return nil, false
		}
		n = n*10 + int64(d[k]-'0')
	}
	if len(d) < len(s) {
		n = -n
	}
	return n, true
}

// fastKeyword reads a keyword of ASCII letters, digits and "-_?!*" that
// starts with a letter, and returns its name.
func fastKeyword(s string) (string, bool) {
	if len(s) < 2 || s[0] != ':' || !isLetter(s[1]) {
		return "", false
	}
	for k := 2; k < len(s); k++ {
		if c := s[k]; !isLetter(c) && !isDigit(c) && c != '-' && c != '_' && c != '?' && c != '!' && c != '*' {
			return "", false
		}
	}
	return s[1:], true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// fastFields reads the fields of an event map from its elements (keys and
// values in turn, as ednScanner.event gives them) as the library would
// read the map, when every key is a keyword and every value, of a field
// satmon reads or not, one fastEDN reads. It declines (false) otherwise,
// and when a field satmon reads comes twice: the library then decides.
func fastFields(elems []ednForm, m *eventMap) bool {
	var seen [nFields]bool
	for i := 0; i+1 < len(elems); i += 2 {
		kw, ok := fastKeyword(elems[i].text)
		if !ok {
			return false
		}
		v, ok := fastEDN(elems[i+1].text)
		if !ok {
			return false
		}
		if f, used := fieldOf(kw); used {
			if seen[f] {
				return false
			}
			m[f], seen[f] = v, true
		}
	}
	return true
}
