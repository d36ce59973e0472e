package logfmt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/history"
)

// readEvents reads every event of a log in format f.
func readEvents(t *testing.T, text string, f Format) ([]Event, error) {
	t.Helper()
	src, err := NewSource(strings.NewReader(text), f, Options{Name: "t.log"})
	if err != nil {
		return nil, err
	}
	var evs []Event
	for {
		e, err := src.NextEvent()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, e)
	}
}

// showEvents renders events compactly: "obj:call:id:label" per event.
func showEvents(evs []Event) string {
	var parts []string
	for _, e := range evs {
		k := "call"
		if e.Kind == history.Return {
			k = "ret"
		}
		parts = append(parts, fmt.Sprintf("%s:%s:%s:%s@%d", e.Object.Label(), k, e.ID, e.Label, e.Line))
	}
	return strings.Join(parts, " | ")
}

func TestNamedObjects(t *testing.T) {
	log := `# two queues and a register
# @object q1 queue
# @object r register 0
[1] call q1.enqueue(a)
# @object q2 atomic-queue
[2] call q2.enqueue(b)
[1] return
[3] call r.write(5)
[2] return
[3] return
[4] call q1.dequeue
[4] return a
`
	evs, err := readEvents(t, log, Auto)
	if err != nil {
		t.Fatal(err)
	}
	got := showEvents(evs)
	want := "q1:call:1:add(a) ⇒ ⊥@4 | q2:call:2:add(b) ⇒ ⊥@6 | q1:ret:1:add(a)@7 | r:call:3:write(5) ⇒ ⊥@8 | q2:ret:2:add(b)@9 | r:ret:3:write(5)@10 | q1:call:4:rem ⇒ ⊥@11 | q1:ret:4:rem ⇒ a@12"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if evs[0].Object != evs[2].Object || evs[3].Object.Param != "0" || evs[3].Object.Kind != history.Register {
		t.Fatalf("objects: %+v %+v", evs[0].Object, evs[3].Object)
	}
	for i, e := range evs {
		if e.Seq != i {
			t.Fatalf("event %d has Seq %d: Seq counts the log's actions", i, e.Seq)
		}
	}
}

// A log of one object reads as it always has: the plain header, with
// the object's kind named first.
func TestSingleObjectUnchanged(t *testing.T) {
	for _, log := range []string{
		"# @object register 0\n[1] call write(1)\n[1] return\n",
		"# @object atomic-register queue\n[1] call read\n[1] return queue\n",
	} {
		evs, err := readEvents(t, log, Auto)
		if err != nil {
			t.Fatal(err)
		}
		if evs[0].Object.Name != "" || evs[0].Object.Kind != history.Register {
			t.Fatalf("%q: object %+v, want the unnamed register", log, evs[0].Object)
		}
		if NamedObjects(bufio.NewReader(strings.NewReader(log))) {
			t.Fatalf("%q taken for a log of named objects", log)
		}
	}
}

func TestNamedObjectErrors(t *testing.T) {
	cases := []struct{ log, want string }{
		{"# @object q1 queue\n[1] call enqueue(a)\n", "2:10: method \"enqueue\" names no object"},
		{"# @object q1 queue\n[1] call q2.enqueue(a)\n", "2:10: unknown object \"q2\": declare it"},
		{"# @object q1 queue\n# @object q1 stack\n", "2:11: object \"q1\" declared twice (first at line 1)"},
		{"# @object q1 queue\n# @object stack\n", "2:3: '# @object KIND' in a log of named objects"},
		{"# @object stack\n# @object q1 queue\n", "2:3: second '# @object' header"},
		{"# @object q.1 queue\n", "1:12: object name \"q.1\" contains '.'"},
		{"# @object q1 qeueu\n", "1:14: unknown kind \"qeueu\" for object \"q1\""},
		{"# @object qeueu 3\n", "1:11: unknown object \"qeueu\""},
		{"# @object q1 queue\n# @object q2 qeueu\n", "2:14: unknown kind \"qeueu\" for object \"q2\""},
		{"# @object q1 queue\n[1] call q1.push\n", "2:13: wrong number of arguments"},
		{"# @object q1 queue\n[1] call q1.\n", "2:13: missing method name"},
		{"# @object s semaphore x\n", "1:23: bad parameter"},
		{"# @object q1 queue\n[1] call q1.enqueue(a)\n[1] return 5\n", "3:12: wrong number of return values"},
		{"# @object queue\n[1] call q1.enqueue(a)\n", "declare each with '# @object NAME KIND'"},
	}
	for _, c := range cases {
		_, err := readEvents(t, c.log, Auto)
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want …%s…", c.log, err, c.want)
		}
	}
}

