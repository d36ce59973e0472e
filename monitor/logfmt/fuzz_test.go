package logfmt

import (
	"errors"
	"testing"

	"github.com/satmon/satmon/internal/history"
)

// FuzzReader reads arbitrary bytes: the reader must not panic, must fail
// only with a positioned *Error that sticks, and whatever it accepts must
// come back unchanged through Writer and Reader.
func FuzzReader(f *testing.F) {
	for _, tc := range validLogs {
		f.Add([]byte(tc.src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
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
