package logfmt

import (
	"errors"
	"fmt"
	"github.com/satmon/satmon/internal/testutil"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/satmon/satmon/internal/history"
)

// show renders an action with every field the reader sets, so that a test
// comparing strings compares everything but the line.
func show(a history.Action) string {
	k := "call"
	if a.Kind == history.Return {
		k = "return"
	} else if a.Kind != history.Call {
		k = fmt.Sprintf("kind(%d)", a.Kind)
	}
	l := a.Label
	s := fmt.Sprintf("%d %s [%s] %s(%s p=%d)", a.Seq, k, a.ID, l.Method, string(l.Arg), l.Prio)
	if l.Pending {
		return s + " pending"
	}
	return s + " => " + string(l.Ret)
}

// readAll reads a log to its end; it returns the actions read before any
// error.
func readAll(src string, opt Options) ([]history.Action, *Reader, error) {
	rd := NewReader(strings.NewReader(src), opt)
	var acts []history.Action
	for {
		a, err := rd.Next()
		if err == io.EOF {
			return acts, rd, nil
		}
		if err != nil {
			return acts, rd, err
		}
		acts = append(acts, a)
	}
}

func TestErrors(t *testing.T) {
	const q = "# @object atomic-queue\n"
	long := q + "[1] call push(" + strings.Repeat("a", 2*MaxLine) + ")\n"
	var ring strings.Builder
	ring.WriteString(q)
	for i := 0; i <= doneMemory; i++ {
		fmt.Fprintf(&ring, "[%d] call push(%d)\n[%d] return\n", i, i, i)
	}
	ringLines := 2 + 2*(doneMemory+1)
	tests := []struct {
		name   string
		opt    Options
		src    string
		pos    string // "LINE:COL"
		phrase string
	}{
		{"unknown object", Options{}, "# @object frob\n", "1:11", `unknown object "frob"; valid objects: atomic-queue, atomic-stack`},
		{"missing object name", Options{}, "# @object\n", "1:10", "missing object name"},
		{"unknown method", Options{}, q + "[1] call frob(1)\n", "2:10", `unknown method "frob" for atomic-queue; accepted methods: add (also push`},
		{"unknown method of set", Options{}, "# @object set\n[1] call pop\n", "2:10", `unknown method "pop" for atomic-set`},
		{"return without call", Options{}, q + "[1] return\n", "2:2", "return without call: no call [1] is open"},
		{"duplicate id", Options{}, q + "[1] call push(a)\n[1] call pop\n", "3:2", "duplicate id [1]: it is already open (called at line 2)"},
		{"second return", Options{}, q + "[1] call push(a)\n[1] return\n  [1] return\n", "4:4", "second return for [1] (returned at line 3)"},
		{"second return after reuse", Options{}, q + "[x] call push(a)\n[x] return\n[x] call pop\n[x] return a\n[x] return a\n", "6:2", "second return for [x] (returned at line 5)"},
		{"return beyond memory", Options{}, ring.String() + "[0] return\n", fmt.Sprintf("%d:2", ringLines), "return without call"},
		{"second return within memory", Options{}, ring.String() + "[1] return\n", fmt.Sprintf("%d:2", ringLines), "second return for [1] (returned at line 5)"},
		{"too many arguments", Options{}, q + "[1] call push(a, b)\n", "2:18", "wrong number of arguments: push takes 1 argument, got 2"},
		{"too few arguments", Options{}, q + "[1] call push\n", "2:10", "wrong number of arguments: push takes 1 argument, got 0"},
		{"argument to pop", Options{}, q + "[1] call pop(a)\n", "2:14", "pop takes no arguments, got 1"},
		{"argument to unlock", Options{}, "# @object lock\n[1] call unlock(a)\n", "2:17", "unlock takes no arguments"},
		{"two lock tags", Options{}, "# @object lock\n[1] call lock(a,b)\n", "2:17", "lock takes at most 1 argument, got 2"},
		{"exchange without value", Options{}, "# @object exchanger\n[1] call exchange\n", "2:10", "exchange takes 1 argument, got 0"},
		{"pqueue three arguments", Options{}, "# @object pqueue\n[1] call add(a,1,2)\n", "2:18", "add takes 1 or 2 arguments, got 3"},
		{"value from add", Options{}, q + "[1] call push(a)\n[1] return x\n", "3:12", "wrong number of return values: push returns no value"},
		{"nothing from pop", Options{}, q + "[1] call pop\n[1] return\n", "3:11", `pop returns one value ("empty" when the collection was empty), got nothing`},
		{"two values from pop", Options{}, q + "[1] call pop\n[1] return a, b\n", "3:15", "wrong number of return values: pop returns one value"},
		{"nothing from exchange", Options{}, "# @object exchanger\n[1] call exchange(a)\n[1] return # c\n", "3:12", `exchange returns one value ("null" when no partner was found)`},
		{"set non-boolean", Options{}, "# @object set\n[1] call add(x)\n[1] return yes\n", "3:12", `add returns true or false, got "yes"`},
		{"set nothing", Options{}, "# @object set\n[1] call contains(x)\n[1] return\n", "3:11", "contains returns true or false, got nothing"},
		{"set two values", Options{}, "# @object set\n[1] call remove(x)\n[1] return true, false\n", "3:18", "remove returns one value, true or false"},
		{"two tags from unlock", Options{}, "# @object lock\n[1] call unlock\n[1] return a, b\n", "3:15", "unlock returns at most one value (a tag), got 2"},
		{"value from read-less write", Options{}, "# @object register\n[1] call write(1)\n[1] return 1\n", "3:12", "write returns no value"},
		{"bad priority", Options{}, "# @object pqueue\n[1] call add(a, x)\n", "2:17", `bad priority "x": the priority must be an integer`},
		{"bad shorthand priority", Options{}, "# @object pqueue\n[1] call add(a)\n", "2:14", `bad priority "a": add with one argument uses it as both value and priority, so it must be an integer`},
		{"priority overflow", Options{}, "# @object pqueue\n[1] call add(a, 99999999999999999999)\n", "2:17", "bad priority"},
		{"semaphore capacity zero", Options{}, "# @object atomic-semaphore 0\n", "1:28", "the capacity of atomic-semaphore must be a positive integer, got \"0\""},
		{"semaphore capacity word", Options{}, "# @object semaphore two\n", "1:21", "must be a positive integer"},
		{"parameter of queue", Options{}, "# @object queue 3\n", "1:17", "atomic-queue takes no parameter, got \"3\""},
		{"header trailing garbage", Options{}, "# @object semaphore 2 3\n", "1:23", `unexpected "3" in header; expected '# @object NAME [PARAM]'`},
		{"header punctuation", Options{}, "# @object queue(\n", "1:16", `unexpected '(' in header`},
		{"bad parameter from options", Options{Object: history.Semaphore, Param: "x"}, "\n[1] call acquire\n", "2:1", "bad parameter from options (--param)"},
		{"bad options parameter for header", Options{Param: "x"}, "# @object semaphore\n", "1:11", "bad parameter from options (--param)"},
		{"bad options parameter, empty log", Options{Object: history.Queue, Param: "3"}, "", "1:1", "atomic-queue takes no parameter"},
		{"garbage", Options{}, q + "hello world\n", "2:1", `expected an action ('[ID] call METHOD(ARGS)' or '[ID] return VALUES'), a '#' comment or a blank line; found "hello"`},
		{"indented garbage", Options{}, q + "  ) x\n", "2:3", `found ")"`},
		{"missing bracket", Options{}, q + "[12 call pop\n", "2:4", `missing ']' after id "12"`},
		{"missing bracket at end", Options{}, q + "[12\n", "2:4", `missing ']' after id "12"`},
		{"empty id", Options{}, q + "[] call pop\n", "2:1", "empty id '[]'"},
		{"no id", Options{}, q + "[ 1] call pop\n", "2:2", "expected an id after '['"},
		{"no keyword", Options{}, q + "[1]\n", "2:4", `expected "call", "return" or "crash" after [1], found end of line`},
		{"bad keyword", Options{}, q + "[1] calls pop\n", "2:5", `expected "call", "return" or "crash" after [1], found "calls"`},
		{"no method", Options{}, q + "[1] call (a)\n", "2:10", `expected a method name after "call", found '('`},
		{"unclosed paren", Options{}, q + "[1] call push(a\n", "2:16", "unbalanced parentheses: missing ')' to close the '(' at column 14"},
		{"unclosed paren, comment", Options{}, q + "[1] call push(a # x)\n", "2:17", "unbalanced parentheses: missing ')'"},
		{"unclosed empty paren", Options{}, q + "[1] call pop(\n", "2:14", "unbalanced parentheses: missing ')'"},
		{"nested paren", Options{}, q + "[1] call push((a))\n", "2:15", "unbalanced parentheses: unexpected '(' inside the argument list"},
		{"extra paren", Options{}, q + "[1] call push(a))\n", "2:17", "unbalanced parentheses: extra ')'"},
		{"close without open", Options{}, q + "[1] call pop)\n", "2:13", "unbalanced parentheses: ')' without '('"},
		{"trailing garbage", Options{}, q + "[1] call push(a) x\n", "2:18", `unexpected "x" after ')'; expected the end of the line or a '#' comment`},
		{"arguments without parens", Options{}, q + "[1] call push a\n", "2:15", "arguments go in parentheses, as in push(a)"},
		{"empty argument", Options{}, q + "[1] call push(a,)\n", "2:17", "expected an argument after ',', found ')'"},
		{"missing comma", Options{}, q + "[1] call push(a b)\n", "2:17", `expected ',' or ')' after argument "a", found "b"`},
		{"leading comma", Options{}, q + "[1] call push(,a)\n", "2:15", "expected an argument or ')', found ','"},
		{"return missing comma", Options{}, q + "[1] call pop\n[1] return a b\n", "3:14", `expected ',' or the end of the line after return value "a", found "b"`},
		{"return trailing comma", Options{}, q + "[1] call pop\n[1] return a,\n", "3:14", "expected a value after ','"},
		{"return paren", Options{}, q + "[1] call pop\n[1] return (a)\n", "3:12", "expected a return value or the end of the line, found '('"},
		{"no object", Options{}, "# just a comment\n\n  [1] call pop\n", "3:3", "no object: add '# @object NAME' as the first line or pass --object"},
		{"header after actions", Options{}, q + "[1] call pop\n # @object queue\n", "3:4", "header '# @object' after the first action"},
		{"second header", Options{}, q + "#@object queue\n", "2:2", "second '# @object' header (the first is at line 1)"},
		{"header disagrees with options", Options{Object: history.Stack}, q, "1:11", "header names atomic-queue but the object given (--object) is atomic-stack"},
		{"line too long", Options{}, long, "2:1", "line too long"},
		{"long id", Options{}, q + "[" + strings.Repeat("x", 5000) + "\x01] return\n", "2:2", `return without call: no call [xxxxxxxxxx`},
		{"columns after a BOM", Options{}, "\ufeff# @object frob\n", "1:14", "unknown object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.Name = "t.log"
			_, rd, err := readAll(tc.src, opt)
			if err == nil {
				t.Fatalf("no error; want %s: %s", tc.pos, tc.phrase)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, not *Error", err, err)
			}
			msg := err.Error()
			if want := "t.log:" + tc.pos + ": "; !strings.HasPrefix(msg, want) {
				t.Errorf("error %q does not start with %q", msg, want)
			}
			if !strings.Contains(msg, tc.phrase) {
				t.Errorf("error %q does not say %q", msg, tc.phrase)
			}
			if len(msg) > 1000 {
				t.Errorf("error message is %d bytes long", len(msg))
			}
			if _, err2 := rd.Next(); err2 != err {
				t.Errorf("Next after the error returned %v, want the same error", err2)
			}
		})
	}
}

