package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/satmon/satmon/internal/engine"
)

// The paper artifact's measurement files, the set of histories each
// covers and the per-history limit it used. avg-steps-until-timeout.tsv
// holds five rows per history and algorithm, one per limit of Figure 12,
// in increasing order; the others use one limit (read off the times of the
// runs marked as having hit it).
var artifactFiles = []struct {
	file   string
	set    string
	limits []time.Duration
}{
	{"avg-steps-until-timeout.tsv", "big-msq", fig12Limits},
	{"violations-covered.tsv", "scal-small", []time.Duration{10 * time.Second}},
	{"data.tsv", "", []time.Duration{5 * time.Second}}, // simple/ and sync-stack/
}

var artifactSets = []string{"big-msq", "scal-small", "simple", "sync-stack"}

// artifactVariant maps the artifact's algorithm names to satmon's
// variants. Counting(k) is the artifact's bounded-interval checker, which
// the paper does not describe, and Enumerate+R applies match removal to
// ENUMERATE, which neither the paper nor satmon has: both are left out.
func artifactVariant(alg string) (string, bool) {
	parts := strings.Split(alg, "+")
	name := strings.ToLower(parts[0])
	if name != "enumerate" && name != "symbolic" && name != "saturate" {
		return "", false
	}
	var c, i, r bool
	for _, p := range parts[1:] {
		switch p {
		case "C":
			c = true
		case "I":
			i = true
		case "R":
			r = true
		default:
			return "", false
		}
	}
	o := engine.Options{Completion: c, Incremental: i, RemoveObsolete: r}
	o.Algorithm, _ = engine.ParseAlgorithm(name)
	if o.Validate() != nil {
		return "", false
	}
	return o.Name(), true
}

// artRow is one measurement of the artifact.
type artRow struct {
	Source      string // file and line
	Set         string
	History     string // file name as the artifact gives it
	Path        string // relative to the paper-histories directory
	Algorithm   string
	Variant     string // satmon's name; "" when there is no counterpart
	Steps       int
	Capped      bool // the run hit its limit
	Seconds     float64
	Violation   bool
	Concurrency string
	Limit       time.Duration
}

func readArtifactFile(dir, file string) ([]artRow, error) {
	var spec = artifactFiles[0]
	for _, s := range artifactFiles {
		if s.file == file {
			spec = s
		}
	}
	fh, err := os.Open(filepath.Join(dir, file))
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	var col map[string]int
	seen := map[string]int{}
	var out []artRow
	line := 0
	for sc.Scan() {
		line++
		cells := strings.Split(sc.Text(), "\t")
		if col == nil {
			col = map[string]int{}
			for i, c := range cells {
				col[c] = i
			}
			for _, need := range []string{"history", "algorithm", "steps", "time", "violation"} {
				if _, ok := col[need]; !ok {
					return nil, fmt.Errorf("%s:%d: no %q column", file, line, need)
				}
			}
			continue
		}
		if len(cells) != len(col) || cells[0] == "?" {
			continue // the files hold a few rows of "?" where a run left nothing
		}
		get := func(k string) string { return cells[col[k]] }
		r := artRow{Source: fmt.Sprintf("%s:%d", file, line), Set: spec.set, History: get("history"), Algorithm: get("algorithm")}
		r.Variant, _ = artifactVariant(r.Algorithm)
		st := get("steps")
		r.Capped = strings.HasSuffix(st, "*")
		if r.Steps, err = strconv.Atoi(strings.TrimSuffix(st, "*")); err != nil {
			return nil, fmt.Errorf("%s:%d: steps %q: %v", file, line, st, err)
		}
		tm := strings.TrimSuffix(strings.TrimSuffix(get("time"), "*"), "s")
		if r.Seconds, err = strconv.ParseFloat(tm, 64); err != nil {
			return nil, fmt.Errorf("%s:%d: time %q: %v", file, line, get("time"), err)
		}
		r.Violation = get("violation") == "true"
		if c, ok := col["concurrency"]; ok {
			r.Concurrency = cells[c]
		}
		k := r.History + "|" + r.Algorithm
		idx := seen[k]
		seen[k]++
		if idx >= len(spec.limits) {
			return nil, fmt.Errorf("%s:%d: more rows for %s than limits", file, line, k)
		}
		r.Limit = spec.limits[idx]
		out = append(out, r)
	}
	return out, sc.Err()
}

// locate finds the artifact's history among ours; "" when we lack it.
func (r *artRow) locate(data string) {
	var cands []string
	switch r.Set {
	case "big-msq":
		cands = []string{"big-msq/" + r.History}
	case "scal-small":
		cands = []string{"scal-small/" + strings.SplitN(r.History, ".", 2)[0] + "/" + r.History}
	default:
		cands = []string{"simple/" + r.History, "sync-stack/" + r.History}
	}
	for _, c := range cands {
		if _, err := os.Stat(filepath.Join(data, c)); err == nil {
			r.Path = c
			r.Set = strings.SplitN(c, "/", 2)[0]
			return
		}
	}
}

