package logfmt

import (
	"encoding/binary"
	"unsafe"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/openset"
)

// The fast path reads the lines a writer produces — "[ID] call
// METHOD(ARG, ARG)" and "[ID] return VALUE", in ASCII and with single
// spaces — straight from the scanner's bytes, without copying the line or
// splitting it into tokens. Every line of a log goes through the reader,
// and a monitor step costs little more than reading its line several
// times over.
//
// It is an abbreviation of the general path, never a second definition of
// the format: it accepts a line only when it is sure the general path
// would read the same action from it, and it changes nothing before it
// is sure. Anything else — another spelling, a comment, trailing space,
// the first action (which settles the object), named objects, methods
// with a priority or two values, every error — it leaves to the general
// path, which then reads the line from the start as before and words any
// error. TestFastPathAgrees and FuzzReader compare the two paths.

// maxFastArgs is the most arguments the fast path reads.
const maxFastArgs = 2

// fast reads line b, the whole line, as an action into *a; it returns
// false, with *a untouched, when it leaves the line to the general path.
// The action is written in place: it is large, and returned through
// every level it would be copied at each.
func (r *Reader) fast(b []byte, a *history.Action) bool {
	if !r.started || r.named != nil || r.obj == history.NoObject || r.hk != nil && r.hk.noFast {
		return false
	}
	if len(b) < 4 || b[0] != '[' {
		return false
	}
	// The id: stops at ']' or at anything the general path would look at
	// twice (space, non-ASCII).
	// The id's key (openset.Key) is gathered on the way: its last bytes.
	q := 1
	var key uint64
	for q < len(b) && !idStops[b[q]] {
		key = key<<8 | uint64(b[q])
		q++
	}
	if q == 1 || q+2 >= len(b) || b[q] != ']' || b[q+1] != ' ' {
		return false
	}
	id := b[1:q]
	key = key&(1<<(8*openset.KeyedLen)-1) | uint64(min(len(id), 255))<<56
	rest := b[q+2:]
	switch {
	case len(rest) > 5 && string(rest[:5]) == "call ":
		return r.fastCall(id, key, rest[5:], a)
	case len(rest) >= 6 && string(rest[:6]) == "return":
		return r.fastReturn(id, key, rest[6:], a)
	}
	return false
}

// idStops marks the bytes at which the fast path's id ends: ']', and the
// spaces, control bytes and non-ASCII bytes it leaves to the general path.
// wordStops marks where its value tokens end: stops, and the control
// bytes and DEL.
var idStops, wordStops = func() (id, word [256]bool) {
	for c := range 256 {
		odd := c <= ' ' || c >= 0x7f
		id[c] = odd || c == ']'
		word[c] = odd || stops[c]
	}
	return id, word
}()

// word is the length of the value token at the start of b (as wordEnd, on
// ASCII bytes), stopping also at every control byte and DEL, which the
// fast path leaves to the general one.
func word(b []byte) int {
	i := 0
	for i < len(b) && !wordStops[b[i]] {
		i++
	}
	return i
}

