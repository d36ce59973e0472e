package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/impls"
)

func init() {
	register(&command{name: "experiment", summary: "reproduce the paper's §6: fig12, fig12-queue, artifact, table1, table2; and correct", run: runExperiment})
}

// paperVariants are the algorithm variants of the paper's Table 1 and
// Figure 12.
var paperVariants = []engine.Options{
	{Algorithm: engine.Enumerate}, {Algorithm: engine.Enumerate, Completion: true},
	{Algorithm: engine.Symbolic}, {Algorithm: engine.Symbolic, RemoveObsolete: true},
	{Algorithm: engine.Symbolic, Incremental: true}, {Algorithm: engine.Symbolic, Completion: true},
	{Algorithm: engine.Symbolic, Completion: true, Incremental: true},
	{Algorithm: engine.Saturate}, {Algorithm: engine.Saturate, RemoveObsolete: true},
}

// expFlags are the flags every experiment shares.
type expFlags struct {
	quick     bool
	out       string
	plot      string
	limit     time.Duration
	maxLimit  time.Duration
	variants  string
	histories string
	jobs      int
	resume    bool
	save      string
	from      string
	data      string
	sets      string
}

const experimentUsage = `Usage: satmon experiment EXPERIMENT [flags]

Reproduces the measurements of the paper's §6. Every (history, variant)
pair is checked once, up to the largest time limit, with the time of each
step recorded, so every limit is read off the same run; a variant that
finishes a history stops there.

On the paper's own histories (../shared/data/paper-histories, or --data):
  fig12       Figure 12: the 10 sync-stack histories (1,020.8 steps on
              average), limits 5, 25, 50, 75, 100 s, nine variants: average
              steps processed within each limit, beside the paper's
              numbers; plotted (log-scale steps) as fig12.svg/png
  artifact    satmon beside the paper artifact's own measurements, history
              by history, with the artifact's limits: big-msq (5-100 s),
              scal-small (10 s), simple and sync-stack (5 s); --sets picks
              some of them

On histories recorded from satmon's own implementations (internal/impls):
  table1      200 very concurrent runs (100 Michael-Scott queue, 100
              bounded-reordering k-FIFO queue; 8 goroutines, 50 operations),
              5 s each: average steps, time to violation, violations found
  table2      100 barely concurrent k-FIFO runs (2 goroutines), 5 s each:
              share of violations found and average step of detection
  fig12-queue Figure 12's measurement on 10 recorded Michael-Scott queue
              runs of 10,000 operations
  correct     every implementation meant to be linearizable, run 1,000
              times (--histories) and checked: any report is a bug (exit 1)
Recorded schedules are not reproducible: --save-histories DIR keeps the
logs, and --from DIR reruns an experiment on them.

Long runs: --out DIR appends every measurement to DIR/runs.jsonl as it
completes; --resume reuses those already there, so an interrupted run (or
one split with --variants and --histories) continues where it stopped.

Examples:
  satmon experiment fig12 --quick
  satmon experiment fig12 --variants 'saturate,saturate -r' --out /tmp/fig12
  satmon experiment fig12 --jobs 2 --out /tmp/fig12 --resume
  satmon experiment artifact --sets simple,scal-small --out /tmp/art
  satmon experiment table1 --save-histories /tmp/t1 && satmon experiment table1 --from /tmp/t1

Flags:
`

