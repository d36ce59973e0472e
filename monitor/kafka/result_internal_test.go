package kafka

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/multi"
)

// A verdict record is written as it was when Verdict embedded the
// stream's result: Result has every field of the stream's result a
// record can hold (the stream explains nothing and reports a violation
// before it sums statistics, so no core, witness or stats), with the same
// JSON name, and a record's JSON is the embedded result's.
func TestResultIsTheStreamsResult(t *testing.T) {
	t.Parallel()
	never := map[string]bool{"stats": true, "core": true, "witness": true}
	want := map[string]bool{}
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		for f := range rt.Fields() {
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.IsExported() && name != "-" && !never[name] {
				want[name] = true
			}
		}
	}
	walk(reflect.TypeFor[multi.ObjectResult]())
	got := map[string]bool{}
	for f := range reflect.TypeFor[Result]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		got[name] = true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Result's JSON fields %v, the stream's %v", got, want)
	}

	step, off := 7, int64(41)
	for _, r := range []multi.ObjectResult{
		{Name: "k", Restarts: 2, Result: engine.Result{File: "actions/3", Object: "atomic-queue", Algorithm: "saturate -r", Verdict: engine.Violation,
			Steps: 9, Operations: 5, ViolationStep: &step, ViolationLine: 41, ViolationOp: "k/4", Seconds: 0.25}},
		{Name: "e", Result: engine.Result{File: "actions/0", Verdict: engine.Error, Error: "actions/0:3:1: bad", Algorithm: "symbolic", Exact: true}},
	} {
		old, err := json.Marshal(oldVerdict{Record: "violation", Topic: "actions", Partition: 3, Offset: &off, Key: r.Name, ObjectResult: &r})
		if err != nil {
			t.Fatal(err)
		}
		now, err := json.Marshal(Verdict{Record: "violation", Topic: "actions", Partition: 3, Offset: &off, Key: r.Name, Result: resultOf(&r)})
		if err != nil {
			t.Fatal(err)
		}
		if string(now) != string(old) {
			t.Errorf("record\n %s\nwas\n %s", now, old)
		}
	}
}

// oldVerdict is Verdict as it was, embedding the stream's result.
type oldVerdict struct {
	Record    string `json:"record"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    *int64 `json:"offset,omitempty"`
	Key       string `json:"key,omitempty"`
	Duplicate bool   `json:"duplicate,omitempty"`
	*multi.ObjectResult
	Summary *Summary `json:"summary,omitempty"`
}
