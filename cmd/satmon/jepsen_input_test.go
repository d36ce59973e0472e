package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// etcdHistories returns the first n histories of the Jepsen etcd set
// (../shared/data), skipping the test when the set is absent.
func etcdHistories(t *testing.T, n int) []string {
	t.Helper()
	dir := filepath.Join(root(t), "..", "shared", "data", "jepsen-etcd")
	data, err := os.ReadFile(filepath.Join(dir, "verdicts.tsv"))
	if err != nil {
		t.Skipf("jepsen-etcd not found at %s (it lives in ../shared/data beside the repository)", dir)
	}
	var files []string
	for _, row := range strings.Split(string(data), "\n")[1:] {
		if f := strings.Fields(row); len(f) == 2 && len(files) < n {
			files = append(files, filepath.Join(dir, f[0]))
		}
	}
	return files
}

// jepsenEvent is one event of a Jepsen log line.
type jepsenEvent struct{ process, typ, f, value string }

// jepsenEvents cuts a Jepsen log into its events.
func jepsenEvents(t *testing.T, path string) []jepsenEvent {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var evs []jepsenEvent
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		_, rest, ok := strings.Cut(line, " - ")
		if !ok {
			t.Fatalf("%s: %q", path, line)
		}
		f := strings.Fields(rest)
		evs = append(evs, jepsenEvent{f[0], f[1], f[2], strings.Join(f[3:], " ")})
	}
	return evs
}

// historyEDN writes events as Jepsen writes history.edn: wrapped in a
// vector, each map pretty-printed over several lines, with :index and
// :time. key, when not "", makes each value a jepsen.independent tuple
// [key value].
func historyEDN(evs []jepsenEvent, key func(i int) string) string {
	var b strings.Builder
	b.WriteString("[")
	for i, e := range evs {
		if i > 0 {
			b.WriteString("\n ")
		}
		v := e.value
		if k := key(i); k != "" {
			v = "[" + k + " " + v + "]"
		}
		fmt.Fprintf(&b, "{:type %s,\n  :f %s,\n  :value %s,\n  :process %s,\n  :time %d,\n  :index %d}", e.typ, e.f, v, e.process, 1000*i, i)
	}
	b.WriteString("]\n")
	return b.String()
}

// records runs check --format json and parses its records.
func records(t *testing.T, args ...string) (code int, recs []map[string]any, stderr string) {
	t.Helper()
	code, out, errs := runCmd(append([]string{"check", "--format", "json"}, args...)...)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %v: %q", args, err, line)
		}
		recs = append(recs, m)
	}
	return code, recs, errs
}

// verdictOf is what a verdict says besides where it was read from (file,
// lines, time).
func verdictOf(m map[string]any) string {
	return fmt.Sprintf("%v %v steps=%v ops=%v vstep=%v vop=%v exact=%v", m["object"], m["verdict"], m["steps"], m["operations"], m["violation_step"], m["violation_op"], m["exact"])
}

// A history.edn as Jepsen writes it, wrapped in a vector and
// pretty-printed, is checked as the log lines it was made from.
func TestCheckHistoryEDNAsJepsenWritesIt(t *testing.T) {
	t.Parallel()
	for _, f := range etcdHistories(t, 6) {
		edn := writeTemp(t, "history.edn", historyEDN(jepsenEvents(t, f), func(int) string { return "" }))
		for _, input := range []string{"auto", "edn"} {
			code, got, errs := records(t, "--input-format", input, edn)
			wcode, want, _ := records(t, f)
			if code != wcode || errs != "" || len(got) != 1 || len(want) != 1 {
				t.Fatalf("%s as %s: exit %d (want %d), stderr %q, %d records: %v", filepath.Base(f), input, code, wcode, errs, len(got), got)
			}
			if verdictOf(got[0]) != verdictOf(want[0]) || got[0]["record"] != "log" {
				t.Errorf("%s as %s:\n got  %s\n want %s", filepath.Base(f), input, verdictOf(got[0]), verdictOf(want[0]))
			}
		}
	}
}

