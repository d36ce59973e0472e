package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/testutil"
)

// readCSV reads DIR/NAME.csv and checks that NAME.json holds the same rows.
func readCSV(t *testing.T, dir, name string) (header []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, name+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil || len(all) == 0 {
		t.Fatalf("%s.csv: %v (%d records)", name, err, len(all))
	}
	b, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var objs []map[string]string
	if err := json.Unmarshal(b, &objs); err != nil {
		t.Fatalf("%s.json: %v", name, err)
	}
	if len(objs) != len(all)-1 {
		t.Errorf("%s.json has %d rows, the CSV %d", name, len(objs), len(all)-1)
	}
	return all[0], all[1:]
}

func runLines(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// The four quick experiments of CI: each prints its table, writes it as
// CSV and JSON with one row per variant, and logs every run.
func TestExperimentTablesQuick(t *testing.T) {
	headers := map[string][]string{
		"table1": {"variant", "avg steps", "finished", "avg time to viol.", "violations", "paper: avg steps", "paper: time", "paper: viol."},
		"table2": {"variant", "% violations", "found", "avg step detected", "paper: %", "paper: step"},
	}
	// The "n/m" columns: finished of all histories, violations found of the violating ones.
	fractions := map[string][]int{"table1": {2, 4}, "table2": {2}}
	for _, exp := range []string{"table1", "table2"} {
		dir, saved := t.TempDir(), t.TempDir()
		code, out, errs := runCmd("experiment", exp, "--quick", "--out", dir, "--save-histories", saved)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", exp, code, errs)
		}
		header, rows := readCSV(t, dir, exp)
		if strings.Join(header, "|") != strings.Join(headers[exp], "|") {
			t.Errorf("%s: header %q, want %q", exp, header, headers[exp])
		}
		if len(rows) != len(paperVariants) {
			t.Errorf("%s: %d rows, want one per variant (%d)", exp, len(rows), len(paperVariants))
		}
		for i, v := range paperVariants {
			if i >= len(rows) {
				break
			}
			if rows[i][0] != v.Name() || !strings.Contains(out, v.Name()) {
				t.Errorf("%s: row %d is %q, want %q", exp, i, rows[i][0], v.Name())
			}
			if len(rows[i]) != len(headers[exp]) {
				t.Errorf("%s: row %d has %d cells, want %d", exp, i, len(rows[i]), len(headers[exp]))
				continue
			}
			for _, c := range fractions[exp] {
				var n, m int
				if _, err := fmt.Sscanf(rows[i][c], "%d/%d", &n, &m); err != nil || n < 0 || n > m {
					t.Errorf("%s: row %d, %s = %q, want n/m with 0 ≤ n ≤ m", exp, i, header[c], rows[i][c])
				}
			}
		}
		if !strings.Contains(out, "violating (exact") {
			t.Errorf("%s: the violating histories are not decided exactly:\n%s", exp, out)
		}
		hists, err := loadHistoryDir(saved)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := runLines(t, dir), len(hists)*len(paperVariants); got != want {
			t.Errorf("%s: runs.jsonl has %d runs, want %d (histories × variants)", exp, got, want)
		}
		// The saved logs are the inputs: a rerun from them measures the same histories.
		dir2 := t.TempDir()
		code, out2, errs := runCmd("experiment", exp, "--quick", "--from", saved, "--variants", "saturate -r", "--out", dir2)
		if code != exitOK || !strings.Contains(out2, "read from") {
			t.Fatalf("%s --from: exit %d: %s%s", exp, code, out2, errs)
		}
		if got := runLines(t, dir2); got != len(hists) {
			t.Errorf("%s --from: %d runs, want %d", exp, got, len(hists))
		}
	}
}

