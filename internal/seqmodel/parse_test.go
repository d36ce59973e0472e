package seqmodel

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/history"
)

// parseLog reads the canonical log format, just enough for test inputs;
// the real reader lives in internal/logfmt and is not this package's
// concern (nor a dependency the oracle should have).
func parseLog(t testing.TB, text string) *history.History {
	t.Helper()
	h, err := parseLogErr(text)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func parseLogErr(text string) (*history.History, error) {
	var b *history.Builder
	obj := history.NoObject
	param := ""
	seq := 0
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "# @object"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return nil, fmt.Errorf("line %d: no object", n+1)
			}
			o, ok := history.ParseObject(f[0])
			if !ok {
				return nil, fmt.Errorf("line %d: unknown object %q", n+1, f[0])
			}
			obj = o
			if len(f) > 1 {
				param = f[1]
			}
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		if b == nil {
			if obj == history.NoObject {
				return nil, fmt.Errorf("line %d: action before '# @object'", n+1)
			}
			b = history.NewBuilder(obj, param)
		}
		close := strings.IndexByte(line, ']')
		if line[0] != '[' || close < 0 {
			return nil, fmt.Errorf("line %d: want [ID]", n+1)
		}
		a := history.Action{ID: line[1:close], Seq: seq, Line: n + 1}
		rest := strings.TrimSpace(line[close+1:])
		switch {
		case strings.HasPrefix(rest, "call"):
			a.Kind = history.Call
			rest = strings.TrimSpace(strings.TrimPrefix(rest, "call"))
			name, args := rest, ""
			if i := strings.IndexByte(rest, '('); i >= 0 {
				name, args = rest[:i], strings.TrimSuffix(rest[i+1:], ")")
			}
			sig, ok := history.LookupMethod(obj, strings.TrimSpace(name))
			if !ok {
				return nil, fmt.Errorf("line %d: unknown method %q", n+1, name)
			}
			a.Label.Method = sig.Method
			var vals []string
			for _, v := range strings.Split(args, ",") {
				if v = strings.TrimSpace(v); v != "" {
					vals = append(vals, v)
				}
			}
			if len(vals) > 0 {
				a.Label.Arg = history.Value(vals[0])
			}
			if obj == history.PQueue && sig.Method == history.Add {
				p := vals[len(vals)-1]
				prio, err := strconv.ParseInt(p, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("line %d: bad priority %q", n+1, p)
				}
				a.Label.Prio = prio
			}
		case strings.HasPrefix(rest, "return"):
			a.Kind = history.Return
			a.Label.Ret = history.Value(strings.TrimSpace(strings.TrimPrefix(rest, "return")))
		default:
			return nil, fmt.Errorf("line %d: want call or return", n+1)
		}
		if _, err := b.Add(a); err != nil {
			return nil, fmt.Errorf("line %d: %v", n+1, err)
		}
		seq++
	}
	if b == nil {
		return &history.History{Object: obj, Param: param}, nil
	}
	return &b.H, nil
}
