package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/impls"
	"github.com/satmon/satmon/internal/oracle"
)

// The paper's Table 1 and Table 2, per variant: average steps, average
// time to violation, violations found of 4 (Table 1); share of violations
// found and average step of detection (Table 2).
var (
	table1Paper = map[string][3]string{
		"enumerate": {"35", "–", "0/4"}, "enumerate -c": {"38", "–", "0/4"},
		"symbolic": {"52", "2.350s", "3/4"}, "symbolic -r": {"52", "2.322s", "3/4"}, "symbolic -i": {"51", "0.984s", "3/4"},
		"symbolic -c": {"38", "–", "0/4"}, "symbolic -c -i": {"38", "–", "0/4"},
		"saturate": {"100", "0.040s", "4/4"}, "saturate -r": {"100", "0.050s", "4/4"},
	}
	table2Paper = map[string][2]string{
		"enumerate": {"55%", "23.8"}, "enumerate -c": {"88%", "23.8"},
		"symbolic": {"75%", "23.8"}, "symbolic -r": {"78%", "23.8"}, "symbolic -i": {"90%", "23.8"},
		"symbolic -c": {"100%", "23.8"}, "symbolic -c -i": {"100%", "23.8"},
		"saturate": {"100%", "24.2"}, "saturate -r": {"100%", "24.2"},
	}
)

// tableInputs records (or, with --from, reads) the histories of a table.
func tableInputs(w *bufio.Writer, f expFlags, name string, sets []string, count int, opt impls.Options) ([]*expHistory, error) {
	var hs []*expHistory
	var err error
	if f.from != "" {
		if hs, err = loadHistoryDir(f.from); err != nil {
			return nil, err
		}
		if hs, err = pickHistories(hs, f.histories); err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "%s: %d histories read from %s\n", name, len(hs), f.from)
	} else {
		if count, err = countFlag(f.histories, count); err != nil {
			return nil, err
		}
		for _, s := range sets {
			rec, err := record(name, s, count, opt)
			if err != nil {
				return nil, err
			}
			hs = append(hs, rec...)
		}
		fmt.Fprintf(w, "%s: %d histories recorded (%s, %d each; %d goroutines, %d operations, yield %g; seeds 1..%d fix the operation mix, not the schedule)\n",
			name, len(hs), strings.Join(sets, ", "), count, opt.Threads, opt.Ops, opt.Yield, count)
	}
	if f.save != "" {
		if err := saveHistories(f.save, hs); err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "saved the histories under %s (rerun with --from %s)\n", f.save, f.save)
	}
	return hs, nil
}

func tableLimit(f expFlags, quick time.Duration) time.Duration {
	switch {
	case f.limit > 0:
		return f.limit
	case f.quick:
		return quick
	}
	return 5 * time.Second
}

// exactVerdicts decides every history with the exact polynomial algorithm
// of internal/oracle; known is false when one falls outside its domain
// (pending operations, repeated values).
func exactVerdicts(hs []*expHistory) (violating []bool, known bool) {
	violating = make([]bool, len(hs))
	for i, h := range hs {
		lin, err := oracle.Check(h.Hist)
		if err != nil {
			return violating, false
		}
		violating[i] = !lin
	}
	return violating, true
}

// measureTable runs every variant on every history with one limit and
// returns the records by variant, and which histories are violating: by
// the exact oracle when it decides them all, else by any variant.
func measureTable(stderr io.Writer, f expFlags, name string, hs []*expHistory, vs []engine.Options, limit time.Duration) ([][]runRecord, []bool, string, error) {
	var jobs []job
	for _, v := range vs {
		for _, h := range hs {
			jobs = append(jobs, job{H: h, V: v, Limits: []time.Duration{limit}})
		}
	}
	recs, err := newRunner(name, stderr, f).run(jobs)
	if err != nil {
		return nil, nil, "", err
	}
	by := make([][]runRecord, len(vs))
	for i := range vs {
		by[i] = recs[i*len(hs) : (i+1)*len(hs)]
		for _, r := range by[i] {
			if r.Error != "" {
				return nil, nil, "", fmt.Errorf("%s with %s: %s", r.History, r.Variant, r.Error)
			}
		}
	}
	violating, known := exactVerdicts(hs)
	basis := "exact: the polynomial queue algorithm of internal/oracle"
	if !known {
		basis = "proved violating by some variant (the exact oracle cannot decide them all)"
		for j := range hs {
			for i := range vs {
				violating[j] = violating[j] || by[i][j].Verdict == string(engine.Violation)
			}
		}
	}
	for i := range vs {
		for j, r := range by[i] {
			if r.Verdict == string(engine.Violation) && known && !violating[j] {
				return nil, nil, "", fmt.Errorf("%s reported a violation on %s, which the exact oracle finds linearizable: a soundness bug", r.Variant, r.History)
			}
		}
	}
	return by, violating, basis, nil
}

