package logfmt

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/testutil"
)

// The fast EDN path (ednfast.go) must read what it accepts exactly as the
// EDN library does. Values are compared with the library's reading of the
// same text (decodeEDNLibrary); events with ednEventLibrary's, which reads
// the map by the library and, when that fails, element by element: the
// same fields, the same positions, the same error. The reader turns an
// event and its error into actions and positioned errors by the same code
// on either path, so equal events and errors mean equal actions and
// equal file:line:col messages.

// fastAgrees reports, for one value's text, how the fast path and the
// library disagree ("" when they agree or the fast path declines).
func fastAgrees(s string) string {
	fast, ok := fastEDN(s)
	if !ok {
		return ""
	}
	lib, err := decodeEDNLibrary(s)
	if err != nil {
		return "fast path reads " + describeGo(fast) + ", the library fails: " + err.Error()
	}
	if !reflect.DeepEqual(fast, lib) {
		return "fast path reads " + describeGo(fast) + ", the library " + describeGo(lib)
	}
	return ""
}

func describeGo(v any) string { return fmt.Sprintf("%#v", v) }

// eventsAgree reads text as EDN events and compares, event by event, what
// ednEvent makes of each (the fast path, when it takes it) with
// ednEventLibrary's reading. It returns the first disagreement, and how
// many events the fast path took.
func eventsAgree(text string) (diff string, fast int) {
	sc := newEDNScanner(smallReader(text))
	for n := 0; n < 100; n++ {
		elems, _, err := sc.event()
		if err != nil {
			return "", fast // the scanner's errors are the same on both paths
		}
		var m eventMap
		if fastFields(elems, &m) {
			fast++
		}
		ev, err := ednEvent(elems, sc.whole)
		lev, lerr := ednEventLibrary(elems, sc.whole, ednFieldPos(elems))
		if !reflect.DeepEqual(ev, lev) {
			return "event " + sc.whole + ": ednEvent " + describeEvent(ev) + ", library " + describeEvent(lev), fast
		}
		if !reflect.DeepEqual(err, lerr) {
			return "event " + sc.whole + ": ednEvent error " + errText(err) + ", library " + errText(lerr), fast
		}
	}
	return "", fast
}

// smallReader reads s through a buffer of its size: the scanner's own is
// 64 KiB, which would cost more than most texts here.
func smallReader(s string) *bufio.Reader {
	return bufio.NewReaderSize(strings.NewReader(s), len(s)+1)
}

func describeEvent(ev rawEvent) string {
	return quote(ev.process) + " " + quote(ev.typ) + " " + quote(ev.f) + " key " + quote(ev.key) +
		" value " + describeGo(ev.value.v)
}

func errText(err error) string {
	if err == nil {
		return "none"
	}
	return reflect.TypeOf(err).String() + " " + quote(err.Error())
}