// readTruth reads verdicts.tsv: the exact verdict of every history.
func readTruth(data string) map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile(filepath.Join(data, "verdicts.tsv"))
	if err != nil {
		return out
	}
	for _, l := range strings.Split(string(b), "\n") {
		c := strings.Split(l, "\t")
		if len(c) >= 2 && c[0] != "history" {
			out[c[0]] = c[1]
		}
	}
	return out
}

func expArtifact(w *bufio.Writer, stderr io.Writer, f expFlags) error {
	data, err := paperData(f)
	if err != nil {
		return err
	}
	sets := map[string]bool{}
	if f.sets == "" {
		for _, s := range artifactSets {
			sets[s] = true
		}
	} else {
		for _, s := range strings.Split(f.sets, ",") {
			s = strings.TrimSpace(s)
			ok := false
			for _, k := range artifactSets {
				ok = ok || k == s
			}
			if !ok {
				return fmt.Errorf("--sets: unknown set %q (want %s)", s, strings.Join(artifactSets, ", "))
			}
			sets[s] = true
		}
	}
	var variantSel map[string]bool
	if f.variants != "" {
		vs, err := selectVariants(f.variants, nil)
		if err != nil {
			return err
		}
		variantSel = map[string]bool{}
		for _, v := range vs {
			variantSel[v.Name()] = true
		}
	}
	var histSel map[string]bool
	if f.histories != "" {
		histSel = map[string]bool{}
		for _, h := range strings.Split(f.histories, ",") {
			histSel[strings.TrimSpace(h)] = true
		}
	}
	dir := filepath.Join(data, "artifact-measurements")
	var rows []artRow
	noCounterpart := map[string]int{}
	missing := map[string]bool{}
	scale := 1.0
	if f.quick {
		scale = 1.0 / 100
	}
	quickKeep := map[string]int{} // --quick: a few histories per folder
	for _, spec := range artifactFiles {
		rs, err := readArtifactFile(dir, spec.file)
		if err != nil {
			return err
		}
		for _, r := range rs {
			r.locate(data)
			switch {
			case r.Path == "":
				missing[r.History] = true
				continue
			case !sets[r.Set]:
				continue
			case r.Variant == "":
				noCounterpart[r.Algorithm]++
				continue
			case variantSel != nil && !variantSel[r.Variant]:
				continue
			case histSel != nil && !histSel[r.History] && !histSel[r.Path] && !histSel[strings.TrimSuffix(r.History, ".log")]:
				continue
			case f.maxLimit > 0 && r.Limit > f.maxLimit:
				continue
			}
			if f.quick {
				if r.Limit != spec.limits[0] {
					continue
				}
				folder := filepath.Dir(r.Path)
				key := folder + "|" + r.Path
				if _, ok := quickKeep[key]; !ok {
					n := 0
					for k := range quickKeep {
						if strings.HasPrefix(k, folder+"|") {
							n++
						}
					}
					limit := 3
					if r.Set == "big-msq" || r.Set == "sync-stack" {
						limit = 1
					}
					if n >= limit {
						continue
					}
					quickKeep[key] = n
				}
				r.Limit = time.Duration(float64(r.Limit) * scale)
			}
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return fmt.Errorf("no artifact measurement left to compare after --sets, --variants, --histories and --max-limit")
	}
	// One job per (history, variant), up to the largest limit of its rows.
	type pair struct{ path, variant string }
	limitsOf := map[pair][]time.Duration{}
	var order []pair
	for _, r := range rows {
		p := pair{r.Path, r.Variant}
		if _, ok := limitsOf[p]; !ok {
			order = append(order, p)
		}
		ls := limitsOf[p]
		if !containsDur(ls, r.Limit) {
			ls = append(ls, r.Limit)
			sort.Slice(ls, func(i, j int) bool { return ls[i] < ls[j] })
		}
		limitsOf[p] = ls
	}
	// The artifact's average steps in 20 s over the big Michael-Scott
	// histories: the same runs, read at one more limit.
	avg20, _ := readArtifactAvg(filepath.Join(dir, "avg-steps-until-fixed-timeout.csv"))
	const limit20 = 20 * time.Second
	use20 := sets["big-msq"] && !f.quick && len(avg20) > 0 && (f.maxLimit == 0 || f.maxLimit >= limit20)
	if use20 {
		for _, p := range order {
			if _, ok := avg20[p.variant]; ok && strings.HasPrefix(p.path, "big-msq/") && !containsDur(limitsOf[p], limit20) {
				ls := append(limitsOf[p], limit20)
				sort.Slice(ls, func(i, j int) bool { return ls[i] < ls[j] })
				limitsOf[p] = ls
			}
		}
	}
	hists := map[string]*expHistory{}
	var hlist []*expHistory
	var jobs []job
	for _, p := range order {
		h, ok := hists[p.path]
		if !ok {
			if h, err = readExpHistory(data, p.path); err != nil {
				return err
			}
			hists[p.path] = h
			hlist = append(hlist, h)
		}
		v, err := parseVariant(p.variant)
		if err != nil {
			return err
		}
		jobs = append(jobs, job{H: h, V: v, Limits: limitsOf[p]})
	}
	if f.save != "" {
		if err := saveHistories(f.save, hlist); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "artifact: %d of the artifact's measurements on %d histories we have, %d runs of satmon (one per history and variant, up to the largest limit)\n", len(rows), len(hlist), len(jobs))
	if f.quick {
		fmt.Fprintln(w, "(--quick: a few histories per folder, the smallest limit only, 100 times smaller; not comparable with the artifact's numbers)")
	}
	recs, err := newRunner("artifact", stderr, f).run(jobs)
	if err != nil {
		return err
	}
	recOf := map[pair]*runRecord{}
	for i := range jobs {
		recOf[pair{jobs[i].H.Name, jobs[i].V.Name()}] = &recs[i]
	}
	truth := readTruth(data)
	detail := &expTable{Name: "artifact-runs", Header: []string{"set", "history", "limit", "artifact algorithm", "satmon variant", "steps in history",
		"artifact steps", "artifact time", "artifact violation", "satmon steps", "satmon time", "satmon verdict", "exact verdict", "artifact source"}}
	type groupKey struct {
		set     string
		limit   time.Duration
		variant string
	}
	type group struct {
		alg                         string
		n, total                    int
		artSteps, satSteps          int
		artDone, satDone            int
		artViol, satViol, truthViol int
		differ                      int
		first                       []string // a sentence about the first history
	}
	groups := map[groupKey]*group{}
	var gorder []groupKey
	falseViolations := 0
	for _, r := range rows {
		rec := recOf[pair{r.Path, r.Variant}]
		if rec.Error != "" {
			return fmt.Errorf("%s with %s: %s", r.Path, r.Variant, rec.Error)
		}
		k := indexF(rec.Limits, r.Limit.Seconds())
		sv := rec.verdictAt(k)
		st := rec.Within[k]
		stime := r.Limit.Seconds()
		switch sv {
		case string(engine.Violation):
			stime = rec.ViolationSeconds
		case string(engine.OK):
			stime = rec.Seconds
		}
		tv := truth[r.Path]
		if sv == string(engine.Violation) && tv == "ok" {
			falseViolations++
		}
		artSteps := thousands(r.Steps)
		artTime := secs(r.Seconds)
		if r.Capped {
			artSteps += "*"
			artTime += "*"
		}
		detail.add(r.Set, r.History, limitName(r.Limit), r.Algorithm, r.Variant, fmt.Sprint(rec.TotalSteps),
			artSteps, artTime, fmt.Sprint(r.Violation), thousands(st), secs(stime), sv, orDash(tv), r.Source)
		gk := groupKey{r.Set, r.Limit, r.Variant}
		g, ok := groups[gk]
		if !ok {
			g = &group{alg: r.Algorithm}
			groups[gk] = g
			gorder = append(gorder, gk)
			g.first = []string{r.History, thousands(r.Steps), thousands(rec.TotalSteps), thousands(st), sv, secs(stime)}
		}
		g.n++
		g.total += rec.TotalSteps
		g.artSteps += r.Steps
		g.satSteps += st
		if !r.Capped {
			g.artDone++
		}
		if sv != string(engine.Timeout) {
			g.satDone++
		}
		if r.Violation {
			g.artViol++
		}
		if sv == string(engine.Violation) {
			g.satViol++
		}
		if tv == "violation" {
			g.truthViol++
		}
		if r.Violation != (sv == string(engine.Violation)) {
			g.differ++
		}
	}
	sum := &expTable{Name: "artifact", Title: "per set, limit and variant: average steps processed, histories finished within the limit, violations found (exact: verdicts.tsv)",
		Header: []string{"set", "limit", "artifact", "satmon", "histories", "steps", "art. avg", "satmon avg", "art. done", "satmon done", "art. viol", "satmon viol", "exact viol", "differ"}}
	var lines []string
	for _, gk := range gorder {
		g := groups[gk]
		n := float64(g.n)
		sum.add(gk.set, limitName(gk.limit), g.alg, gk.variant, fmt.Sprint(g.n), f1(float64(g.total)/n), f1(float64(g.artSteps)/n), f1(float64(g.satSteps)/n),
			fmt.Sprint(g.artDone), fmt.Sprint(g.satDone), fmt.Sprint(g.artViol), fmt.Sprint(g.satViol), fmt.Sprint(g.truthViol), fmt.Sprint(g.differ))
		if g.n == 1 || gk.set == "big-msq" || gk.set == "sync-stack" {
			lines = append(lines, fmt.Sprintf("%s %s: artifact %s: %s of %s steps in %v on %s; satmon %s: %s (%s, %s)%s",
				gk.set, limitName(gk.limit), g.alg, g.first[1], g.first[2], limitName(gk.limit), g.first[0], gk.variant, g.first[3], g.first[4], g.first[5], meanNote(g.n, g.artSteps, g.satSteps)))
		} else {
			lines = append(lines, fmt.Sprintf("%s %s: artifact %s: %d of %d histories finished, %d violations; satmon %s: %d finished, %d violations (exact: %d); verdicts differ on %d",
				gk.set, limitName(gk.limit), g.alg, g.artDone, g.n, g.artViol, gk.variant, g.satDone, g.satViol, g.truthViol, g.differ))
		}
	}
	if use20 {
		t20 := &expTable{Name: "artifact-20s", Title: "big-msq, 20 s per history: average steps (the artifact's avg-steps-until-fixed-timeout.csv, over its 10 histories; satmon over the 5 we have)",
			Header: []string{"variant", "artifact avg (10)", "satmon avg", "satmon histories"}}
		for _, v := range sortedKeys(avg20) {
			n, st := 0, 0
			for i := range jobs {
				if jobs[i].V.Name() == v && strings.HasPrefix(jobs[i].H.Name, "big-msq/") {
					if k := indexF(recs[i].Limits, limit20.Seconds()); k >= 0 {
						n++
						st += recs[i].Within[k]
					}
				}
			}
			if n == 0 {
				continue // not measured: --variants left it out
			}
			sat := f1(float64(st) / float64(n))
			t20.add(v, f1(avg20[v]), sat, fmt.Sprint(n))
		}
		if err := t20.emit(w, f.out); err != nil {
			return err
		}
	}
	if err := sum.emit(w, f.out); err != nil {
		return err
	}
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	if err := detail.write(f.out); err != nil {
		return err
	}
	if f.out != "" {
		fmt.Fprintf(w, "every measurement, history by history: %s\n", filepath.Join(f.out, "artifact-runs.csv"))
	}
	var left []string
	for _, a := range sortedKeys(noCounterpart) {
		left = append(left, fmt.Sprintf("%s (%d rows)", a, noCounterpart[a]))
	}
	if len(left) > 0 {
		fmt.Fprintf(w, "left out, no counterpart in the paper or satmon: %s\n", strings.Join(left, ", "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "measured by the artifact but not among our histories: %d histories (e.g. %s)\n", len(missing), firstKeys(missing, 3))
	}
	if falseViolations > 0 {
		return fmt.Errorf("satmon reported %d violations on histories verdicts.tsv says are linearizable: a soundness bug", falseViolations)
	}
	return nil
}

func meanNote(n, art, sat int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf("; mean over %d histories: artifact %s, satmon %s", n, thousands1(float64(art)/float64(n)), thousands1(float64(sat)/float64(n)))
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func containsDur(ls []time.Duration, d time.Duration) bool { return indexDur(ls, d) >= 0 }

func indexDur(ls []time.Duration, d time.Duration) int {
	for i, l := range ls {
		if l == d {
			return i
		}
	}
	return -1
}

func indexF(ls []float64, x float64) int {
	for i, l := range ls {
		if l == x {
			return i
		}
	}
	return -1
}

func firstKeys(m map[string]bool, n int) string {
	ks := sortedKeys(m)
	if len(ks) > n {
		ks = append(ks[:n], "…")
	}
	return strings.Join(ks, ", ")
}

// readArtifactAvg reads avg-steps-until-fixed-timeout.csv: per algorithm,
// the artifact's average steps within 20 s on the big Michael-Scott
// histories. Its columns use the paper's flag names; the Counting ones are
// left out.
func readArtifactAvg(path string) (map[string]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2 {
		return nil, fmt.Errorf("%s: no data row", path)
	}
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	out := map[string]float64{}
	for i := range head {
		if i >= len(row) {
			break
		}
		v, err := parseVariant(strings.TrimSpace(head[i]))
		if err != nil {
			continue
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(row[i]), 64)
		if err != nil {
			return nil, fmt.Errorf("%s:2: column %q: %v", path, head[i], err)
		}
		out[v.Name()] = x
	}
	return out, nil
}

// thousands1 formats x with one decimal and comma separators.
func thousands1(x float64) string {
	s := fmt.Sprintf("%.1f", x)
	i := strings.IndexByte(s, '.')
	n, _ := strconv.Atoi(s[:i])
	return thousands(n) + s[i:]
}