func TestDetect(t *testing.T) {
	cases := []struct {
		text string
		want Format
	}{
		{"INFO  jepsen.util - 0\t:invoke\t:read\tnil\n", Jepsen},
		{"\n# comment\n{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n", EDN},
		{`{"process": 0, "type": "invoke", "f": "get", "key": "1", "value": null}` + "\n", JSON},
		{"# @object queue\n[1] call enqueue(1)\n", Native},
		{"garbage\n", Native},
		{"", Native},
		{"\ufeff{:process 0}", EDN},
	}
	for _, c := range cases {
		if got := Detect(bufio.NewReader(strings.NewReader(c.text))); got != c.want {
			t.Errorf("Detect(%q) = %s, want %s", c.text, got, c.want)
		}
	}
}

// etcdLog is a Jepsen register history of reads and writes, with an
// :info write (pending to the end, the process invoking again) and a read
// that failed with :timed-out (no return).
const etcdLog = `INFO  jepsen.util - 0	:invoke	:read	nil
INFO  jepsen.util - 1	:invoke	:write	4
INFO  jepsen.util - 0	:ok	:read	nil
INFO  jepsen.util - 1	:info	:write	:timed-out
INFO  jepsen.util - 1	:invoke	:read	nil
INFO  jepsen.util - 2   :invoke  :read   nil
INFO  jepsen.util - 1	:ok	:read	4
INFO  jepsen.util - 2	:fail	:read	:timed-out
INFO  jepsen.util - 2	:invoke	:write	3
INFO  jepsen.util - 2	:ok	:write	3
`

func TestJepsenLines(t *testing.T) {
	evs, err := readEvents(t, etcdLog, Auto)
	if err != nil {
		t.Fatal(err)
	}
	got := showEvents(evs)
	want := fmt.Sprintf("%[1]s:call:0:read ⇒ ⊥@1 | %[1]s:call:1:write(4) ⇒ ⊥@2 | %[1]s:ret:0:read ⇒ nil@3 | %[1]s:call:1~1:read ⇒ ⊥@5 | %[1]s:call:2:read ⇒ ⊥@6 | %[1]s:ret:1~1:read ⇒ 4@7 | %[1]s:call:2~1:write(3) ⇒ ⊥@9 | %[1]s:ret:2~1:write(3)@10",
		casRegister.kind)
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if p := evs[0].Object.Param; p != casRegister.param {
		t.Fatalf("param %q, want %q", p, casRegister.param)
	}
}

// The same events as EDN maps and as JSON objects read the same, keys
// making one object each; the EDN is read by an EDN library, so commas,
// spacing and key order do not matter.
func TestEventMaps(t *testing.T) {
	ednLog := `{:process 0, :type :invoke, :f :put, :key "1", :value "x 0 0 y"}
{:type :invoke :process 1 :f :get :key "2" :value nil}
{:process 0, :type :ok, :f :put, :key "1", :value "x 0 0 y"}
{:process 1, :type :ok, :f :get, :key "2", :value ""}
{:process :nemesis, :type :info, :f :start, :value nil}
{:process 2, :type :invoke, :f :get, :key "1", :value nil}
{:process 2, :type :info, :f :get, :key "1", :value nil}
{:process 2, :type :invoke, :f :get, :key "1", :value nil}
{:process 2, :type :ok, :f :get, :key "1", :value "x 0 0 y"}
`
	jsonLog := `{"process": 0, "type": "invoke", "f": "put", "key": "1", "value": "x 0 0 y"}
{"type": ":invoke", "process": 1, "f": ":get", "key": "2", "value": null}
{"process": 0, "type": "ok", "f": "put", "key": "1", "value": "x 0 0 y"}
{"process": 1, "type": "ok", "f": "get", "key": "2", "value": ""}
{"process": ":nemesis", "type": "info", "f": "start"}
{"process": 2, "type": "invoke", "f": "get", "key": "1", "value": null}
{"process": 2, "type": "info", "f": "get", "key": "1", "value": null}
{"process": 2, "type": "invoke", "f": "get", "key": "1"}
{"process": 2, "type": "ok", "f": "get", "key": "1", "value": "x 0 0 y"}
`
	e1, err := readEvents(t, ednLog, Auto)
	if err != nil {
		t.Fatal(err)
	}
	e2, err := readEvents(t, jsonLog, Auto)
	if err != nil {
		t.Fatal(err)
	}
	if showEvents(e1) != showEvents(e2) {
		t.Fatalf("EDN  %s\nJSON %s", showEvents(e1), showEvents(e2))
	}
	want := `1:call:0:write(x 0 0 y) ⇒ ⊥@1 | 2:call:1:read ⇒ ⊥@2 | 1:ret:0:write(x 0 0 y)@3 | 2:ret:1:read ⇒ ""@4 | 1:call:2:read ⇒ ⊥@6 | 1:call:2~1:read ⇒ ⊥@8 | 1:ret:2~1:read ⇒ x 0 0 y@9`
	if stringRegister.kind == history.Register && showEvents(e1) != want {
		t.Fatalf("got  %s\nwant %s", showEvents(e1), want)
	}
	if e1[0].Object == e1[1].Object || e1[0].Object != e1[2].Object {
		t.Fatal("keys must be objects of their own")
	}
}

