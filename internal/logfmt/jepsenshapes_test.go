package logfmt

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// sameEvents renders events without their lines: what a checker sees of
// them besides positions.
func sameEvents(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%s/%s %d %s %s|", e.Object.Name, e.Object.Kind, e.Kind, e.ID, e.Label)
	}
	return b.String()
}

// kvEvents is a key-value history, one EDN map per line.
const kvEvents = `{:process 0, :type :invoke, :f :put, :key "1", :value "a"}
{:process 1, :type :invoke, :f :get, :key "2", :value nil}
{:process 0, :type :ok, :f :put, :key "1", :value "a"}
{:process 1, :type :ok, :f :get, :key "2", :value ""}
{:process 2, :type :invoke, :f :append, :key "1", :value "b"}
{:process 2, :type :info, :f :append, :key "1", :value "b"}
{:process 0, :type :invoke, :f :get, :key "1", :value nil}
{:process 0, :type :ok, :f :get, :key "1", :value "ab"}
`

// prettyEDN writes the events of kvEvents as Jepsen writes history.edn:
// wrapped in a vector, each map over several lines, with the fields
// satmon does not read (:time, :index, :error), comments, a discarded
// form and, when tagged, Jepsen 0.3's record tag.
func prettyEDN(t *testing.T, tagged bool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(";; history.edn\n[")
	for i, line := range strings.Split(strings.TrimSpace(kvEvents), "\n") {
		body := strings.TrimSuffix(strings.TrimPrefix(line, "{"), "}")
		if i > 0 {
			b.WriteString("\n ")
		}
		if tagged {
			b.WriteString("#jepsen.history.Op")
		}
		fmt.Fprintf(&b, "{:index %d,\n  :time #_ 0 %d,\n  :error [:x \"y}\" {:z \\}} #{1 2} ##Inf #inst \"2020\"],\n", i, 1000*i)
		for _, f := range strings.Split(body, ", ") {
			fmt.Fprintf(&b, "  %s\n", f) // one field per line, no commas
		}
		b.WriteString("  }")
	}
	b.WriteString("]\n")
	return b.String()
}

// A history.edn wrapped in a vector and pretty-printed reads as the same
// events as one map per line.
func TestEDNWrappedPrettyPrinted(t *testing.T) {
	t.Parallel()
	want, err := readEvents(t, kvEvents, Auto)
	if err != nil || len(want) != 7 {
		t.Fatalf("%v: %s", err, showEvents(want))
	}
	for _, tagged := range []bool{false, true} {
		text := prettyEDN(t, tagged)
		for _, f := range []Format{Auto, EDN} {
			got, err := readEvents(t, text, f)
			if err != nil {
				t.Fatalf("tagged=%v %v: %v\n%s", tagged, f, err, text)
			}
			if sameEvents(got) != sameEvents(want) {
				t.Errorf("tagged=%v %v:\n got  %s\n want %s", tagged, f, sameEvents(got), sameEvents(want))
			}
			// An event's line is the line of its '{'.
			if got[0].Line != 2 || got[1].Line <= got[0].Line+5 {
				t.Errorf("lines %d, %d", got[0].Line, got[1].Line)
			}
		}
	}
	// '[' alone on the first line, then maps.
	got, err := readEvents(t, "[\n"+kvEvents+"]\n", Auto)
	if err != nil || sameEvents(got) != sameEvents(want) {
		t.Errorf("'[' on its own line: %v: %s", err, showEvents(got))
	}
}

// Errors in EDN and JSON histories are placed at the field they are
// about, in the user's words.
func TestForeignErrorPositions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want string
	}{
		{"[{:process 0,\n  :type :bogus,\n  :f :read}]\n", "t.log:2:9: unknown event type :bogus (want :invoke, :ok, :fail or :info)"},
		{"{:process 0 :type :invoke :f :frob}\n", "t.log:1:30: unknown operation :frob"},
		{"[{:process 0 :type :invoke :f :read}\n", "t.log:2:1: missing ']' to close the history's '[' at line 1, column 1"},
		{"[{:process 0 :type :invoke :f :read}]\n{:process 1}\n", "t.log:2:1: unexpected '{' after the ']' that closes the history"},
		{"{:process 0 :type :invoke :f :read :value [1 2}\n", "t.log:1:47: '}' where ']' should close the '[' at line 1, column 43"},
		{"{:process 0 :type}\n", "t.log:1:13: \":type\" has no value"},
		{"{:process 0 :type :invoke :f :write :value \"abc}\n", "t.log:1:44: unterminated string"},
		{"{:process 0 :type :invoke :f :write :value 1/0x}\n", "t.log:1:44: bad EDN value \"1/0x\" for :value"},
		{"{\"process\": 0, \"type\": \"bogus\", \"f\": \"read\"}\n", "t.log:1:24: unknown event type :bogus"},
		{"{\"process\": 0, \"type\": \"invoke\" \"f\": \"read\"}\n", "t.log:1:33: bad JSON event: invalid character '\"' after object key:value pair"},
		{"INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:bogus\t:read\tnil\nINFO  jepsen.util - 0\t:ok\t:read\t[1\n", "t.log:3:33: bad value \"[1\": the value ends too early"},
	}
	for _, c := range cases {
		_, err := readEvents(t, c.text, Auto)
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want …%s…", c.text, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "No more tokens") {
			t.Errorf("%q: the EDN library's words: %v", c.text, err)
		}
	}
}

