package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/monitor"
	"github.com/satmon/satmon/monitor/logfmt"
)

func init() {
	register(&command{name: "check", summary: "check history logs for linearizability violations", run: runCheck})
}

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	alg := fs.StringP("algorithm", "a", "saturate", "checking algorithm: enumerate (exact, exponential), symbolic (SAT), saturate (unit propagation: fast, sound)")
	comp := fs.BoolP("completion", "c", false, "enumerate completions of pending operations explicitly")
	incr := fs.BoolP("incremental", "i", false, "SYMBOLIC: keep one live solver and add clauses as actions arrive")
	remove := fs.BoolP("remove-obsolete", "r", false, "forget obsolete matched operations (§5): bounded memory on endless logs")
	objName := fs.String("object", "", "object of logs that name none with '# @object' (e.g. queue, stack, semaphore)")
	param := fs.String("param", "", "object parameter with --object: semaphore capacity or register initial value")
	solver := fs.String("solver", "gini", "SAT backend for SYMBOLIC: gini or gophersat")
	timeout := fs.Duration("timeout", 0, "time limit per history, e.g. 5s (0: none); on expiry the verdict is 'timeout'")
	verbose := fs.BoolP("verbose", "v", false, "print per-history statistics (clauses, variables, propagations, window size, removals)")
	format := fs.String("format", "text", "output format: text, or json (one JSON object per history and line)")
	xf := addExplainFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: satmon check [flags] [FILE...]

Reads call/return logs (stdin when no FILE or FILE is -) and reports, for
each, whether it violates linearizability with respect to the atomic
object the log names ('# @object atomic-stack'). A violation is printed
as soon as the return action that proves it has been read.

Algorithms (the paper's §6):
  saturate        unit propagation only; never branches; the default
  symbolic        full SAT search (-c, -i, -r variations)
  enumerate -c    explicit completions and linearizations: exact, exponential
  enumerate       linearizations enumerated, completions left to the solver

A history is checked at every return action; its check stops at the first
violation. With -r, operations that can no longer matter are forgotten
(docs/removal.md), so a monitor on an endless pipe keeps bounded memory.
A match of a queue, stack, priority queue, lock, semaphore or exchanger
waits to be forgotten while a pending operation overlaps it, but at most
64 wait: one stalled operation does not hold the whole log. -v says how
many were forgotten that way, and how many tags repeated (their
operations are never forgotten).

Examples:
  satmon check testdata/stack/figure11-h2.log
  satmon check -r -v testdata/*/*.log
  satmon check -a enumerate -c --format json testdata/queue/*.log
  my-program | satmon check --object queue -

Exit status: 0 no violation, 1 a violation was found, 2 usage or input error.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "satmon check: %v\nRun 'satmon check --help' for usage.\n", err)
		return exitUsage
	}
	a, err := monitor.ParseAlgorithm(*alg)
	if err != nil {
		fmt.Fprintf(stderr, "satmon check: %v\n", err)
		return exitUsage
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "satmon check: unknown format %q (want text or json)\n", *format)
		return exitUsage
	}
	if *solver != "gini" && *solver != "gophersat" {
		fmt.Fprintf(stderr, "satmon check: unknown solver %q (want gini or gophersat)\n", *solver)
		return exitUsage
	}
	var obj history.Object
	if *objName != "" {
		var ok bool
		if obj, ok = history.ParseObject(*objName); !ok {
			fmt.Fprintf(stderr, "satmon check: unknown object %q\n", *objName)
			return exitUsage
		}
	}
	opt := monitor.Options{Algorithm: a, Completion: *comp, Incremental: *incr, RemoveObsolete: *remove, Solver: *solver, Timeout: *timeout}
	if err := opt.Validate(); err != nil {
		fmt.Fprintf(stderr, "satmon check: %s: %v\n", opt.Name(), err)
		return exitUsage
	}
	files := fs.Args()
	if len(files) == 0 {
		files = []string{"-"}
	}
	if err := xf.validate(len(files)); err != nil {
		fmt.Fprintf(stderr, "satmon check: %v\n", err)
		return exitUsage
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	p := printer{w: out, json: *format == "json", verbose: *verbose}
	code := exitOK
	for _, f := range files {
		var r io.Reader
		name := f
		if f == "-" {
			r, name = stdin, "<stdin>"
		} else {
			fh, err := os.Open(f)
			if err != nil {
				fmt.Fprintf(stderr, "satmon check: %v\n", err)
				code = exitUsage
				continue
			}
			r = fh
			defer fh.Close()
		}
		printed := false
		res, ex, err := xf.check(r, logfmt.Options{Name: name, Object: obj, Param: *param}, opt, func(res monitor.Result) {
			// Print (and flush) the moment the violation is proven, so a
			// monitor on a pipe speaks while the program still runs.
			p.print(res)
			printed = true
		})
		if err != nil {
			out.Flush()
			fmt.Fprintf(stderr, "%v\n", err)
			if p.json {
				p.print(res)
			}
			code = exitUsage
			continue
		}
		if !printed {
			p.print(res)
		}
		if !xf.report(out, stderr, p.json, res, ex) {
			code = exitUsage
		}
		if res.Verdict == monitor.Violation && code == exitOK {
			code = exitViolation
		}
	}
	return code
}

type printer struct {
	w       *bufio.Writer
	json    bool
	verbose bool
}

func (p printer) print(r monitor.Result) {
	defer p.w.Flush()
	if !p.verbose {
		r.Stats = nil
	}
	if p.json {
		b, _ := json.Marshal(r)
		p.w.Write(b)
		p.w.WriteString("\n")
		return
	}
	dur := time.Duration(r.Seconds * float64(time.Second)).Round(time.Microsecond)
	switch r.Verdict {
	case monitor.Violation:
		fmt.Fprintf(p.w, "%s: violation of %s at step %d (line %d, return of [%s]); %s, %d operations, %v\n",
			r.File, r.Object, *r.ViolationStep, r.ViolationLine, r.ViolationOp, r.Algorithm, r.Operations, dur)
	case monitor.Timeout:
		fmt.Fprintf(p.w, "%s: timeout after %d steps; %s, %d operations, %v\n", r.File, r.Steps, r.Algorithm, r.Operations, dur)
	case monitor.Error:
		fmt.Fprintf(p.w, "%s: error: %s\n", r.File, r.Error)
	default:
		fmt.Fprintf(p.w, "%s: ok (%s, no violation in %d steps); %s, %d operations, %v\n", r.File, r.Object, r.Steps, r.Algorithm, r.Operations, dur)
	}
	if p.verbose && r.Stats != nil {
		s := r.Stats
		fmt.Fprintf(p.w, "    checks %d, clauses %d, variables %d, propagations %d, window max %d mean %.1f, removed %d\n",
			s.Checks, s.Clauses, s.Vars, s.Propagations, s.MaxWindow, s.MeanWindow, s.Removed)
		if s.RepeatedTags > 0 {
			fmt.Fprintf(p.w, "    matching not unique: %d repeated tags, whose operations are never removed\n", s.RepeatedTags)
		}
		if s.ForcedRemovals > 0 {
			fmt.Fprintf(p.w, "    %d operations removed while a stalled pending operation overlapped them (wait cap reached)\n", s.ForcedRemovals)
		}
	}
}