func TestExperimentFig12Quick(t *testing.T) {
	data := testutil.PaperHistories(t)
	dir := t.TempDir()
	code, out, errs := runCmd("experiment", "fig12", "--quick", "--data", data, "--out", dir)
	if code != exitOK {
		t.Fatalf("fig12: exit %d: %s", code, errs)
	}
	header, rows := readCSV(t, dir, "fig12")
	want := []string{"variant", "10ms", "50ms", "100ms", "150ms", "200ms", "finished"}
	if strings.Join(header, "|") != strings.Join(want, "|") {
		t.Errorf("fig12 header %v, want %v", header, want)
	}
	if len(rows) != len(paperVariants) {
		t.Fatalf("fig12: %d rows, want %d", len(rows), len(paperVariants))
	}
	for _, r := range rows {
		// Steps within a limit can only grow with the limit.
		prev := -1.0
		for _, c := range r[1:6] {
			var x float64
			if err := json.Unmarshal([]byte(c), &x); err != nil {
				t.Fatalf("%v: %v", r, err)
			}
			if x < prev {
				t.Errorf("%s: steps fall as the limit grows: %v", r[0], r)
			}
			prev = x
		}
	}
	for _, f := range []string{"fig12.svg", "fig12.png", "fig12-histories.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if !strings.Contains(out, "sync-stack/") {
		t.Errorf("fig12 did not run on the sync-stack histories:\n%s", out)
	}
	// --resume measures nothing again.
	n := runLines(t, dir)
	if code, _, errs := runCmd("experiment", "fig12", "--quick", "--data", data, "--out", dir, "--resume"); code != exitOK {
		t.Fatalf("fig12 --resume: exit %d: %s", code, errs)
	}
	if got := runLines(t, dir); got != n || n != 2*len(paperVariants) {
		t.Errorf("runs.jsonl: %d lines before --resume, %d after; want %d both", n, got, 2*len(paperVariants))
	}
}

func TestExperimentArtifactQuick(t *testing.T) {
	data := testutil.PaperHistories(t)
	dir := t.TempDir()
	code, out, errs := runCmd("experiment", "artifact", "--quick", "--data", data, "--out", dir)
	if code != exitOK {
		t.Fatalf("artifact: exit %d: %s", code, errs)
	}
	_, rows := readCSV(t, dir, "artifact")
	sets := map[string]bool{}
	for _, r := range rows {
		sets[r[0]] = true
		if strings.Contains(r[2], "Counting") || r[3] == "" {
			t.Errorf("artifact row without a satmon counterpart: %v", r)
		}
	}
	for _, s := range artifactSets {
		if !sets[s] {
			t.Errorf("artifact: no comparison on %s", s)
		}
	}
	header, detail := readCSV(t, dir, "artifact-runs")
	if len(detail) < len(rows) || header[6] != "artifact steps" {
		t.Errorf("artifact-runs: %d rows, header %v", len(detail), header)
	}
	for _, want := range []string{"artifact Saturate+R: 3,138 of 20,000 steps", "left out, no counterpart", "Counting(4)"} {
		if !strings.Contains(out, want) {
			t.Errorf("artifact output lacks %q:\n%s", want, out)
		}
	}
}

func TestExperimentUsage(t *testing.T) {
	if code, _, _ := runCmd("experiment", "table9"); code != exitUsage {
		t.Errorf("unknown experiment: exit %d", code)
	}
	if code, _, _ := runCmd("experiment", "table1", "--variants", "magic"); code != exitUsage {
		t.Errorf("unknown variant: exit %d", code)
	}
	if code, _, _ := runCmd("experiment", "table1", "--variants", "saturate -c"); code != exitUsage {
		t.Errorf("invalid variant: exit %d", code)
	}
	if code, _, _ := runCmd("experiment", "fig12", "--resume"); code != exitUsage {
		t.Errorf("--resume without --out: exit %d", code)
	}
	code, out, errs := runCmd("experiment", "fig12-queue", "--quick", "--histories", "1", "--variants", "saturate -r")
	if code != exitOK || !strings.Contains(out, "saturate -r") || !strings.Contains(out, "200ms") {
		t.Errorf("fig12-queue: exit %d: %s%s", code, out, errs)
	}
	code, out, errs = runCmd("experiment", "correct", "--histories", "2")
	if code != exitOK || !strings.Contains(out, "msqueue") {
		t.Errorf("correct: exit %d: %s%s", code, out, errs)
	}
}

