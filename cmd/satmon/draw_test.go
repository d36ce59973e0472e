package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/testutil"
)

// chromium is the headless browser's path, or "" when there is none.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// drawCases are the inputs whose pages the browser renders: a Jepsen etcd
// violation, a key-value violation and an ok (EDN event maps, ten keys
// each), and a 10,000-operation native log whose violation comes late.
func drawCases(t *testing.T) []struct{ name, log, want string } {
	root := testutil.Root(t)
	data := filepath.Join(root, "..", "shared", "data")
	if _, err := os.Stat(data); err != nil {
		t.Skipf("no shared data (%v)", err)
	}
	code, q, errs := runCmd("gen", "--object", "queue", "--ops", "10000", "--concurrency", "4", "--mutate", "1", "--seed", "3")
	if code != exitOK || errs != "" {
		t.Fatalf("gen: exit %d, %s", code, errs)
	}
	// The key drawn by default is the first proven in violation, as the
	// log's JSON record names it.
	kvBad := filepath.Join(data, "porcupine-kv", "c10-bad.txt")
	_, js, _ := runCmd("check", "--format", "json", kvBad)
	var first string
	for _, line := range strings.Split(js, "\n") {
		var rec struct {
			Record          string `json:"record"`
			ViolationObject string `json:"violation_object"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Record == "log" {
			first = rec.ViolationObject
		}
	}
	if first == "" {
		t.Fatalf("check --format json %s names no violation_object:\n%s", kvBad, js)
	}
	return []struct{ name, log, want string }{
		{"etcd-violation", filepath.Join(data, "jepsen-etcd", "etcd_000.log"), "violation of atomic-cas-register"},
		{"kv-violation", kvBad, "object " + first + " (atomic-string-register): violation"},
		{"kv-ok-edn", filepath.Join(data, "porcupine-kv", "c10-ok.txt"), "object 0 (atomic-string-register): ok, linearizable"},
		{"queue-10000", writeTemp(t, "queue.log", q), "violation of atomic-queue"},
	}
}

// Every log is drawn, whatever its format and however many objects it
// has: the page's title names the verdict (and, for a log of many
// objects, the key drawn), and an ok page has no core and no violation.
func TestDrawEveryLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range drawCases(t) {
		page := filepath.Join(dir, c.name+".html")
		svg := filepath.Join(dir, c.name+".svg")
		var out, errb bytes.Buffer
		code := run([]string{"check", "--html", page, "--svg", svg, c.log}, nil, &out, &errb)
		if code == exitUsage || errb.Len() > 0 {
			t.Errorf("%s: exit %d, stderr %q", c.name, code, errb.String())
			continue
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		title, _, _ := strings.Cut(strings.SplitN(string(b), "<title>", 2)[1], "</title>")
		if !strings.Contains(title, c.want) {
			t.Errorf("%s: title %q, want it to say %q", c.name, title, c.want)
		}
		core, viol := marked(t, b, "core"), marked(t, b, "violation")
		if ok := code == exitOK; ok != (len(core) == 0 && len(viol) == 0) {
			t.Errorf("%s: exit %d, but core %v and violation %v marked", c.name, code, core, viol)
		}
		if code == exitOK && strings.Contains(string(b), "core: these operations") {
			t.Errorf("%s: an ok page explains a core in its legend", c.name)
		}
		if _, err := os.Stat(svg); err != nil {
			t.Errorf("%s: no SVG: %v", c.name, err)
		}
	}
}

// --draw names the object to draw in a log of many objects; a name not in
// the log is an error that lists the names; --draw without a picture is
// a usage error. Without --draw, the first object in violation is drawn.
func TestDrawChooses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := writeTemp(t, "named.log", `# @object q1 queue
# @object s2 stack
[1] call q1.enqueue(1)
[1] return
[2] call s2.push(5)
[2] return
[3] call s2.pop
[3] return 6
[4] call q1.dequeue
[4] return 1
`)
	for _, c := range []struct {
		args  []string
		code  int
		title string // the page's title holds it; "" when no page
		errs  string // stderr holds it
	}{
		{nil, exitViolation, "object s2 (atomic-stack): violation at step 4 of the object (line 8, return of [3])", ""},
		{[]string{"--draw", "q1"}, exitViolation, "object q1 (atomic-queue): ok, no violation found (saturate -r can miss violations", ""},
		{[]string{"--draw", "nope"}, exitViolation, "", "--draw nope: no object of that name in the log; its objects: q1, s2"},
	} {
		page := filepath.Join(dir, "p.html")
		os.Remove(page)
		code, _, errs := runCmd(append(append([]string{"check", "--html", page}, c.args...), log)...)
		if code != c.code || !strings.Contains(errs, c.errs) || c.errs == "" && errs != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit %d, stderr with %q", c.args, code, errs, c.code, c.errs)
		}
		b, err := os.ReadFile(page)
		switch {
		case c.title == "" && err == nil:
			t.Errorf("%v: a page was written", c.args)
		case c.title != "" && !strings.Contains(string(b), "<title>"+log+": "+c.title):
			t.Errorf("%v: the page's title does not say %q:\n%.400s", c.args, c.title, b)
		}
	}
	if code, _, errs := runCmd("check", "--draw", "q1", log); code != exitUsage || !strings.Contains(errs, "--draw chooses the object") {
		t.Errorf("--draw without a picture: exit %d, stderr %q", code, errs)
	}
}

// The pages of drawCases render in headless Chromium without console
// errors. The screenshots are kept in SATMON_SCREENSHOTS when it names a
// directory, to be looked at.
func TestDrawInChromium(t *testing.T) {
	t.Parallel()
	bin := chromium()
	if bin == "" {
		t.Skip("no headless Chromium (Debian: apt-get install chromium): browser rendering not tested")
	}
	dir := t.TempDir()
	shots := os.Getenv("SATMON_SCREENSHOTS")
	if shots == "" {
		shots = dir
	}
	for _, c := range drawCases(t) {
		page := filepath.Join(dir, c.name+".html")
		var out, errb bytes.Buffer
		if code := run([]string{"check", "--explain", "--html", page, c.log}, nil, &out, &errb); code == exitUsage {
			t.Fatalf("%s: exit %d: %s", c.name, code, errb.String())
		}
		shot := filepath.Join(shots, c.name+".png")
		cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(),
			"--enable-logging=stderr", "--v=0", "--window-size=1400,900", "--screenshot="+shot, "file://"+page)
		logs, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: chromium: %v\n%s", c.name, err, logs)
		}
		for _, l := range strings.Split(string(logs), "\n") {
			if strings.Contains(l, "CONSOLE") && (strings.Contains(l, "ERROR") || strings.Contains(l, "Uncaught")) {
				t.Errorf("%s: console error: %s", c.name, l)
			}
		}
		if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
			t.Errorf("%s: no screenshot (%v)\n%s", c.name, err, logs)
		}
	}
}