// A jepsen.independent history of several keys, as log lines and as
// history.edn: one object per key, each with the verdict of its
// sub-history checked alone. The sub-histories are Jepsen etcd
// histories, interleaved, each process renamed so that it works on one
// key.
func TestCheckIndependentKeys(t *testing.T) {
	t.Parallel()
	files := etcdHistories(t, 6)
	type keyed struct {
		key int
		jepsenEvent
	}
	subs := make([][]jepsenEvent, len(files))
	for k, f := range files {
		subs[k] = jepsenEvents(t, f)
	}
	var all []keyed
	for i := 0; ; i++ {
		more := false
		for k := range subs {
			if i < len(subs[k]) {
				e := subs[k][i]
				e.process = fmt.Sprint(100*k + atoi(t, e.process))
				all = append(all, keyed{k, e})
				more = true
			}
		}
		if !more {
			break
		}
	}
	var lines strings.Builder
	evs := make([]jepsenEvent, len(all))
	for i, e := range all {
		fmt.Fprintf(&lines, "INFO  jepsen.util - %s\t%s\t%s\t[%d %s]\n", e.process, e.typ, e.f, e.key, e.value)
		evs[i] = e.jepsenEvent
	}
	logPath := writeTemp(t, "independent.log", lines.String())
	ednPath := writeTemp(t, "independent.edn", historyEDN(evs, func(i int) string { return fmt.Sprint(all[i].key) }))
	alone := make([]map[string]any, len(files))
	for k, f := range files {
		_, recs, _ := records(t, "-a", "symbolic", f)
		if len(recs) != 1 {
			t.Fatalf("%s: %v", f, recs)
		}
		alone[k] = recs[0]
	}
	for _, input := range []string{logPath, ednPath} {
		code, recs, errs := records(t, "-a", "symbolic", input)
		if errs != "" || len(recs) == 0 {
			t.Fatalf("%s: exit %d, stderr %q", input, code, errs)
		}
		log := recs[len(recs)-1]
		objs, _ := log["objects"].([]any)
		if log["record"] != "log" || len(objs) != len(files) {
			t.Fatalf("%s: log record %v", input, log)
		}
		violations := 0
		for k, f := range files {
			o := objs[k].(map[string]any)
			if id, ok := o["violation_op"].(string); ok {
				o["violation_op"] = unrename(t, id, k)
			}
			if o["name"] != fmt.Sprint(k) || verdictOf(o) != verdictOf(alone[k]) {
				t.Errorf("%s: key %d:\n got  %v %s\n want %s (%s alone)", filepath.Base(input), k, o["name"], verdictOf(o), verdictOf(alone[k]), filepath.Base(f))
			}
			if alone[k]["verdict"] == "violation" {
				violations++
			}
		}
		// Each violation was also written as an object record when proven.
		if len(recs) != violations+1 {
			t.Errorf("%s: %d records for %d violations", filepath.Base(input), len(recs), violations)
		}
	}
}

// unrename undoes the renaming of process p of key k to 100k+p in an
// operation id ("107", "107~1").
func unrename(t *testing.T, id string, k int) string {
	p, gen, _ := strings.Cut(id, "~")
	s := fmt.Sprint(atoi(t, p) - 100*k)
	if gen != "" {
		s += "~" + gen
	}
	return s
}

func atoi(t *testing.T, s string) int {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("process %q: %v", s, err)
	}
	return n
}

// A jepsen.log holds more than jepsen.util's event lines: they are
// skipped, said once on stderr and listed with -v, and the verdict is
// the one of the log without them.
func TestCheckJepsenLogForeignLines(t *testing.T) {
	t.Parallel()
	foreign := []string{
		"INFO  jepsen.core - Running test etcd",
		"WARN  jepsen.control - retrying ssh",
		"java.net.SocketTimeoutException: Read timed out",
		"\tat java.net.SocketInputStream.socketRead0(Native Method)",
		"ERROR [2017-03-12 12:00:01,123] jepsen.core - Oh jeez, I'm sorry, Jepsen broke.",
	}
	for _, f := range etcdHistories(t, 6) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		var b strings.Builder
		b.WriteString(foreign[0] + "\n" + foreign[1] + "\n") // before the first event
		for i, l := range lines {
			b.WriteString(l)
			if i%17 == 5 {
				b.WriteString(foreign[2+i%3] + "\n")
			}
		}
		mixed := writeTemp(t, "jepsen.log", b.String())
		n := strings.Count(b.String(), "\n") - strings.Count(string(data), "\n")
		code, got, errs := records(t, mixed)
		wcode, want, _ := records(t, f)
		if code != wcode || len(got) != 1 || verdictOf(got[0]) != verdictOf(want[0]) {
			t.Errorf("%s: exit %d, want %d:\n got  %v\n want %v", filepath.Base(f), code, wcode, got, want)
		}
		// A verdict printed at the end counts the skipped lines; a
		// violation printed as it was proven cannot.
		if len(got) == 1 && got[0]["verdict"] != "violation" && got[0]["skipped"] != float64(n) {
			t.Errorf("%s: skipped %v, want %d", filepath.Base(f), got[0]["skipped"], n)
		}
		wantErr := fmt.Sprintf("satmon check: %s: skipped %d lines that hold no Jepsen event (other log lines, stack traces); -v lists them\n", mixed, n)
		if errs != wantErr {
			t.Errorf("stderr %q\nwant   %q", errs, wantErr)
		}
		_, out, errs := runCmd("check", "-v", mixed)
		if !strings.Contains(errs, mixed+":1: "+foreign[0]+"\n") || !strings.Contains(errs, foreign[3]) || strings.Count(errs, "\n") != n+1 {
			t.Errorf("-v lists:\n%s", errs)
		}
		if strings.Contains(out, "objects (") {
			t.Errorf("a log of one object reads as one: %s", out)
		}
	}
}