// A log of each object, with the actions it must yield.
var validLogs = []struct {
	name  string
	obj   history.Object
	param string
	src   string
	want  []string
}{
	{"queue", history.Queue, "", `
# a queue  
# @object atomic-queue
[1] call enqueue(a)
	[2] call dequeue()
[1] return
[2] return a    # trailing comment
[3] call DEQUEUE
[3] return empty
`, []string{
		"0 call [1] add(a p=0) pending",
		"1 call [2] rem( p=0) pending",
		"2 return [1] add(a p=0) => ",
		"3 return [2] rem( p=0) => a",
		"4 call [3] rem( p=0) pending",
		"5 return [3] rem( p=0) => empty",
	}},
	{"stack", history.Stack, "", `# @object stack
[p1] call push( 1 )
[p1] return
[p2]call pop ( ) # spaces everywhere
[p2] return 1
[p2] call pop
`, []string{
		"0 call [p1] add(1 p=0) pending",
		"1 return [p1] add(1 p=0) => ",
		"2 call [p2] rem( p=0) pending",
		"3 return [p2] rem( p=0) => 1",
		"4 call [p2] rem( p=0) pending",
	}},
	{"priority queue", history.PQueue, "", `# @object atomic-priority-queue
[1] call add(a, 5)
[2] call add(7)
[3] call add(b,-2)
[1] return
[2] return
[3] return
[4] call removeMax
[4] return 7
`, []string{
		"0 call [1] add(a p=5) pending",
		"1 call [2] add(7 p=7) pending",
		"2 call [3] add(b p=-2) pending",
		"3 return [1] add(a p=5) => ",
		"4 return [2] add(7 p=7) => ",
		"5 return [3] add(b p=-2) => ",
		"6 call [4] rem( p=0) pending",
		"7 return [4] rem( p=0) => 7",
	}},
	{"set", history.Set, "", `# @object set
[1] call add(x)
[1] return true
[2] call contains(x)
[2] return true
[3] call remove(x)
[3] return false
`, []string{
		"0 call [1] add(x p=0) pending",
		"1 return [1] add(x p=0) => true",
		"2 call [2] contains(x p=0) pending",
		"3 return [2] contains(x p=0) => true",
		"4 call [3] rem(x p=0) pending",
		"5 return [3] rem(x p=0) => false",
	}},
	{"register", history.Register, "0", `# @object atomic-register 0
[1] call write(1)
[2] call read
[2] return 0
[1] return
`, []string{
		"0 call [1] write(1 p=0) pending",
		"1 call [2] read( p=0) pending",
		"2 return [2] read( p=0) => 0",
		"3 return [1] write(1 p=0) => ",
	}},
	{"lock", history.Lock, "", `# @object mutex
[1] call lock(t1)
[1] return
[2] call unlock
[2] return t1
[3] call lock
[3] return
[4] call unlock
[4] return
`, []string{
		"0 call [1] lock(t1 p=0) pending",
		"1 return [1] lock(t1 p=0) => ",
		"2 call [2] unlock( p=0) pending",
		"3 return [2] unlock( p=0) => t1",
		"4 call [3] lock( p=0) pending",
		"5 return [3] lock( p=0) => ",
		"6 call [4] unlock( p=0) pending",
		"7 return [4] unlock( p=0) => ",
	}},
	{"semaphore", history.Semaphore, "2", `# @object atomic-semaphore 2 # two slots
[1] call acquire(a)
[2] call acquire(b)
[1] return
[2] return
[3] call release
[3] return b
`, []string{
		"0 call [1] acquire(a p=0) pending",
		"1 call [2] acquire(b p=0) pending",
		"2 return [1] acquire(a p=0) => ",
		"3 return [2] acquire(b p=0) => ",
		"4 call [3] release( p=0) pending",
		"5 return [3] release( p=0) => b",
	}},
	{"exchanger", history.Exchanger, "", `# @object exchanger
[1] call exchange(a)
[2] call exchange(b)
[1] return b
[2] return a
[3] call exchange(c)
[3] return null
`, []string{
		"0 call [1] exchange(a p=0) pending",
		"1 call [2] exchange(b p=0) pending",
		"2 return [1] exchange(a p=0) => b",
		"3 return [2] exchange(b p=0) => a",
		"4 call [3] exchange(c p=0) pending",
		"5 return [3] exchange(c p=0) => null",
	}},
	{"cas-register", history.CASRegister, "", `# @object cas-register
[1] call cas(1, 2)
[1] return fail
[2] call read
[2] return nil
`, []string{
		"0 call [1] cas(2 p=0) pending",
		"1 return [1] cas(2 p=0) => fail",
		"2 call [2] read( p=0) pending",
		"3 return [2] read( p=0) => nil",
	}},
	{"string-register", history.StringRegister, "", `# @object string-register
[1] call append(ab)
[1] return
[2] call get
[2] return
`, []string{
		"0 call [1] append(ab p=0) pending",
		"1 return [1] append(ab p=0) => ",
		"2 call [2] read( p=0) pending",
		"3 return [2] read( p=0) => ",
	}},
}