func expTable1(w *bufio.Writer, stderr io.Writer, f expFlags) error {
	count := 100
	if f.quick {
		count = 3
	}
	limit := tableLimit(f, 100*time.Millisecond)
	hs, err := tableInputs(w, f, "table1", []string{"msqueue", "kfifo"}, count, impls.Options{Threads: 8, Ops: 50, Yield: 1})
	if err != nil {
		return err
	}
	vs, err := selectVariants(f.variants, paperVariants)
	if err != nil {
		return err
	}
	by, violating, basis, err := measureTable(stderr, f, "table1", hs, vs, limit)
	if err != nil {
		return err
	}
	total, steps := 0, 0
	for j, b := range violating {
		if b {
			total++
		}
		steps += hs[j].Steps
	}
	fmt.Fprintf(w, "limit %s per history; %.1f steps per history on average; %d of %d violating (%s)\n", limitName(limit), float64(steps)/float64(len(hs)), total, len(hs), basis)
	t := &expTable{Name: "table1", Header: []string{"variant", "avg steps", "finished", "avg time to viol.", "violations", "paper: avg steps", "paper: time", "paper: viol."}}
	for i, v := range vs {
		st, done, found := 0, 0, 0
		var tsum float64
		for _, r := range by[i] {
			st += r.Within[0]
			if r.Verdict != string(engine.Timeout) {
				done++
			}
			if r.Verdict == string(engine.Violation) {
				found++
				tsum += r.ViolationSeconds
			}
		}
		avgT := "–"
		if found > 0 {
			avgT = secs(tsum / float64(found))
		}
		p, ok := table1Paper[v.Name()]
		if !ok {
			p = [3]string{"–", "–", "–"}
		}
		t.add(v.Name(), f1(float64(st)/float64(len(hs))), fmt.Sprintf("%d/%d", done, len(hs)), avgT, fmt.Sprintf("%d/%d", found, total), p[0], p[1], p[2])
	}
	return t.emit(w, f.out)
}

func expTable2(w *bufio.Writer, stderr io.Writer, f expFlags) error {
	count := 100
	if f.quick {
		count = 5
	}
	limit := tableLimit(f, 100*time.Millisecond)
	hs, err := tableInputs(w, f, "table2", []string{"kfifo"}, count, impls.Options{Threads: 2, Ops: 50, Yield: 0})
	if err != nil {
		return err
	}
	vs, err := selectVariants(f.variants, paperVariants)
	if err != nil {
		return err
	}
	by, violating, basis, err := measureTable(stderr, f, "table2", hs, vs, limit)
	if err != nil {
		return err
	}
	total := 0
	for _, b := range violating {
		if b {
			total++
		}
	}
	fmt.Fprintf(w, "limit %s per history; %d of %d violating (%s)\n", limitName(limit), total, len(hs), basis)
	t := &expTable{Name: "table2", Header: []string{"variant", "% violations", "found", "avg step detected", "paper: %", "paper: step"}}
	for i, v := range vs {
		found, stepSum := 0, 0
		for j, r := range by[i] {
			if r.Verdict == string(engine.Violation) && violating[j] {
				found++
				stepSum += r.ViolationStep
			}
		}
		pct, avgS := "–", "–"
		if total > 0 {
			pct = fmt.Sprintf("%.0f%%", 100*float64(found)/float64(total))
		}
		if found > 0 {
			avgS = f1(float64(stepSum) / float64(found))
		}
		p, ok := table2Paper[v.Name()]
		if !ok {
			p = [2]string{"–", "–"}
		}
		t.add(v.Name(), pct, fmt.Sprintf("%d/%d", found, total), avgS, p[0], p[1])
	}
	return t.emit(w, f.out)
}
