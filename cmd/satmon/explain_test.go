package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/satmon/satmon/internal/testutil"
)

// marked parses an HTML page and returns the data-id of the SVG groups
// whose class holds want.
func marked(t *testing.T, page []byte, want string) []string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "g" {
			var cls, id string
			for _, a := range n.Attr {
				switch a.Key {
				case "class":
					cls = a.Val
				case "data-id":
					id = a.Val
				}
			}
			if slices.Contains(strings.Fields(cls), want) {
				ids = append(ids, id)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	slices.Sort(ids)
	return ids
}

// The page marks exactly the core's operations and the violating return,
// and holds nothing fetched from elsewhere.
func TestHTMLMarksCore(t *testing.T) {
	root := testutil.Root(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "h2.html")
	var out, errb bytes.Buffer
	log := filepath.Join(root, "testdata", "stack", "figure11-h2.log")
	svg := filepath.Join(dir, "h2.svg")
	code := run([]string{"check", "--explain", "--html", page, "--svg", svg, log}, nil, &out, &errb)
	if code != exitViolation {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	core := marked(t, b, "core")
	if want := []string{"1", "2", "3", "5"}; !slices.Equal(core, want) {
		t.Errorf("core marked %v, want %v (the text says:\n%s)", core, want, out.String())
	}
	for _, id := range core {
		if !strings.Contains(out.String(), "["+id+"]") {
			t.Errorf("core operation [%s] marked but not in the text", id)
		}
	}
	if v := marked(t, b, "violation"); !slices.Equal(v, []string{"3"}) {
		t.Errorf("violating return marked on %v, want [3]", v)
	}
	// The SVG alone is well-formed XML with the same marks.
	sb, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(sb))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", svg, err)
		}
	}
	if got := marked(t, sb, "core"); !slices.Equal(got, core) {
		t.Errorf("the SVG marks %v, the page %v", got, core)
	}
	for _, bad := range []string{"http://", "https://", "<script", "<link", "@import"} {
		if strings.Contains(strings.ReplaceAll(string(b), `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("the page contains %q: not self-contained", bad)
		}
	}
}

// longLog writes a stack log of n operations, two at a time, with a
// violation at the end: a pop of a value never pushed.
func longLog(t *testing.T, path string, n int) {
	var b strings.Builder
	b.WriteString("# @object atomic-stack\n")
	for i := 0; i+1 < n; i += 2 {
		fmt.Fprintf(&b, "[%d] call push(%d)\n[%d] call pop\n[%d] return\n[%d] return %d\n", i, i, i+1, i, i+1, i)
	}
	fmt.Fprintf(&b, "[x] call pop\n[x] return %d\n", n+7)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A 10,000-operation log draws a bounded window: the page stays under
// 1 MB and still marks the violating return.
func TestHTMLBounded(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "long.log")
	longLog(t, log, 10000)
	page := filepath.Join(dir, "long.html")
	var out, errb bytes.Buffer
	if code := run([]string{"check", "--html", page, log}, nil, &out, &errb); code != exitViolation {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) >= 1<<20 {
		t.Errorf("page of %d bytes, want under 1 MB", len(b))
	}
	if v := marked(t, b, "violation"); !slices.Equal(v, []string{"x"}) {
		t.Errorf("violating return marked on %v, want [x]", v)
	}
	t.Logf("10,000 operations: page of %d bytes", len(b))
}

// The browser test renders the pages in headless Chromium, checks its log
// for console errors and saves screenshots beside the test's temporary
// pages (SATMON_SCREENSHOTS names a directory to keep them).
func TestHTMLInChromium(t *testing.T) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("no headless Chromium (Debian: apt-get install chromium): browser rendering not tested")
	}
	root := testutil.Root(t)
	dir := t.TempDir()
	shots := os.Getenv("SATMON_SCREENSHOTS")
	if shots == "" {
		shots = dir
	}
	long := filepath.Join(dir, "long.log")
	longLog(t, long, 10000)
	for _, c := range []struct{ name, log string }{
		{"figure11-h2", filepath.Join(root, "testdata", "stack", "figure11-h2.log")},
		{"long-10000", long},
	} {
		page := filepath.Join(dir, c.name+".html")
		var out, errb bytes.Buffer
		if code := run([]string{"check", "--explain", "--html", page, c.log}, nil, &out, &errb); code != exitViolation {
			t.Fatalf("%s: exit %d: %s", c.name, code, errb.String())
		}
		shot := filepath.Join(shots, c.name+".png")
		cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
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
		st, err := os.Stat(shot)
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: no screenshot (%v)\n%s", c.name, err, logs)
			continue
		}
		t.Logf("%s: screenshot %s (%d bytes)", c.name, shot, st.Size())
	}
}

// docs/explain.md shows --explain's output as satmon prints it: each
// example's command, run now, prints what the page shows (timings aside).
func TestExplainDocs(t *testing.T) {
	root := testutil.Root(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "explain.md"))
	if err != nil {
		t.Fatal(err)
	}
	timing := regexp.MustCompile(`, [0-9.]+[µm]?s$|, …$`)
	norm := func(s string) string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			out = append(out, timing.ReplaceAllString(l, ", …"))
		}
		return strings.Join(out, "\n")
	}
	blocks := 0
	for _, block := range strings.Split(string(doc), "```")[1:] {
		block = strings.TrimPrefix(block, "\n")
		cmdLine, rest, ok := strings.Cut(block, "\n")
		if !ok || !strings.HasPrefix(cmdLine, "$ satmon check") {
			continue
		}
		blocks++
		args := strings.Fields(strings.TrimPrefix(cmdLine, "$ satmon "))
		for i, a := range args {
			if strings.HasPrefix(a, "testdata/") {
				args[i] = filepath.Join(root, a)
			}
		}
		var out, errb bytes.Buffer
		run(args, nil, &out, &errb)
		got := norm(strings.ReplaceAll(out.String(), root+string(filepath.Separator), ""))
		if want := norm(rest); got != want {
			t.Errorf("%s prints\n%s\nbut docs/explain.md shows\n%s", cmdLine, got, want)
		}
	}
	if blocks < 3 {
		t.Errorf("docs/explain.md has %d examples, want 3", blocks)
	}
}

// A violation after more operations than a core is searched among: the
// log is cut where the register's value is known, and --explain says so.
func TestExplainLongLogCut(t *testing.T) {
	code, log, errs := runCmd("gen", "--object", "register", "--ops", "1000", "--concurrency", "4", "--seed", "3")
	if code != exitOK || errs != "" {
		t.Fatalf("gen: exit %d, %s", code, errs)
	}
	p := writeTemp(t, "long.log", log+"[t1] call write(u1)\n[t1] return\n[t2] call read\n[t2] return u2\n")
	code, out, errs := runCmd("check", "--explain", p)
	if code != exitViolation || errs != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	for _, want := range []string{
		"core: 1 operations whose sub-history is not linearizable",
		"[t2] read ⇒ u2  lines 2004–2005",
		"(the log was cut after line 2003: every linearization of its 1001 operations before that point ends in state \"u1\"",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
