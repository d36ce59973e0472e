package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// docFields reads docs/output.md's field tables: the records' fields
// with their "records" column, and the fields of stats and witness.
func docFields(t *testing.T) (top map[string]string, stats, witness []string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root(t), "docs/output.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i, j, k := strings.Index(text, "## JSON fields"), strings.Index(text, "`stats`:\n"), strings.Index(text, "`witness`:\n")
	if i < 0 || j < i || k < j {
		t.Fatal("docs/output.md lacks its JSON fields, `stats`: and `witness`: tables, in that order")
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|([^|]*)\\|([^|]*)\\|")
	top = map[string]string{}
	for _, m := range row.FindAllStringSubmatch(text[i:j], -1) {
		top[m[1]] = strings.TrimSpace(m[3])
	}
	for _, m := range row.FindAllStringSubmatch(text[j:k], -1) {
		stats = append(stats, m[1])
	}
	for _, m := range row.FindAllStringSubmatch(text[k:], -1) {
		witness = append(witness, m[1])
	}
	return top, stats, witness
}

// Every record --format json writes — of a log of one object or many, in
// every input format, for every verdict — carries only fields that
// docs/output.md documents, for the records it says; every documented
// field is written by some record; and each input gets one log record.
func TestJSONRecordsDocumented(t *testing.T) {
	t.Parallel()
	top, statsDoc, witnessDoc := docFields(t)
	r := root(t)
	viol := filepath.Join(r, "testdata/stack/figure11-h2.log")
	ok := filepath.Join(r, "testdata/stack/lifo-safe-dhk.log")
	many := writeTemp(t, "many.log", "# @object q1 queue\n# @object q2 queue\n[1] call q1.enqueue(a)\n[1] return\n[2] call q1.dequeue\n[2] return a\n[3] call q1.enqueue(b)\n[3] return\n[4] call q2.dequeue\n[4] return x\n")
	manyOK := writeTemp(t, "manyok.log", "# @object q1 queue\n# @object r register 0\n[1] call q1.enqueue(a)\n[2] call r.read\n[1] return\n[2] return 0\n")
	bad := writeTemp(t, "bad.log", "# @object stack\n[1] call push(1)\n[1] return\nbad\n")
	badMany := writeTemp(t, "badmany.log", "# @object q1 queue\n[1] call q1.enqueue(a)\nbad\n")
	jepsenViol := "INFO  jepsen.util - 0\t:invoke\t:write\t1\nINFO  jepsen.util - 0\t:ok\t:write\t1\nINFO  jepsen.util - 1\t:invoke\t:read\tnil\nINFO  jepsen.util - 1\t:ok\t:read\t2\n"
	jepsen := writeTemp(t, "jepsen.log", jepsenViol)
	jepsenOK := writeTemp(t, "jepsenok.log", "INFO  jepsen.core - starting\n"+strings.ReplaceAll(jepsenViol, "read\t2", "read\t1"))
	ednKV := writeTemp(t, "kv.edn", "[{:process 0, :type :invoke, :f :put, :key \"1\", :value \"a\"}\n {:process 0, :type :ok, :f :put, :key \"1\", :value \"a\"}\n {:process 1, :type :invoke, :f :get, :key \"1\", :value nil}\n {:process 1, :type :ok, :f :get, :key \"1\", :value \"b\"}]\n")
	// A queue filled and emptied 20 times in turn: its monitor is dropped
	// (a restart) at the first point it is empty after 64 steps.
	longMany := writeTemp(t, "longmany.log", "# @object q1 queue\n# @object q2 queue\n"+
		strings.Repeat("[1] call q1.enqueue(a)\n[1] return\n[2] call q1.dequeue\n[2] return a\n", 20)+"[3] call q2.dequeue\n[3] return x\n")
	jsonKV := writeTemp(t, "kv.json", `{"process": 0, "type": "invoke", "f": "put", "key": "1", "value": "a"}`+"\n"+`{"process": 0, "type": "ok", "f": "put", "key": "1", "value": "a"}`+"\n")
	runs := [][]string{
		{"-v", ok, viol, bad, filepath.Join(t.TempDir(), "missing.log")},
		{"--timeout", "1ns", "-a", "symbolic", ok, many},
		{"--explain", viol, many},
		{"--explain", "-a", "symbolic", ok},
		{"-v", many, manyOK, badMany},
		{"-v", jepsen, jepsenOK, ednKV, jsonKV, longMany},
	}
	seen := map[string]bool{}
	check := func(where string, m map[string]any, kind string) {
		for f, v := range m {
			seen[f] = true
			recs, documented := top[f]
			switch {
			case !documented:
				t.Errorf("%s: field %q is not in docs/output.md's table", where, f)
			case recs == "object" && kind != "object":
				t.Errorf("%s: field %q is documented for object records only", where, f)
			case recs == "many" && kind != "many":
				t.Errorf("%s: field %q is documented for logs of many objects only", where, f)
			case recs == "log" && kind == "object":
				t.Errorf("%s: field %q is documented for log records only", where, f)
			}
			switch f {
			case "stats":
				for s := range v.(map[string]any) {
					if !slices.Contains(statsDoc, s) {
						t.Errorf("%s: stats field %q is not documented", where, s)
					}
				}
			case "witness":
				for s := range v.(map[string]any) {
					if !slices.Contains(witnessDoc, s) {
						t.Errorf("%s: witness field %q is not documented", where, s)
					}
				}
			}
		}
		if v := m["verdict"]; v != "ok" && v != "violation" && m["exact"] != false {
			t.Errorf("%s: a %v record says exact", where, v)
		}
	}
	for _, args := range runs {
		_, recs, _ := records(t, args...)
		logs := map[any]int{}
		for _, m := range recs {
			where := strings.Join(args, " ") + ": " + filepath.Base(m["file"].(string))
			kind := "object"
			switch m["record"] {
			case "log":
				logs[m["file"]]++
				kind = "log"
				if objs, isMany := m["objects"].([]any); isMany {
					kind = "many"
					for _, o := range objs {
						check(where+" (objects)", o.(map[string]any), "object")
					}
				}
			case "object":
			default:
				t.Errorf("%s: record %v", where, m["record"])
			}
			check(where, m, kind)
			if m["verdict"] == "error" && m["file"] == bad && m["object"] != "atomic-stack" {
				t.Errorf("%s: the error record names no object although the header was read: %v", where, m)
			}
		}
		for _, f := range args {
			if strings.Contains(f, string(filepath.Separator)) && logs[f] != 1 {
				t.Errorf("%v: %s has %d log records", args, f, logs[f])
			}
		}
	}
	var missing []string
	for f := range top {
		if !seen[f] {
			missing = append(missing, f)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("documented but written by no record: %v", missing)
	}
}

// Every record, of a log of one object or many, is written without HTML
// escaping: "<stdin>", not "\u003cstdin\u003e".
func TestJSONRecordsUnescaped(t *testing.T) {
	t.Parallel()
	for _, log := range []string{
		violationLog,
		"{:process 0, :type :invoke, :f :read, :value [0 nil]}\n{:process 0, :type :ok, :f :read, :value [0 1]}\n",
		"INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:ok\t:read\t1\n",
		"{\"process\": 0, \"type\": \"invoke\",\n",
	} {
		var out, errb strings.Builder
		run([]string{"check", "--format", "json", "-"}, strings.NewReader(log), &out, &errb)
		if !strings.Contains(out.String(), `"file":"<stdin>"`) || strings.Contains(out.String(), `\u003c`) {
			t.Errorf("%q:\n%s", log, out.String())
		}
	}
}
