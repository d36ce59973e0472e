package logfmt

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/history"
)

// readEvents reads src to its end with NextEvent.
func readCrashEvents(src string, opt Options) ([]Event, error) {
	rd := NewReader(strings.NewReader(src), opt)
	var evs []Event
	for {
		ev, err := rd.NextEvent()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

// showEvent prints an event, a crash as "crash [ID]@line".
func showEvent(e Event) string {
	if e.Abandon {
		return fmt.Sprintf("crash [%s]@%d", e.ID, e.Line)
	}
	return show(e.Action)
}

// "[ID] crash" reads as an Event with Abandon set (with Options.Abandons),
// counts in no Seq, and is skipped by Next; the operation stays pending.
func TestCrashLine(t *testing.T) {
	t.Parallel()
	log := `# @object atomic-register 0
[1] call write(1)
[2] call read
[1] CRASH   # the client died
[2] return 1
[3] call read
[3] return 1
`
	evs, err := readCrashEvents(log, Options{Abandons: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, showEvent(e))
	}
	want := []string{"0 call [1] write(1 p=0) pending", "1 call [2] read( p=0) pending", "crash [1]@4",
		"2 return [2] read( p=0) => 1", "3 call [3] read( p=0) pending", "4 return [3] read( p=0) => 1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Without Abandons, and with Next, no event marks the crash.
	for _, opt := range []Options{{}, {Abandons: true}} {
		acts, rd, err := readAll(log, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(acts) != 5 || acts[2].Kind != history.Return || acts[2].Seq != 2 {
			t.Fatalf("Next with %+v: %d actions, third %s", opt, len(acts), show(acts[2]))
		}
		if p := rd.Pending(); len(p) != 1 || p[0] != "1" {
			t.Fatalf("pending %v, want [1]", p)
		}
	}
	evs, err = readCrashEvents(log, Options{})
	if err != nil || len(evs) != 5 {
		t.Fatalf("NextEvent without Abandons: %d events, %v", len(evs), err)
	}
	hist, err := ReadHistory(strings.NewReader(log), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hist.Ops[0].Pending() {
		t.Fatalf("the crashed write is not pending: %v", hist)
	}
}

// What a crash line may not do, each a positioned error.
func TestCrashErrors(t *testing.T) {
	t.Parallel()
	const q = "# @object queue\n"
	cases := []struct{ name, src, pos, msg string }{
		{"without call", q + "[1] crash\n", "2:2", "crash without call: no call [1] is open"},
		{"after return", q + "[1] call pop\n[1] return empty\n[1] crash\n", "4:2", "crash of [1], which returned at line 3: only an open operation can crash"},
		{"twice", q + "[1] call pop\n[1] crash\n[1] crash\n", "4:2", "second crash for [1] (crashed at line 3)"},
		{"return after", q + "[1] call pop\n[1] crash\n[1] return empty\n", "4:2", "return of [1], which crashed at line 3: a crashed operation never returns"},
		{"fast return after", q + "[1] call push(a)\n[1] crash\n[1] return\n", "4:2", "return of [1], which crashed at line 3: a crashed operation never returns"},
		{"id reused", q + "[1] call pop\n[1] crash\n[1] call pop\n", "4:2", "duplicate id [1]: it crashed at line 3"},
		{"trailing word", q + "[1] call pop\n[1] crash now\n", "3:11", `unexpected "now" after "crash"`},
	}
	for _, tc := range cases {
		_, err := readCrashEvents(tc.src, Options{Name: "t.log", Abandons: true})
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "t.log:"+tc.pos+": ") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %q, want at %s saying %q", tc.name, err, tc.pos, tc.msg)
		}
	}
}

// What the Writer writes, crashes included, reads back the same: random
// register logs where some open operations crash.
func TestCrashRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 3))
	for n := 0; n < 200; n++ {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, history.Register, "0")
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		var open []string
		crashed := map[string]bool{}
		seq, line := 0, 1
		for k := 0; k < 20; k++ {
			line++
			switch r := rng.IntN(4); {
			case r == 0 && len(open) > 0:
				i := rng.IntN(len(open))
				id := open[i]
				open = append(open[:i], open[i+1:]...)
				crashed[id] = true
				if err := w.WriteCrash(id); err != nil {
					t.Fatal(err)
				}
				want = append(want, fmt.Sprintf("crash [%s]@%d", id, line))
			case r == 1 && len(open) > 0:
				id := open[0]
				open = open[1:]
				a := history.Action{Kind: history.Return, ID: id, Label: history.Label{Method: history.Write, Arg: "5"}, Seq: seq}
				seq++
				if err := w.Write(a); err != nil {
					t.Fatal(err)
				}
				want = append(want, show(a))
			default:
				id := fmt.Sprintf("c%d", k)
				open = append(open, id)
				a := history.Action{Kind: history.Call, ID: id, Label: history.Label{Method: history.Write, Arg: "5", Pending: true}, Seq: seq}
				seq++
				if err := w.Write(a); err != nil {
					t.Fatal(err)
				}
				want = append(want, show(a))
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		evs, err := readCrashEvents(buf.String(), Options{Abandons: true})
		if err != nil {
			t.Fatalf("%v\n%s", err, buf.String())
		}
		var got []string
		for _, e := range evs {
			got = append(got, showEvent(e))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("read back:\n%s\nwrote:\n%s\nlog:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), buf.String())
		}
	}
	if got := string(AppendCrash(nil, "w-1")); got != "[w-1] crash" {
		t.Errorf("AppendCrash: %q", got)
	}
}