// cas maps to its label, old and new kept apart, and :fail to its
// outcome; append to the string register's append.
func TestCasAndAppend(t *testing.T) {
	cas := "INFO  jepsen.util - 2\t:invoke\t:cas\t[3 0]\nINFO  jepsen.util - 2\t:fail\t:cas\t[3 0]\n"
	app := `{:process 0, :type :invoke, :f :append, :key "4", :value "x 0 1 y"}` + "\n"
	evs, err := readEvents(t, cas, Auto)
	if err != nil || len(evs) != 2 || evs[0].Label.Method != history.CAS || evs[0].Label.Old != "3" || evs[0].Label.Arg != "0" ||
		evs[1].Label.Ret != history.Fail || evs[0].Object.Kind != history.CASRegister {
		t.Fatalf("cas: %v %s", err, showEvents(evs))
	}
	evs, err = readEvents(t, app, Auto)
	if err != nil || len(evs) != 1 || evs[0].Label.Method != history.Append || evs[0].Label.Arg != "x 0 1 y" || evs[0].Object.Kind != history.StringRegister {
		t.Fatalf("append: %v %s", err, showEvents(evs))
	}
}

func TestForeignErrors(t *testing.T) {
	cases := []struct {
		text string
		f    Format
		want string
	}{
		{"INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:invoke\t:read\tnil\n", Jepsen, "t.log:2:1: process 0 invokes read while its read from line 1 is open"},
		{"INFO  jepsen.util - 0\t:ok\t:read\tnil\n", Jepsen, "t.log:1:1: :ok of :read by process 0, which has no operation open"},
		{"INFO  jepsen.util - 0\t:invoke\t:frob\tnil\n", Jepsen, "t.log:1:31: unknown operation :frob"},
		{"INFO  jepsen.util - 0\t:invoke\t:write\t[1\n", Jepsen, "t.log:1:38: bad value \"[1\": the value ends too early"},
		{"INFO  jepsen.util - 0\t:invoke\t:write\t1 2\n", Jepsen, "more than one value"},
		{"INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:ok\t:write\t1\n", Jepsen, "t.log:2:27: :ok of :write by process 0, whose open operation is :read"},
		{"{:process 0 :type :invoke :f :get :key \"1\"}\n{:process 0 :type :ok :f :get :key \"1\" :value [1]}\n", EDN, "t.log:2:47: :ok :get: expected a string value"},
		{"{:process 0 :type :invoke}\n", EDN, "t.log:1:1: event without :f"},
		{"{:process 0 :type :invoke :f :get\n", EDN, "t.log:1:1: missing '}' to close the event map at line 1, column 1"},
		{"[1 2]\n", EDN, "t.log:1:2: expected an event map {:process …, :type …, :f …}, found \"1\""},
		{`{"process": 0, "type": "invoke", "f": "get"` + "\n", JSON, "t.log:1:44: bad JSON event: the line ends inside the event"},
		{`{"process": 0, "type": "invoke", "f": "get"} {}` + "\n", JSON, "more than one value"},
		{`{"process": 0, "type": "invoke", "f": "get", "key": "1"}` + "\n" + `{"process": 0, "type": "ok", "f": "get", "key": "2", "value": ""}` + "\n", JSON, "t.log:2:49: :ok for key \"2\" by process 0, whose open operation is on key \"1\""},
		{`{"process": 0, "type": "invoke", "f": "write", "value": 1}` + "\n" + `{"process": 1, "type": "invoke", "f": "get", "value": null}` + "\n", JSON, "t.log:2:1: :get is an operation of a string register, but the log's object was first used as another object"},
		{`{"process": 0, "type": "done", "f": "get", "key": "1"}` + "\n", JSON, "t.log:1:24: unknown event type :done"},
		{`{"process": 0, "type": "invoke", "f": "get", "key": "1"}` + "\n" + `{"process": 0, "type": "done", "f": "get", "key": "1"}` + "\n", JSON, "t.log:2:24: unknown event type :done"},
	}
	for _, c := range cases {
		_, err := readEvents(t, c.text, c.f)
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want …%s…", c.text, err, c.want)
		}
	}
}
