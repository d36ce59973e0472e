package logfmt

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/history"
)

// FuzzReader reads arbitrary bytes: the reader must not panic, must fail
// only with a positioned *Error that sticks, and whatever it accepts must
// come back unchanged through Writer and Reader. The fast path (fast.go)
// must read it as the general path does.
func FuzzReader(f *testing.F) {
	for _, tc := range validLogs {
		f.Add([]byte(tc.src))
	}
	f.Add([]byte("# @object queue\n[1] call enqueue(1)\n[2] call dequeue\n[1] return\n[2] return 1\n[3] call enqueue(2, )\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if d := readBoth(string(data)); d != "" {
			t.Fatal(d)
		}
		acts, rd, err := readAll(string(data), Options{Name: "fuzz"})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, not *Error", err, err)
			}
			if e.Line < 1 || e.Col < 1 || e.File != "fuzz" || e.Msg == "" {
				t.Fatalf("bad error position: %#v", e)
			}
			if _, err2 := rd.Next(); err2 != err {
				t.Fatalf("Next after %v returned %v", err, err2)
			}
			return
		}
		for i, a := range acts {
			if a.Seq != i || a.Line < 1 {
				t.Fatalf("action %d: seq %d line %d", i, a.Seq, a.Line)
			}
		}
		if rd.Named() {
			return // a log of many objects: FuzzSources checks its events
		}
		if rd.Object() == history.NoObject {
			if len(acts) > 0 {
				t.Fatalf("%d actions without object", len(acts))
			}
			return
		}
		// Canonical lines can be longer than the input's (add(7) is written
		// add(7, 7)), so only inputs far below the line limit must survive.
		if len(data) > MaxLine/4 {
			return
		}
		if d := roundTrip(rd.Object(), rd.Param(), acts); d != "" {
			t.Fatal(d)
		}
	})
}

// FuzzSources reads arbitrary bytes in every format: no panic, errors
// positioned, every event addressed to an object, ids open at most once.
func FuzzSources(f *testing.F) {
	f.Add([]byte(etcdLog))
	f.Add([]byte("# @object a queue\n# @object b register 0\n[1] call a.enqueue(1)\n[2] call b.read\n[1] return\n[2] return 0\n"))
	f.Add([]byte(`{:process 0, :type :invoke, :f :put, :key "1", :value "x"}` + "\n" + `{:process 0, :type :ok, :f :put, :key "1", :value "x"}` + "\n"))
	f.Add([]byte(`{"process": 0, "type": "invoke", "f": "get", "key": "1", "value": null}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []Format{Auto, Native, Jepsen, EDN, JSON} {
			src, err := NewSource(strings.NewReader(string(data)), format, Options{Name: "fuzz"})
			if err != nil {
				t.Fatal(err)
			}
			open := map[string]bool{}
			for i := 0; ; i++ {
				e, err := src.NextEvent()
				if err == io.EOF {
					break
				}
				if err != nil {
					var pe *Error
					if !errors.As(err, &pe) || pe.Line < 1 || pe.File != "fuzz" {
						t.Fatalf("%s: error %v is not positioned", format, err)
					}
					break
				}
				if e.Object == nil || e.Seq != i || e.Line < 1 {
					t.Fatalf("%s: event %d: %+v", format, i, e)
				}
				if e.Kind == history.Call == open[e.ID] {
					t.Fatalf("%s: event %d: %v of [%s], open=%v", format, i, e.Kind, e.ID, open[e.ID])
				}
				open[e.ID] = e.Kind == history.Call
			}
		}
	})
}