// fastCall reads "METHOD" or "METHOD(ARGS)" at the start of b, the line
// after "[ID] call "; key is the id's (openset.Key).
func (r *Reader) fastCall(id []byte, key uint64, b []byte, a *history.Action) bool {
	decl := r.single
	if decl == nil || decl.Kind != r.obj {
		return false
	}
	// The method: one the fast path found before, told by comparing
	// the line's next bytes with its spelling at once, or the word at
	// the start of b, looked up.
	n, sig, name := r.seenAt(decl, b)
	if sig == nil {
		if n = word(b); n == 0 {
			return false
		}
		if sig, name = r.method(decl, b[:n]); sig == nil {
			return false
		}
	}
	var args [maxFastArgs][]byte
	nargs := 0
	if p := b[n:]; len(p) > 0 {
		if p[0] != '(' || p[len(p)-1] != ')' {
			return false
		}
		p = p[1 : len(p)-1]
		for len(p) > 0 {
			k := word(p)
			if k == 0 || nargs == maxFastArgs {
				return false
			}
			args[nargs] = p[:k]
			nargs++
			p = p[k:]
			if len(p) == 0 {
				break
			}
			// ", " as the writer writes it, or ",".
			if p[0] != ',' || len(p) == 1 {
				return false
			}
			p = p[1:]
			if p[0] == ' ' {
				p = p[1:]
			}
			if len(p) == 0 {
				return false // "f(a, )": an argument is missing
			}
		}
	}
	if r.open.MayHold(key) {
		if _, dup := openset.Lookup(&r.open, id, key); dup {
			return false // a duplicate: the general path words the error
		}
	}
	if nargs < sig.MinArgs || nargs > sig.MaxArgs ||
		sig.Method == history.CAS || decl.Kind == history.PQueue && sig.Method == history.Add {
		return false
	}
	// The id and the argument outlive the line: one string holds both,
	// cut from the reader's block (text), so that an open operation pins
	// neither the line nor the scanner's buffer.
	s := r.text(id, args[0])
	ids := s[:len(id)]
	o := r.newOpen()
	// Every field is set, one by one: a whole struct
	// assigned through a pointer is built aside and copied.
	o.id, o.name, o.seq, o.line, o.obj, o.ret = ids, name, r.seq, r.line, decl, sig.Ret
	o.label = history.Label{Method: sig.Method, Pending: true, Arg: history.Value(s[len(id):])}
	r.open.Add(key, o)
	r.last = decl
	// The action's every field, one by one, as the open operation's.
	a.Kind, a.ID, a.Seq, a.Line = history.Call, ids, r.seq, r.line
	a.Label = o.label
	return true
}

// method finds the method spelled m as LookupMethod does when m is one
// of its names, and returns that name; nil when m is not one. The
// methods found last are remembered (seenAt): a log calls few.
func (r *Reader) method(decl *ObjectDecl, m []byte) (*history.Signature, string) {
	if r.sigsOf != decl {
		r.sigs, r.sigsOf = history.Signatures(decl.Kind), decl
		r.seen = [len(r.seen)]seenMethod{}
	}
	for _, c := range r.seen {
		if c.sig != nil && c.name == string(m) {
			return c.sig, c.name
		}
	}
	for i := range r.sigs {
		for _, nm := range r.sigs[i].Names {
			if nm == string(m) {
				c := seenMethod{name: nm, sig: &r.sigs[i]}
				if len(nm) <= 8 {
					// A name spells no stop (wordStops): it ends
					// where the word does.
					for j := len(nm) - 1; j >= 0; j-- {
						c.bits = c.bits<<8 | uint64(nm[j])
					}
					c.mask = 1<<(8*len(nm)) - 1
					if len(nm) == 8 {
						c.mask = ^uint64(0)
					}
				}
				r.seen[r.nextSeen] = c
				r.nextSeen = (r.nextSeen + 1) % len(r.seen)
				return &r.sigs[i], nm
			}
		}
	}
	return nil, ""
}

// seenAt finds a method of decl remembered by method that b starts with
// as its word (as word(b)), and returns the word's length, the method
// and its name; nil when there is none. Names of up to 8 bytes are
// compared at once, as the 8 bytes at b (b's array holds them when its
// capacity does: the bytes past b are the scanner's buffer, masked out
// beyond the name, and the name is compared only when b is long enough
// to hold it).
func (r *Reader) seenAt(decl *ObjectDecl, b []byte) (int, *history.Signature, string) {
	if r.sigsOf != decl || cap(b) < 8 {
		return 0, nil, ""
	}
	w := binary.LittleEndian.Uint64(b[:8:8])
	for i := range r.seen {
		c := &r.seen[i]
		if n := len(c.name); c.mask != 0 && w&c.mask == c.bits && (len(b) == n || len(b) > n && wordStops[b[n]]) {
			return n, c.sig, c.name
		}
	}
	return 0, nil, ""
}

// seenMethod is a method the fast path found: its name, and for a name
// of at most 8 bytes those bytes (little-endian) and their mask.
type seenMethod struct {
	name       string
	bits, mask uint64
	sig        *history.Signature
}