// jepsen.independent's tuples [KEY VALUE] make one object per key: the
// same events as :key fields, in every foreign format.
func TestIndependentTuples(t *testing.T) {
	t.Parallel()
	keyed, err := readEvents(t, kvEvents, EDN)
	if err != nil {
		t.Fatal(err)
	}
	var tuples strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(kvEvents), "\n") {
		// {:process 0, :type :invoke, :f :put, :key "1", :value "a"} →
		// {:process 0, :type :invoke, :f :put, :value ["1" "a"]}
		i := strings.Index(line, ":key ")
		j := strings.Index(line, ", :value ")
		key := line[i+len(":key ") : j]
		val := strings.TrimSuffix(line[j+len(", :value "):], "}")
		fmt.Fprintf(&tuples, "%s:value [%s %s]}\n", line[:i], key, val)
	}
	got, err := readEvents(t, tuples.String(), Auto)
	if err != nil || sameEvents(got) != sameEvents(keyed) {
		t.Fatalf("%v\n got  %s\n want %s\n%s", err, sameEvents(got), sameEvents(keyed), tuples.String())
	}

	// A register history in Jepsen's log lines, keys 0 and 1: the cas
	// value [KEY [OLD NEW]], reads [KEY nil].
	lines := `INFO  jepsen.util - 0	:invoke	:write	[0 1]
INFO  jepsen.util - 1	:invoke	:read	[1 nil]
INFO  jepsen.util - 0	:ok	:write	[0 1]
INFO  jepsen.util - 1	:ok	:read	[1 nil]
INFO  jepsen.util - 0	:invoke	:cas	[0 [1 2]]
INFO  jepsen.util - 0	:fail	:cas	[0 [1 2]]
INFO  jepsen.util - 1	:invoke	:read	[0 nil]
INFO  jepsen.util - 1	:info	:read	:timed-out
`
	evs, err := readEvents(t, lines, Auto)
	if err != nil {
		t.Fatal(err)
	}
	want := "0/atomic-cas-register 1 0 write(1) ⇒ ⊥|1/atomic-cas-register 1 1 read ⇒ ⊥|0/atomic-cas-register 2 0 write(1)|1/atomic-cas-register 2 1 read ⇒ nil|0/atomic-cas-register 1 0 cas(1,2) ⇒ ⊥|0/atomic-cas-register 2 0 cas(1,2) ⇒ fail|0/atomic-cas-register 1 1 read ⇒ ⊥|"
	if g := sameEvents(evs); g != want {
		t.Errorf("independent register:\n got  %s\n want %s", g, want)
	}
	// A plain cas [OLD NEW] is not a tuple: the log is one object.
	evs, err = readEvents(t, "INFO  jepsen.util - 0\t:invoke\t:cas\t[1 2]\n", Auto)
	if err != nil || len(evs) != 1 || evs[0].Object.Name != "" {
		t.Errorf("plain cas: %v %s", err, showEvents(evs))
	}
	// Once independent, an invoke without a tuple is an error.
	_, err = readEvents(t, "INFO  jepsen.util - 0\t:invoke\t:write\t[0 1]\nINFO  jepsen.util - 1\t:invoke\t:write\t3\n", Auto)
	if err == nil || !strings.Contains(err.Error(), "t.log:2:38: expected a jepsen.independent tuple [KEY VALUE]") {
		t.Errorf("mixed: %v", err)
	}
}

// A Jepsen log's other lines are skipped, counted and kept to be listed.
func TestJepsenForeignLines(t *testing.T) {
	t.Parallel()
	want, err := readEvents(t, etcdLog, Auto)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(etcdLog, "\n")
	foreign := []string{
		"INFO  jepsen.core - Running test etcd\n",
		"WARN  jepsen.control - retrying\n",
		"java.lang.RuntimeException: timeout\n",
		"\tat clojure.core$fn__123.invoke(core.clj:42)\n",
	}
	text := foreign[0] + foreign[1] + strings.Join(lines[:3], "") + foreign[2] + foreign[3] + strings.Join(lines[3:], "")
	src, err := NewSource(strings.NewReader(text), Auto, Options{Name: "t.log"})
	if err != nil {
		t.Fatal(err)
	}
	var got []Event
	for {
		e, err := src.NextEvent()
		if err != nil {
			break
		}
		got = append(got, e)
	}
	if sameEvents(got) != sameEvents(want) {
		t.Errorf("got  %s\nwant %s", sameEvents(got), sameEvents(want))
	}
	n, list := src.(Skipper).Skipped()
	if n != 4 || len(list) != 4 || list[0].Line != 1 || list[2].Line != 6 || list[3].Text != strings.TrimSuffix(foreign[3], "\n") {
		t.Errorf("skipped %d: %+v", n, list)
	}
}

// A nemesis's events are skipped unread: their values may be anything
// Jepsen prints, unreadable as EDN included.
func TestNemesisValuesUnread(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"{:process :nemesis, :type :info, :f :start, :value [:isolated 1/0x]}\n{:process 0, :type :invoke, :f :read, :value nil}\n",
		"INFO  jepsen.util - :nemesis\t:info\t:start\t[:isolated 1/0x]\nINFO  jepsen.util - 0\t:invoke\t:read\tnil\n",
	} {
		evs, err := readEvents(t, text, Auto)
		if err != nil || len(evs) != 1 {
			t.Errorf("%q: %v, %s", text, err, showEvents(evs))
		}
	}
	// Any other process's unreadable value is an error.
	_, err := readEvents(t, "{:process 0, :type :invoke, :f :write, :value [:isolated 1/0x]}\n", Auto)
	if err == nil || !strings.Contains(err.Error(), "t.log:1:47: bad EDN value") {
		t.Errorf("unreadable value: %v", err)
	}
}
