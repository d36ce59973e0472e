package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/impls"
	"github.com/satmon/satmon/monitor"
	"github.com/satmon/satmon/monitor/logfmt"
)

func init() {
	register(&command{name: "experiment", summary: "reproduce the paper's §6: fig12, table1, table2; and correct", run: runExperiment})
}

// paperVariants are the algorithm variants of the paper's Table 1.
var paperVariants = []monitor.Options{
	{Algorithm: monitor.Enumerate}, {Algorithm: monitor.Enumerate, Completion: true},
	{Algorithm: monitor.Symbolic}, {Algorithm: monitor.Symbolic, RemoveObsolete: true},
	{Algorithm: monitor.Symbolic, Incremental: true}, {Algorithm: monitor.Symbolic, Completion: true},
	{Algorithm: monitor.Symbolic, Completion: true, Incremental: true},
	{Algorithm: monitor.Saturate}, {Algorithm: monitor.Saturate, RemoveObsolete: true},
}

func runExperiment(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("experiment", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "shrink histories and limits so that the experiment runs in seconds (for CI)")
	outDir := fs.String("out", "out", "directory for fig12's plots (SVG and PNG)")
	limitFlag := fs.Duration("limit", 0, "per-history time limit (default: the paper's 5s; fig12: the largest of its limits)")
	variants := fs.String("variants", "", "comma-separated subset of variants, e.g. 'saturate,saturate -r,symbolic -i'")
	n := fs.Int("histories", 0, "histories per set, or runs per implementation for correct (default: the paper's counts; 1,000 runs)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: satmon experiment fig12|table1|table2|correct [flags]

Reproduces the measurements of the paper's §6 on histories recorded from
satmon's own concurrent implementations (internal/impls):

  table1  very concurrent runs (100 Michael-Scott queue, 100 bounded-
          reordering k-FIFO queue, 50 operations: ~20 enqueues, ~30
          dequeues): average steps within the limit, average time to
          violation, violations found, per variant
  table2  100 barely concurrent k-FIFO runs: percentage of violations found
          and average step of detection, per variant
  fig12   steps processed within 5, 25, 50, 75 and 100 s per history over
          ten Michael-Scott queue runs of 10,000 operations; one run per
          variant and history records when each step completed, so every
          limit comes from the same run; plotted on a log scale
  correct every implementation meant to be linearizable, run 1,000 times
          (--histories) and checked: any report is a bug (exit 1)

Real schedules are not reproducible: each run records a fresh log.

Examples:
  satmon experiment table1 --quick
  satmon experiment table2 --variants 'saturate,saturate -r,symbolic -i'
  satmon experiment fig12 --quick --out /tmp/fig

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "satmon experiment: %v\nRun 'satmon experiment --help' for usage.\n", err)
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	vs, err := selectVariants(*variants)
	if err != nil {
		fmt.Fprintf(stderr, "satmon experiment: %v\n", err)
		return exitUsage
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	switch fs.Arg(0) {
	case "table1":
		count, limit, ops := 100, 5*time.Second, 50
		if *quick {
			count, limit = 5, 200*time.Millisecond
		}
		count, limit = orDefault(*n, count), orDefaultD(*limitFlag, limit)
		hists := record(w, "msqueue", count, impls.Options{Threads: 8, Ops: ops, Yield: 1})
		hists = append(hists, record(w, "kfifo", count, impls.Options{Threads: 8, Ops: ops, Yield: 1})...)
		fmt.Fprintf(w, "table1: %d very concurrent histories (%d msqueue, %d kfifo), %d operations each, limit %v\n", len(hists), count, count, ops, limit)
		table(w, hists, vs, limit, false)
	case "table2":
		count, limit, ops := 100, 5*time.Second, 50
		if *quick {
			count, limit = 10, 200*time.Millisecond
		}
		count, limit = orDefault(*n, count), orDefaultD(*limitFlag, limit)
		hists := record(w, "kfifo", count, impls.Options{Threads: 2, Ops: ops, Yield: 0})
		fmt.Fprintf(w, "table2: %d barely concurrent kfifo histories, %d operations each, limit %v\n", len(hists), ops, limit)
		table(w, hists, vs, limit, true)
	case "fig12":
		count, ops := 10, 10000
		limits := []time.Duration{5 * time.Second, 25 * time.Second, 50 * time.Second, 75 * time.Second, 100 * time.Second}
		if *quick {
			count, ops = 3, 1000
			limits = []time.Duration{10 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 150 * time.Millisecond, 200 * time.Millisecond}
		}
		count = orDefault(*n, count)
		if *limitFlag > 0 {
			scale := float64(*limitFlag) / float64(limits[len(limits)-1])
			for i := range limits {
				limits[i] = time.Duration(float64(limits[i]) * scale)
			}
		}
		hists := record(w, "msqueue", count, impls.Options{Threads: 8, Ops: ops, Yield: 0.5})
		fmt.Fprintf(w, "fig12: %d msqueue histories of %d operations\n", len(hists), ops)
		if err := fig12(w, hists, vs, limits, *outDir); err != nil {
			fmt.Fprintf(stderr, "satmon experiment: %v\n", err)
			return exitUsage
		}
	case "correct":
		runs := 1000
		if *quick {
			runs = 20
		}
		runs = orDefault(*n, runs)
		fmt.Fprintf(w, "correct: each implementation meant to be linearizable, %d runs (seeds 1..%d; 4 goroutines, 60 operations, yield 0.5), checked with saturate -r\n", runs, runs)
		fmt.Fprintf(w, "%-16s %-24s %8s %12s\n", "implementation", "object", "runs", "reported")
		bad := 0
		for _, name := range impls.Names() {
			obj, faulty, _ := impls.Info(name)
			if faulty {
				continue
			}
			reported := 0
			for _, h := range record(w, name, runs, impls.Options{Threads: 4, Ops: 60, Yield: 0.5}) {
				if r, _ := monitor.CheckHistory(h, monitor.Options{Algorithm: monitor.Saturate, RemoveObsolete: true}); r.Verdict != monitor.OK {
					reported++
				}
			}
			bad += reported
			fmt.Fprintf(w, "%-16s %-24s %8d %12d\n", name, obj, runs, reported)
			w.Flush()
		}
		if bad > 0 {
			fmt.Fprintf(w, "A CORRECT IMPLEMENTATION WAS REPORTED %d TIMES: a bug in satmon or in the implementation\n", bad)
			return exitViolation
		}
	default:
		fmt.Fprintf(stderr, "satmon experiment: unknown experiment %q (want fig12, table1, table2 or correct)\n", fs.Arg(0))
		return exitUsage
	}
	return exitOK
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

func orDefaultD(v, d time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return d
}

func selectVariants(s string) ([]monitor.Options, error) {
	if s == "" {
		return paperVariants, nil
	}
	var out []monitor.Options
	for _, name := range strings.Split(s, ",") {
		name = strings.Join(strings.Fields(name), " ")
		found := false
		for _, v := range paperVariants {
			if v.Name() == name {
				out, found = append(out, v), true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown variant %q", name)
		}
	}
	return out, nil
}

// record runs an implementation count times (seeds 1..count) and parses
// the logs.
func record(w *bufio.Writer, name string, count int, opt impls.Options) []*history.History {
	var out []*history.History
	for seed := 1; seed <= count; seed++ {
		opt.Seed = int64(seed)
		var buf bytes.Buffer
		if err := impls.Run(name, opt, &buf); err != nil {
			fmt.Fprintf(w, "# %s seed %d: %v\n", name, seed, err)
			continue
		}
		h, err := logfmt.ReadHistory(&buf, logfmt.Options{Name: name})
		if err != nil {
			fmt.Fprintf(w, "# %s seed %d: %v\n", name, seed, err)
			continue
		}
		out = append(out, h)
	}
	return out
}

// table prints, per variant, average steps processed within the limit,
// average time to violation and violations found; with percent, the
// share of violating histories found and the average step of detection.
// The violating histories are those any variant proved violating.
func table(w *bufio.Writer, hists []*history.History, vs []monitor.Options, limit time.Duration, percent bool) {
	results := make([][]monitor.Result, len(vs))
	violating := make([]bool, len(hists))
	for i, v := range vs {
		v.Timeout = limit
		for j, h := range hists {
			r, _ := monitor.CheckHistory(h, v) // an error is verdict Error in r
			results[i] = append(results[i], r)
			if r.Verdict == monitor.Violation {
				violating[j] = true
			}
		}
	}
	total := 0
	for _, b := range violating {
		if b {
			total++
		}
	}
	if percent {
		fmt.Fprintf(w, "%-16s %14s %20s\n", "variant", "% violations", "avg step detected")
	} else {
		fmt.Fprintf(w, "%-16s %10s %20s %14s\n", "variant", "avg steps", "avg time to viol.", "violations")
	}
	for i, v := range vs {
		steps, found, stepSum := 0, 0, 0
		var secs float64
		for _, r := range results[i] {
			steps += r.Steps
			if r.Verdict == monitor.Violation {
				found++
				secs += r.Seconds
				stepSum += *r.ViolationStep
			}
		}
		avgT, avgS := "-", "-"
		if found > 0 {
			avgT = fmt.Sprintf("%.3fs", secs/float64(found))
			avgS = fmt.Sprintf("%.1f", float64(stepSum)/float64(found))
		}
		if percent {
			pct := "-"
			if total > 0 {
				pct = fmt.Sprintf("%.0f%%", 100*float64(found)/float64(total))
			}
			fmt.Fprintf(w, "%-16s %14s %20s\n", v.Name(), pct, avgS)
		} else {
			fmt.Fprintf(w, "%-16s %10.1f %20s %14s\n", v.Name(), float64(steps)/float64(len(hists)), avgT, fmt.Sprintf("%d/%d", found, total))
		}
	}
	fmt.Fprintf(w, "(%d of %d histories proved violating by some variant)\n", total, len(hists))
	w.Flush()
}

// fig12 measures, in one run per variant and history with the largest
// limit, the time at which each step completed, and derives the steps
// processed within every limit.
func fig12(w *bufio.Writer, hists []*history.History, vs []monitor.Options, limits []time.Duration, dir string) error {
	maxL := limits[len(limits)-1]
	avg := make([][]float64, len(vs))
	fmt.Fprintf(w, "%-16s", "variant")
	for _, l := range limits {
		fmt.Fprintf(w, " %10s", l)
	}
	fmt.Fprintln(w)
	for i, v := range vs {
		v.Timeout = maxL
		avg[i] = make([]float64, len(limits))
		for _, h := range hists {
			m, err := monitor.New(h.Object, h.Param, v)
			if err != nil {
				return err
			}
			start := time.Now()
			var at []time.Duration
			for _, a := range monitor.Actions(h) {
				if _, err := m.Step(a); err != nil {
					return err
				}
				if m.Done() {
					break
				}
				at = append(at, time.Since(start))
			}
			for k, l := range limits {
				n := 0
				for n < len(at) && at[n] <= l {
					n++
				}
				avg[i][k] += float64(n) / float64(len(hists))
			}
		}
		fmt.Fprintf(w, "%-16s", v.Name())
		for k := range limits {
			fmt.Fprintf(w, " %10.1f", avg[i][k])
		}
		fmt.Fprintln(w)
		w.Flush()
	}
	p := plot.New()
	p.Title.Text = "Steps processed within a time limit (Figure 12)"
	p.X.Label.Text = "steps (log scale)"
	p.Y.Label.Text = "time limit (s)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{}
	p.Legend.Top = true
	p.Legend.Left = true
	for i, v := range vs {
		pts := make(plotter.XYs, len(limits))
		for k, l := range limits {
			pts[k].X, pts[k].Y = max(avg[i][k], 1), l.Seconds()
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		c := plotutil.Color(i)
		line.Color, points.Color = c, c
		points.Shape = plotutil.Shape(i)
		line.Dashes = plotutil.Dashes(i % 3)
		p.Add(line, points)
		p.Legend.Add(v.Name(), line, points)
	}
	p.BackgroundColor = color.White
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, ext := range []string{"svg", "png"} {
		f := filepath.Join(dir, "fig12."+ext)
		if err := p.Save(18*vg.Centimeter, 12*vg.Centimeter, f); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s\n", f)
	}
	return nil
}