func TestValidLogs(t *testing.T) {
	covered := map[history.Object]bool{}
	for _, tc := range validLogs {
		t.Run(tc.name, func(t *testing.T) {
			covered[tc.obj] = true
			acts, rd, err := readAll(tc.src, Options{Name: "v.log"})
			if err != nil {
				t.Fatal(err)
			}
			if rd.Object() != tc.obj || rd.Param() != tc.param {
				t.Errorf("object %v param %q, want %v %q", rd.Object(), rd.Param(), tc.obj, tc.param)
			}
			var got []string
			for _, a := range acts {
				got = append(got, show(a))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("actions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	for _, o := range history.Objects {
		if !covered[o] {
			t.Errorf("no valid log of %v", o)
		}
	}
}

func TestLinesAndObjectTiming(t *testing.T) {
	src := "# c\n\n# @object stack\n\n[1] call push(a)\n\n[1] return\n"
	rd := NewReader(strings.NewReader(src), Options{Name: "x"})
	if rd.Object() != history.NoObject {
		t.Errorf("object before reading: %v", rd.Object())
	}
	a, err := rd.Next()
	if err != nil || a.Line != 5 || a.Seq != 0 {
		t.Fatalf("first action %+v, %v; want line 5 seq 0", a, err)
	}
	if rd.Object() != history.Stack {
		t.Errorf("object after the first action: %v", rd.Object())
	}
	a, err = rd.Next()
	if err != nil || a.Line != 7 || a.Seq != 1 {
		t.Fatalf("second action %+v, %v; want line 7 seq 1", a, err)
	}
	for range 2 {
		if _, err := rd.Next(); err != io.EOF {
			t.Fatalf("at the end: %v, want io.EOF", err)
		}
	}
}

func TestAliases(t *testing.T) {
	tests := []struct {
		obj   history.Object
		names []string
		m     history.Method
	}{
		{history.Queue, []string{"add", "put", "push", "enqueue", "offer", "insert", "Enqueue"}, history.Add},
		{history.Queue, []string{"rem", "remove", "pop", "get", "dequeue", "poll", "take", "DEQUEUE"}, history.Rem},
		{history.Stack, []string{"push", "add", "put", "PUSH"}, history.Add},
		{history.Stack, []string{"pop", "rem", "remove", "get"}, history.Rem},
		{history.PQueue, []string{"add", "insert", "put"}, history.Add},
		{history.PQueue, []string{"removemax", "deleteMax", "rem", "poll"}, history.Rem},
		{history.Set, []string{"add", "insert", "put"}, history.Add},
		{history.Set, []string{"remove", "rem", "delete", "erase"}, history.Rem},
		{history.Set, []string{"contains", "has", "member", "lookup", "find"}, history.Contains},
		{history.Register, []string{"write", "set", "store"}, history.Write},
		{history.Register, []string{"read", "get", "load"}, history.Read},
		{history.Lock, []string{"lock", "acquire"}, history.LockM},
		{history.Lock, []string{"unlock", "release"}, history.Unlock},
		{history.Semaphore, []string{"acquire", "down", "p", "wait"}, history.Acquire},
		{history.Semaphore, []string{"release", "up", "v", "signal"}, history.Release},
		{history.Exchanger, []string{"exchange", "swap"}, history.Exchange},
	}
	for _, tc := range tests {
		sig, _ := history.SignatureOf(tc.obj, tc.m)
		for _, n := range tc.names {
			call := n
			if sig.MinArgs > 0 {
				call += "(7)"
			}
			src := fmt.Sprintf("# @object %s\n[1] call %s\n", tc.obj, call)
			acts, _, err := readAll(src, Options{Name: "a"})
			if err != nil {
				t.Errorf("%v %s: %v", tc.obj, n, err)
				continue
			}
			if len(acts) != 1 || acts[0].Label.Method != tc.m {
				t.Errorf("%v %s: got %v, want method %v", tc.obj, n, acts, tc.m)
			}
		}
	}
}

func TestOptions(t *testing.T) {
	tests := []struct {
		name  string
		opt   Options
		src   string
		obj   history.Object
		param string
	}{
		{"object from options", Options{Object: history.Semaphore, Param: "2"}, "[1] call acquire\n", history.Semaphore, "2"},
		{"header agrees with options", Options{Object: history.Queue}, "# @object queue\n[1] call pop\n", history.Queue, ""},
		{"options parameter for header", Options{Param: "3"}, "# @object semaphore\n[1] call acquire\n", history.Semaphore, "3"},
		{"header parameter wins", Options{Object: history.Register, Param: "0"}, "# @object register 5\n[1] call read\n", history.Register, "5"},
		{"empty log with options", Options{Object: history.Stack}, "# nothing\n", history.Stack, ""},
		{"empty log", Options{}, "", history.NoObject, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rd, err := readAll(tc.src, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if rd.Object() != tc.obj || rd.Param() != tc.param {
				t.Errorf("object %v param %q, want %v %q", rd.Object(), rd.Param(), tc.obj, tc.param)
			}
		})
	}
}

func TestPendingAndReuse(t *testing.T) {
	src := `# @object queue
[1] call push(a)
[2] call pop
[1] return
[1] call push(b)
[3] call push(c)
[2] return a
[4] call pop
`
	_, rd, err := readAll(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rd.Pending(), " "); got != "1 3 4" {
		t.Errorf("pending %q, want \"1 3 4\"", got)
	}
	h, err := ReadHistory(strings.NewReader(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h.String() != "atomic-queue {[1] add(a) @0-2; [2] rem ⇒ a @1-5; [1] add(b) ⇒ ⊥ @3--1; [3] add(c) ⇒ ⊥ @4--1; [4] rem ⇒ ⊥ @6--1}" {
		t.Errorf("history %s", h)
	}
}

// The reader's memory must not grow with the log: after many returned
// operations it still holds only the fixed ring.
func TestBoundedMemory(t *testing.T) {
	var b strings.Builder
	b.WriteString("# @object stack\n")
	const n = 3 * doneMemory
	for i := range n {
		fmt.Fprintf(&b, "[%d] call push(%d)\n[%d] return\n", i, i, i)
	}
	b.WriteString("[x] call pop\n")
	_, rd, err := readAll(b.String(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rd.open.Len() != 1 || len(rd.done.ids) != doneMemory || len(rd.free) > 1 {
		t.Errorf("open %d, ring %d, free structs %d; want 1, %d, at most 1", rd.open.Len(), len(rd.done.ids), len(rd.free), doneMemory)
	}
}

// A second return names the line of the first while the ring remembers
// it, the latest one when an id was reused, and is a plain "return without
// call" once the ring has moved on.
func TestSecondReturnLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("# @object stack\n[a] call push(1)\n[a] return\n[a] call push(2)\n[a] return\n")
	for i := range doneMemory - 1 {
		fmt.Fprintf(&b, "[%d] call push(%d)\n[%d] return\n", i, i, i)
	}
	lines := 5 + 2*(doneMemory-1)
	_, _, err := readAll(b.String()+"[a] return\n", Options{Name: "l"})
	if want := fmt.Sprintf("l:%d:2: second return for [a] (returned at line 5)", lines+1); err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	_, _, err = readAll(b.String()+"[0] return\n", Options{Name: "l"})
	if want := fmt.Sprintf("l:%d:2: second return for [0] (returned at line 7)", lines+1); err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	fmt.Fprintf(&b, "[z] call push(0)\n[z] return\n")
	_, _, err = readAll(b.String()+"[a] return\n", Options{Name: "l"})
	if err == nil || !strings.Contains(err.Error(), "return without call: no call [a] is open") {
		t.Errorf("got %v, want a return without call", err)
	}
}

func TestReadHistoryErrors(t *testing.T) {
	if _, err := ReadHistory(strings.NewReader("# empty\n"), Options{Name: "e.log"}); err == nil || !strings.Contains(err.Error(), "e.log:1:1: no object") {
		t.Errorf("empty log without object: %v", err)
	}
	h, err := ReadHistory(strings.NewReader(""), Options{Object: history.Set})
	if err != nil || h.Object != history.Set || len(h.Ops) != 0 {
		t.Errorf("empty log with object: %v, %v", h, err)
	}
	if _, err := ReadHistory(strings.NewReader("# @object set\n[1] call pop\n"), Options{Name: "s"}); err == nil || !strings.HasPrefix(err.Error(), "s:2:10: unknown method") {
		t.Errorf("bad log: %v", err)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader("# @object queue\n"), failingReader{})
	rd := NewReader(r, Options{Name: "f"})
	_, err := rd.Next()
	if err == nil || err.Error() != "f:2:1: read error: disk on fire" {
		t.Errorf("got %v", err)
	}
}

// A monitor reads from a pipe while the program runs: the first action
// must be available before the writer has closed, even when lines arrive
// in pieces.
func TestPipe(t *testing.T) {
	pr, pw := io.Pipe()
	gotFirst := make(chan struct{})
	go func() {
		for _, s := range []string{"# @object ", "queue\n[1] call en", "queue(a)", "\n"} {
			if _, err := pw.Write([]byte(s)); err != nil {
				return
			}
		}
		<-gotFirst
		pw.Write([]byte("[1] return\n"))
		pw.Close()
	}()
	rd := NewReader(pr, Options{Name: "<stdin>"})
	type result struct {
		a   history.Action
		err error
	}
	res := make(chan result, 1)
	go func() {
		a, err := rd.Next()
		res <- result{a, err}
	}()
	// The deadline only turns a hang into a failure; it does not time the
	// reader.
	select {
	case r := <-res:
		if r.err != nil || show(r.a) != "0 call [1] add(a p=0) pending" {
			t.Fatalf("first action %s, %v", show(r.a), r.err)
		}
	case <-time.After(time.Minute):
		pw.CloseWithError(errors.New("test gave up"))
		t.Fatal("the first action was not available before the writer closed")
	}
	close(gotFirst)
	a, err := rd.Next()
	if err != nil || show(a) != "1 return [1] add(a p=0) => " {
		t.Fatalf("second action %s, %v", show(a), err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

func readTree(t *testing.T, root string, want func(path string, h *history.History)) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".log") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		h, err := ReadHistory(f, Options{Name: path})
		if err != nil {
			t.Errorf("%v", err)
			return nil
		}
		want(path, h)
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPaperHistories(t *testing.T) {
	root := filepath.Join(testutil.Root(t), "..", "shared", "data", "paper-histories")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("paper histories not found at %s (shared data is absent): %v", root, err)
	}
	n := readTree(t, root, func(path string, h *history.History) {
		if h.Object != history.Queue && h.Object != history.Stack {
			t.Errorf("%s: object %v", path, h.Object)
		}
		if len(h.Ops) == 0 {
			t.Errorf("%s: no operations", path)
		}
	})
	if n < 600 {
		t.Errorf("read only %d paper histories, want over 600", n)
	}
}

func TestRepoTestdata(t *testing.T) {
	root := filepath.Join(testutil.Root(t), "testdata")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no testdata at %s", root)
	}
	seen := map[history.Object]bool{}
	readTree(t, root, func(path string, h *history.History) { seen[h.Object] = true })
	t.Logf("objects seen: %v", seen)
}

// The lexer's ASCII fast path must agree with unicode.IsSpace, or a value
// could be split differently from the way the writer expects.
func TestASCIISpace(t *testing.T) {
	for c := range utf8.RuneSelf {
		if asciiSpace(byte(c)) != unicode.IsSpace(rune(c)) {
			t.Errorf("asciiSpace(%#x) = %v", c, asciiSpace(byte(c)))
		}
	}
	if got := wordEnd("a\u00a0b c", 0); got != 1 {
		t.Errorf("a no-break space does not end a token: wordEnd = %d", got)
	}
}