// ednFastCases are values and events at the edges of what the fast path
// takes: each must read as the library reads it, whether the fast path
// takes it or not.
var ednFastCases = []string{
	"5", "-3", "0", "-0", "nil", "123456789012345678", "1234567890123456789", "9999999999999999999", "-9223372036854775808", "007", "+5", "5N", "1.5", "-", "--1",
	"0x10", "1e5", "nilx", "nil nil", "true", "false", "x", "",
	":timed-out", ":a", ":A-b_c?!*", ":a/b", ":a/", ":a/b/c", ":/a", "::a", ":1", ":-", ":", ":a:b", ":a#", ":é", ":a.b",
	`"x 0 1 y"`, `""`, `"é"`, "\"\x80\"", `"a\"b"`, `"a\\b"`, "\"a\tb\"", "\"a\nb\"", `"`, `"a`, `"a"b`, `"a" "b"`,
	"[1 2]", "[]", "[ ]", "[1  2]", "[1 x]", "[1 [2]]", "[1,2]", "[ 1 2 ]", "[1 2 ]", "[1 2", "1 2]", "[1]]",
	`[1"a"]`, `["a""b"]`, `["a b" 1]`, `[" "]`, "[:r 1 nil]", "[:w 1 2]", "[:cas 1 [2 3]]", "[[1 2] [3]]",
	"[1\t2]", "[1\n2]", "[#{1} 2]", "[{:a 1}]", "(1 2)", "#{1 2}", "{:a 1}", "[[[[[[[[[1]]]]]]]]]", "[[[[[[[[[[1]]]]]]]]]]",
	`{:process 0, :type :invoke, :f :append, :key "0", :value "x 0 0 y"}`,
	`{:process 0 :process 1 :type :invoke :f :read :value nil}`,
	`{:process 0 :type :invoke :f :read :value nil :value 3}`,
	`{:time 1 :time 2 :process 0 :type :invoke :f :read}`,
	`{"process" 0 :type :invoke :f :read}`,
	`{:process 0 :type :invoke :f :read 1 2}`,
	`{:process 0 :type :invoke :f :read :a/b 1}`,
	`{:process 0 :type :invoke :f :read :time #inst "2020"}`,
	`{:process 0 :type :invoke :f :read :error [:x "y}" {:z \}} #{1 2} ##Inf]}`,
	`{:process :nemesis :type :info :f :start :value #object[x]}`,
	`{:process 0 :type :invoke :f :read :value 1.5}`,
	`{:process 0 :type :invoke :f :write :value "a\"b"}`,
	`{:process 0 :type :invoke :f :cas :value [1 2]}`,
	`{:process 0 :type :invoke :f :read :value [:r 1 nil]}`,
	`{:process 0.5 :type :invoke :f :read}`,
	`{:process [0] :type :invoke :f :read}`,
	`{:process "p" :type "invoke" :f ":read"}`,
	`{:process 0 :type ":invoke" :f read}`,
	`{:process nil :type :invoke :f :read}`,
	`{:type :invoke :f :read}`,
	`{}`,
	`{:process 0 :type :invoke :f :read :key 7 :value nil}`,
	`{:process 0 :type :invoke :f :read :key :k :value nil}`,
	`{:process 0 :type :invoke :f :read :key [1] :value nil}`,
	`{:process 0, :type :ok, :f :read, :value [1 [2 3]]}`,
}

// TestEDNFastAgrees compares the fast path with the library on the edge
// cases above and on every line of the real histories of ../shared/data
// (Jepsen's log lines of jepsen-etcd, whose values it reads, and the EDN
// maps of porcupine-kv): what it reads, it reads as the library does, and
// it reads the real lines (not only declines them).
func TestEDNFastAgrees(t *testing.T) {
	t.Parallel()
	for _, s := range ednFastCases {
		if d := fastAgrees(s); d != "" {
			t.Errorf("%q: %s", s, d)
		}
		if d, _ := eventsAgree(s); d != "" {
			t.Errorf("%q: %s", s, d)
		}
	}
	for _, set := range []string{"jepsen-etcd", "porcupine-kv"} {
		lines, taken := 0, 0
		// Each distinct text is compared once; all are counted.
		done := map[string]int{}
		for name, data := range realLogs(t, set) {
			for i, line := range strings.Split(string(data), "\n") {
				for _, s := range realTexts(line) {
					lines++
					if _, ok := fastEDN(s); ok {
						taken++
					}
					if _, ok := done[s]; ok {
						continue
					}
					done[s] = 0
					if d := fastAgrees(s); d != "" {
						t.Errorf("%s/%s:%d: %q: %s", set, name, i+1, s, d)
					}
				}
				if strings.HasPrefix(line, "{") {
					lines++
					if fast, ok := done[line]; ok {
						taken += fast
						continue
					}
					d, fast := eventsAgree(line)
					done[line] = fast
					taken += fast
					if d != "" {
						t.Errorf("%s/%s:%d: %s", set, name, i+1, d)
					}
				}
			}
		}
		// The real lines are what the fast path is for: it must take
		// them, or it measures nothing.
		if taken < lines*9/10 {
			t.Errorf("%s: the fast path takes %d of %d values and events", set, taken, lines)
		}
	}
}