// fastReturn reads "" or " VALUE", the line after "[ID] return"; key is
// the id's (openset.Key).
func (r *Reader) fastReturn(id []byte, key uint64, b []byte, a *history.Action) bool {
	var v []byte
	nv := 0
	if len(b) > 0 {
		if b[0] != ' ' {
			return false
		}
		v = b[1:]
		if k := word(v); k == 0 || k != len(v) {
			return false
		}
		nv = 1
	}
	o, _ := openset.Lookup(&r.open, id, key)
	if o == nil || o.crashed != 0 {
		return false // the general path words the error
	}
	switch o.ret {
	case history.RetNone:
		if nv != 0 {
			return false
		}
	case history.RetBool:
		if nv != 1 || string(v) != string(history.True) && string(v) != string(history.False) {
			return false
		}
	case history.RetValue:
		if nv != 1 {
			return false
		}
	case history.RetStatus:
		if nv != 1 || string(v) != string(history.OK) && string(v) != string(history.Fail) {
			return false
		}
	case history.RetOptional:
	default:
		return false
	}
	// The label is written into the action directly, not built aside
	// first: it is 9 words. So is every other field of the action, one
	// by one, as in fastCall (TestFastPathAgrees compares whole actions
	// with the general path's).
	a.Kind, a.ID, a.Seq, a.Line = history.Return, o.id, r.seq, r.line
	a.Label = o.label
	a.Label.Pending = false
	if nv == 1 {
		a.Label.Ret = r.value(v)
	}
	r.open.Delete(o)
	r.last = o.obj
	r.done.add(o.id, r.line)
	r.free = append(r.free, o)
	return true
}

// textBlock is the size of the blocks text cuts strings from: large
// enough that a block serves dozens of lines, small enough that an
// operation kept long (its id and argument pin their block) keeps little
// else alive.
const textBlock = 512

// text returns a and b joined as a string of their own, without an
// allocation of its own: the bytes are appended to the reader's current
// block (r.block), a new one when it is full, and the string is made
// over them. A block is only ever appended to, never written again where
// it holds bytes, so the strings made over it never change.
//
// Ids and values are mostly a few bytes: a part of at most 8 bytes whose
// array holds 8 from its start (the scanner's buffer mostly does) is
// copied as one 8-byte word rather than by a call to copy. The word read
// reaches past the part into its own array, and the word written past
// the part into the block's unused room, which the next part or the next
// string overwrites: no string is made over it.
func (r *Reader) text(a, b []byte) string {
	at := len(r.block)
	if len(a) <= 8 && cap(a) >= 8 && (len(b) == 0 || len(b) <= 8 && cap(b) >= 8) && cap(r.block)-at >= 16 {
		n := len(a) + len(b)
		to := unsafe.Add(unsafe.Pointer(unsafe.SliceData(r.block)), at)
		*(*[8]byte)(to) = *(*[8]byte)(unsafe.Pointer(unsafe.SliceData(a)))
		if len(b) > 0 {
			*(*[8]byte)(unsafe.Add(to, len(a))) = *(*[8]byte)(unsafe.Pointer(unsafe.SliceData(b)))
		}
		r.block = r.block[:at+n]
		return unsafe.String((*byte)(to), n)
	}
	return r.textCopy(a, b)
}

// textCopy is text for parts of any length.
func (r *Reader) textCopy(a, b []byte) string {
	n := len(a) + len(b)
	if n == 0 {
		return ""
	}
	if cap(r.block)-len(r.block) < n {
		r.block = make([]byte, 0, max(textBlock, n))
	}
	at := len(r.block)
	r.block = append(append(r.block, a...), b...)
	return unsafe.String(&r.block[at], n)
}

// commonValues are values logs return often; value returns these strings
// rather than a copy.
var commonValues = [...]history.Value{history.True, history.False, history.OK, history.Fail, "empty", "null"}

// value is a return value as a string of its own.
func (r *Reader) value(v []byte) history.Value {
	// Only the first bytes of commonValues start one (v is not empty):
	// other values, numbers mostly, are not compared with each.
	switch v[0] {
	case 't', 'f', 'o', 'e', 'n':
		for _, c := range commonValues {
			if string(c) == string(v) {
				return c
			}
		}
	}
	return history.Value(r.text(v, nil))
}