func runExperiment(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("experiment", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var f expFlags
	fs.BoolVar(&f.quick, "quick", false, "small inputs and limits, so that the experiment runs in seconds (for CI); numbers are not comparable with the paper's")
	fs.StringVar(&f.out, "out", "", "directory for CSV and JSON tables and runs.jsonl (every measurement, as it completes)")
	fs.StringVar(&f.plot, "plot", "", "directory for fig12's plot (default: --out)")
	fs.DurationVar(&f.limit, "limit", 0, "per-history time limit (default: the paper's 5s); fig12: the largest limit, the others scaled with it")
	fs.DurationVar(&f.maxLimit, "max-limit", 0, "artifact: skip the artifact's limits above this (its big-msq limits reach 100s)")
	fs.StringVar(&f.variants, "variants", "", "comma-separated variants, e.g. 'saturate,saturate -r,symbolic -i' (default: the paper's nine)")
	fs.StringVar(&f.histories, "histories", "", "a count N (the first N histories; for table1 and table2 N per set; for correct, runs) or comma-separated history names")
	fs.IntVar(&f.jobs, "jobs", 1, "histories checked at once; above 1, runs share the CPU and times grow")
	fs.BoolVar(&f.resume, "resume", false, "reuse the measurements already in --out DIR/runs.jsonl")
	fs.StringVar(&f.save, "save-histories", "", "write the histories measured under this directory (for --from)")
	fs.StringVar(&f.from, "from", "", "measure the logs under this directory instead of recording or reading the default set")
	fs.StringVar(&f.data, "data", "", "the paper-histories directory (default: ../shared/data/paper-histories above the working directory, or $SATMON_PAPER_HISTORIES)")
	fs.StringVar(&f.sets, "sets", "", "artifact: comma-separated subset of big-msq, scal-small, simple, sync-stack")
	fs.Usage = func() {
		fmt.Fprint(stderr, experimentUsage)
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
	if f.resume && f.out == "" {
		fmt.Fprintln(stderr, "satmon experiment: --resume needs --out DIR")
		return exitUsage
	}
	if f.plot == "" {
		f.plot = f.out
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	var err error
	code := exitOK
	switch fs.Arg(0) {
	case "fig12":
		err = expFig12(w, stderr, f)
	case "fig12-queue":
		err = expFig12Queue(w, stderr, f)
	case "artifact":
		err = expArtifact(w, stderr, f)
	case "table1":
		err = expTable1(w, stderr, f)
	case "table2":
		err = expTable2(w, stderr, f)
	case "correct":
		code, err = expCorrect(w, f)
	default:
		err = expUsageError{fmt.Errorf("unknown experiment %q (want fig12, artifact, table1, table2, fig12-queue or correct)", fs.Arg(0))}
	}
	if err != nil {
		w.Flush()
		fmt.Fprintf(stderr, "satmon experiment: %v\n", err)
		return exitUsage
	}
	return code
}

// expUsageError marks bad flags or input (exit 2, as every other error here).
type expUsageError struct{ error }

// selectVariants reads a comma-separated list of variant names, each an
// algorithm and its flags in any order ("symbolic -r -i").
func selectVariants(s string, def []engine.Options) ([]engine.Options, error) {
	if strings.TrimSpace(s) == "" {
		return def, nil
	}
	var out []engine.Options
	for _, name := range strings.Split(s, ",") {
		v, err := parseVariant(name)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func parseVariant(name string) (engine.Options, error) {
	fields := strings.Fields(name)
	if len(fields) == 0 {
		return engine.Options{}, fmt.Errorf("empty variant name")
	}
	alg, err := engine.ParseAlgorithm(fields[0])
	if err != nil {
		return engine.Options{}, fmt.Errorf("variant %q: %v", name, err)
	}
	o := engine.Options{Algorithm: alg}
	for _, fl := range fields[1:] {
		switch fl {
		case "-c":
			o.Completion = true
		case "-i":
			o.Incremental = true
		case "-r":
			o.RemoveObsolete = true
		default:
			return o, fmt.Errorf("variant %q: unknown flag %q (want -c, -i, -r)", name, fl)
		}
	}
	if err := o.Validate(); err != nil {
		return o, fmt.Errorf("variant %q: %v", name, err)
	}
	return o, nil
}

// pickHistories applies --histories: a count keeps the first N, a list
// keeps the histories whose name (or base name) it gives.
func pickHistories(hs []*expHistory, sel string) ([]*expHistory, error) {
	sel = strings.TrimSpace(sel)
	if sel == "" {
		return hs, nil
	}
	if n, err := strconv.Atoi(sel); err == nil {
		if n <= 0 {
			return nil, fmt.Errorf("--histories %d: want a positive count", n)
		}
		return hs[:min(n, len(hs))], nil
	}
	var out []*expHistory
	for _, name := range strings.Split(sel, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, h := range hs {
			if h.Name == name || filepath.Base(h.Name) == name || strings.TrimSuffix(filepath.Base(h.Name), ".log") == name {
				out, found = append(out, h), true
			}
		}
		if !found {
			return nil, fmt.Errorf("--histories: no history named %q", name)
		}
	}
	return out, nil
}

// countFlag is --histories read as a count, or def.
func countFlag(sel string, def int) (int, error) {
	if strings.TrimSpace(sel) == "" {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(sel))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("--histories %q: want a positive count here", sel)
	}
	return n, nil
}

// paperData finds the paper-histories directory.
func paperData(f expFlags) (string, error) {
	cands := []string{f.data}
	if f.data == "" {
		cands = nil
		if env := os.Getenv("SATMON_PAPER_HISTORIES"); env != "" {
			cands = append(cands, env)
		}
		if wd, err := os.Getwd(); err == nil {
			for dir := wd; ; dir = filepath.Dir(dir) {
				cands = append(cands, filepath.Join(dir, "..", "shared", "data", "paper-histories"))
				if filepath.Dir(dir) == dir {
					break
				}
			}
		}
	}
	for _, c := range cands {
		if st, err := os.Stat(filepath.Join(c, "sync-stack")); err == nil && st.IsDir() {
			return c, nil
		}
	}
	if f.data != "" {
		return "", fmt.Errorf("--data %s: not a paper-histories directory (no sync-stack/ in it)", f.data)
	}
	return "", fmt.Errorf("the paper's histories were not found (../shared/data/paper-histories beside the repository); give --data DIR")
}

// record runs an implementation count times (seeds 1..count) and parses
// the logs, naming them prefix/name-NNN.log.
func record(prefix, name string, count int, opt impls.Options) ([]*expHistory, error) {
	var out []*expHistory
	for seed := 1; seed <= count; seed++ {
		opt.Seed = int64(seed)
		var buf bytes.Buffer
		if err := impls.Run(name, opt, &buf); err != nil {
			return nil, fmt.Errorf("%s seed %d: %v", name, seed, err)
		}
		h, err := newExpHistory(fmt.Sprintf("%s/%s-%03d.log", prefix, name, seed), buf.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s seed %d: %v", name, seed, err)
		}
		out = append(out, h)
	}
	return out, nil
}

func newRunner(exp string, stderr io.Writer, f expFlags) *runner {
	return &runner{exp: exp, workers: f.jobs, bar: stderr, outDir: f.out, resume: f.resume}
}

func expCorrect(w *bufio.Writer, f expFlags) (int, error) {
	runs := 1000
	if f.quick {
		runs = 20
	}
	runs, err := countFlag(f.histories, runs)
	if err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(w, "correct: each implementation meant to be linearizable, %d runs (seeds 1..%d; 4 goroutines, 60 operations, yield 0.5), checked with saturate -r\n", runs, runs)
	t := &expTable{Name: "correct", Header: []string{"implementation", "object", "runs", "reported"}}
	bad := 0
	for _, name := range impls.Names() {
		obj, faulty, _ := impls.Info(name)
		if faulty {
			continue
		}
		hs, err := record("correct", name, runs, impls.Options{Threads: 4, Ops: 60, Yield: 0.5})
		if err != nil {
			return exitUsage, err
		}
		reported := 0
		for _, h := range hs {
			if r, _ := engine.CheckHistory(h.Hist, engine.Options{Algorithm: engine.Saturate, RemoveObsolete: true}); r.Verdict != engine.OK { // an error is verdict Error in r
				reported++
			}
		}
		bad += reported
		t.add(name, obj.String(), fmt.Sprint(runs), fmt.Sprint(reported))
	}
	if err := t.emit(w, f.out); err != nil {
		return exitUsage, err
	}
	if bad > 0 {
		fmt.Fprintf(w, "A CORRECT IMPLEMENTATION WAS REPORTED %d TIMES: a bug in satmon or in the implementation\n", bad)
		return exitViolation, nil
	}
	return exitOK, nil
}