// A bad line on a live pipe ends the check with an input error, but not
// the reading: the program writing the log is drained to its end, neither
// blocked nor killed by SIGPIPE (here: its writes never fail with EPIPE),
// and satmon exits 2 once the input ends. In every format.
func TestCheckLivePipeBadLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, head, bad, want string
		more                  func(i int) string
	}{
		{"native", "# @object queue\n[1] call enqueue(a)\n[1] return\n", "WARN x\n",
			`satmon check: <stdin>:4:1: expected an action`,
			func(i int) string { return fmt.Sprintf("[%d] call enqueue(%d)\n[%d] return\n", i, i, i) }},
		{"named objects", "# @object q1 queue\n[1] call q1.enqueue(a)\n[1] return\n", "WARN x\n",
			`satmon check: <stdin>:4:1: expected an action`,
			func(i int) string { return fmt.Sprintf("[%d] call q1.enqueue(%d)\n[%d] return\n", i, i, i) }},
		{"jepsen", "INFO  jepsen.util - 0\t:invoke\t:write\t1\nINFO  jepsen.util - 0\t:ok\t:write\t1\n", "INFO  jepsen.util - 0\t:invoke\t:frob\t1\n",
			`satmon check: <stdin>:3:31: unknown operation :frob`,
			func(i int) string {
				return fmt.Sprintf("INFO  jepsen.util - 1\t:invoke\t:write\t%d\nINFO  jepsen.util - 1\t:ok\t:write\t%d\n", i, i)
			}},
		{"edn", "[{:process 0, :type :invoke, :f :write, :value 1}\n", " {:process 0, :type :bogus, :f :write, :value 1}\n",
			`satmon check: <stdin>:2:21: unknown event type :bogus`,
			func(i int) string { return fmt.Sprintf(" {:process 1, :type :invoke, :f :write, :value %d}\n", i) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cmd, stdin, out, errb := startPiped(t, "check", "-")
			if _, err := stdin.Write([]byte(c.head + c.bad)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, errb, c.want) // the error is said at once
			// Far more than a pipe's buffer: were satmon gone, a write
			// would fail with EPIPE.
			written := 0
			for i := 10; written < 4<<20; i++ {
				s := c.more(i)
				if _, err := stdin.Write([]byte(s)); err != nil {
					t.Fatalf("the producer's write failed after %d bytes: %v", written, err)
				}
				written += len(s)
			}
			stdin.Close()
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitUsage {
				t.Errorf("exit: %v, want code %d", err, exitUsage)
			}
			if strings.Count(errb.String(), "satmon check:") != 1 || out.String() != "" {
				t.Errorf("stdout %q\nstderr %q", out.String(), errb.String())
			}
		})
	}
}

// A violation proven before a bad line stands in every format: exit 1,
// the error said on stderr.
func TestViolationBeforeBadLine(t *testing.T) {
	t.Parallel()
	for _, log := range []string{
		violationLog + "bad\n",
		"# @object q1 queue\n[1] call q1.enqueue(a)\n[1] return\n[2] call q1.dequeue\n[2] return b\nbad\n",
		"INFO  jepsen.util - 0\t:invoke\t:write\t1\nINFO  jepsen.util - 0\t:ok\t:write\t1\nINFO  jepsen.util - 1\t:invoke\t:read\tnil\nINFO  jepsen.util - 1\t:ok\t:read\t2\nINFO  jepsen.util - 1\t:invoke\t:frob\tnil\n",
	} {
		var out, errb strings.Builder
		code := run([]string{"check", "-"}, strings.NewReader(log), &out, &errb)
		if code != exitViolation || !strings.Contains(out.String(), "violation") {
			t.Errorf("%q: exit %d\n%s%s", log, code, out.String(), errb.String())
		}
	}
}