// realTexts are the EDN values of a line of a real history: a Jepsen log
// line's value (the text after its operation), or an EDN map's elements.
func realTexts(line string) []string {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "{") {
		sc := newEDNScanner(smallReader(line))
		elems, _, err := sc.event()
		if err != nil {
			return nil
		}
		var out []string
		for _, e := range elems {
			out = append(out, e.text)
		}
		return out
	}
	fs := strings.Fields(line)
	for i, f := range fs {
		switch f {
		case ":invoke", ":ok", ":fail", ":info":
			if i+2 < len(fs) {
				return []string{strings.Join(fs[i+2:], " ")}
			}
		}
	}
	return nil
}

// mutationBytes are what mutations insert or substitute: the bytes at
// which EDN's reading changes, and a few that change nothing.
var mutationBytes = []string{`"`, `\`, "[", "]", "{", "}", "(", ":", ",", " ", "#", ";", "-", "+", "0", "9", "a", "/", ".", "N", "\t", "\n", "é", "\x80", "\x00"}

// TestEDNFastAgreesMutated damages real lines — a byte deleted,
// inserted, substituted, a span doubled or cut — and compares the fast
// path with the library on each damaged value and event.
func TestEDNFastAgreesMutated(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 1))
	for _, set := range []string{"jepsen-etcd", "porcupine-kv"} {
		logs := realLogs(t, set)
		names := make([]string, 0, len(logs))
		for name := range logs {
			names = append(names, name)
		}
		sort.Strings(names)
		// Distinct lines, in a fixed order; a sample of them is mutated.
		seen := map[string]bool{}
		var lines []string
		for _, name := range names {
			for _, line := range strings.Split(string(logs[name]), "\n") {
				for _, s := range append(realTexts(line), strings.TrimSpace(line)) {
					if s != "" && !seen[s] {
						seen[s] = true
						lines = append(lines, s)
					}
				}
			}
		}
		rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		lines = lines[:min(len(lines), testutil.Scale(100))]
		checked := 0
		check := func(orig, s string) {
			checked++
			if d := fastAgrees(s); d != "" {
				t.Errorf("%q (from %q): %s", s, orig, d)
			}
			if strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
				if d, _ := eventsAgree(s); d != "" {
					t.Errorf("%q (from %q): %s", s, orig, d)
				}
			}
		}
		for _, line := range lines {
			for i := 0; i <= len(line); i++ {
				if i < len(line) {
					check(line, line[:i]+line[i+1:]) // deleted
				}
				for range 3 {
					b := mutationBytes[rng.IntN(len(mutationBytes))]
					check(line, line[:i]+b+line[i:]) // inserted
					if i < len(line) {
						check(line, line[:i]+b+line[i+1:]) // substituted
					}
				}
				if j := i + 1 + rng.IntN(8); j <= len(line) {
					check(line, line[:j]+line[i:]) // a span doubled
					check(line, line[:i]+line[j:]) // a span cut
				}
			}
		}
		if checked == 0 {
			t.Fatalf("%s: nothing checked", set)
		}
	}
}

// FuzzEDNFast compares the fast path with the library on arbitrary text,
// as one value and as events.
func FuzzEDNFast(f *testing.F) {
	for _, s := range ednFastCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d := fastAgrees(s); d != "" {
			t.Fatalf("%q: %s", s, d)
		}
		if d, _ := eventsAgree(s); d != "" {
			t.Fatalf("%q: %s", s, d)
		}
	})
}

// The reader reads a real EDN history to the same events whether it is
// one map per line or wrapped in a vector, pretty-printed over several
// lines: the fast path reads elements however they were spaced.
func TestEDNFastWrapped(t *testing.T) {
	t.Parallel()
	for name, data := range realLogs(t, "porcupine-kv") {
		wrapped := "[" + strings.ReplaceAll(strings.TrimSpace(string(data)), ", :", ",\n  :") + "]\n"
		a, err := readEvents(t, string(data), Auto)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := readEvents(t, wrapped, Auto)
		if err != nil {
			t.Fatalf("%s wrapped: %v", name, err)
		}
		if sameEvents(a) != sameEvents(b) {
			t.Errorf("%s: wrapped and pretty-printed, the events differ", name)
		}
	}
}