// measureJob times every step: a violation is found at the step and time
// CheckHistory gives, and a limit before it reads as a timeout.
func TestMeasureJob(t *testing.T) {
	root := testutil.Root(t)
	h, err := readExpHistory(filepath.Join(root, "testdata", "stack"), "figure11-h2.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range paperVariants {
		want, _ := engine.CheckHistory(h.Hist, v)
		rec := measureJob("test", job{H: h, V: v, Limits: []time.Duration{time.Hour}})
		if rec.Verdict != string(want.Verdict) || rec.Steps != want.Steps {
			t.Errorf("%s: measured %s after %d steps, CheckHistory %s after %d", v.Name(), rec.Verdict, rec.Steps, want.Verdict, want.Steps)
		}
		if want.Verdict == engine.Violation && (rec.ViolationStep != *want.ViolationStep || rec.Within[0] != rec.ViolationStep) {
			t.Errorf("%s: violation at step %d (within: %d), want %d", v.Name(), rec.ViolationStep, rec.Within[0], *want.ViolationStep)
		}
	}
	r := runRecord{TotalSteps: 10, Limits: []float64{1, 2, 3}, Within: []int{4, 7, 7}, Verdict: "violation", ViolationSeconds: 1.5}
	if got := []string{r.verdictAt(0), r.verdictAt(1), r.verdictAt(2)}; strings.Join(got, ",") != "timeout,violation,violation" {
		t.Errorf("verdictAt: %v", got)
	}
	r = runRecord{TotalSteps: 10, Limits: []float64{1, 2}, Within: []int{4, 10}, Verdict: "ok"}
	if got := []string{r.verdictAt(0), r.verdictAt(1)}; strings.Join(got, ",") != "timeout,ok" {
		t.Errorf("verdictAt: %v", got)
	}
}

func TestArtifactVariantsAndLimits(t *testing.T) {
	for alg, want := range map[string]string{
		"Saturate+R": "saturate -r", "Symbolic+I+R": "symbolic -i -r", "Enumerate+C": "enumerate -c",
		"Symbolic+C": "symbolic -c", "Enumerate": "enumerate",
		"Counting(4)+R": "", "Counting(0)": "", "Enumerate+R": "", "?": "",
	} {
		if got, _ := artifactVariant(alg); got != want {
			t.Errorf("artifactVariant(%q) = %q, want %q", alg, got, want)
		}
	}
	// avg-steps-until-timeout.tsv: the k-th row of a history and algorithm
	// is its k-th limit of Figure 12.
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("history\tobject\talgorithm\tsteps\tconcurrency\ttime\tviolation\n")
	for _, st := range []string{"10*", "20*", "30*", "40*", "50*"} {
		b.WriteString("h.log\tatomic-queue\tSaturate\t" + st + "\t1.0 ± 0.0\t5.1s*\tfalse\n")
	}
	b.WriteString("?\t?\t?\t?\t?\t?\t?\n")
	if err := os.WriteFile(filepath.Join(dir, "avg-steps-until-timeout.tsv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := readArtifactFile(dir, "avg-steps-until-timeout.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	for i, r := range rows {
		if r.Limit != fig12Limits[i] || r.Steps != 10*(i+1) || !r.Capped || r.Variant != "saturate" {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "data.tsv"), []byte("history\talgorithm\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readArtifactFile(dir, "data.tsv"); err == nil || !strings.Contains(err.Error(), "data.tsv:1") {
		t.Errorf("a file without the steps column: %v, want a positioned error", err)
	}
}

// A run up to a larger limit answers a later job with fewer limits, from
// any experiment, with --resume: nothing is measured twice.
func TestRunnerReuse(t *testing.T) {
	h, err := readExpHistory(filepath.Join(testutil.Root(t), "testdata", "stack"), "figure11-h2.log")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	v := engine.Options{Algorithm: engine.Saturate}
	first, err := (&runner{exp: "a", outDir: dir}).run([]job{{H: h, V: v, Limits: []time.Duration{time.Minute, time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{exp: "b", outDir: dir, resume: true}
	again, err := r.run([]job{{H: h, V: v, Limits: []time.Duration{time.Minute}}, {H: h, V: v, Limits: []time.Duration{2 * time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := runLines(t, dir); got != 2 {
		t.Errorf("runs.jsonl has %d runs, want 2 (the first, and the 2h job measured anew)", got)
	}
	if a := again[0]; a.Experiment != "b" || len(a.Within) != 1 || a.Within[0] != first[0].Within[0] || a.Verdict != first[0].verdictAt(0) {
		t.Errorf("reused %+v from %+v", a, first[0])
	}
}
