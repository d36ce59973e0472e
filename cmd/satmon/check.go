package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/explain"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/progress"
)

func init() {
	register(&command{name: "check", summary: "check history logs for linearizability violations", run: runCheck})
}

// interrupted is the verdict of the history being checked when an
// interrupt (Ctrl-C) stopped satmon: undecided, like a timeout.
const interrupted engine.Verdict = "interrupted"

// progressMin is the number of files from which check shows a progress
// bar (on a terminal only).
const progressMin = 10

// checkHelp is check's --help text; the detection rates are measured by
// TestSaturateDetectionRate (docs/testing.md).
const checkHelp = `Usage: satmon check [flags] [FILE...]

Reads call/return logs (stdin when no FILE or FILE is -) and reports, for
each, whether it violates linearizability with respect to the atomic
object the log names ('# @object atomic-stack'). A violation is printed
as soon as the return action that proves it has been read; with -a
symbolic on a regular file (not a pipe), once the file has been read: it
solves once per object and bisects for the earliest proving return, which
is reported as checking every return would.

What a verdict proves:
  violation   a proof, whatever the algorithm: the log is not linearizable.
  ok          with -a symbolic (without -r) or -a enumerate, and by
              default on the registers (register, compare-and-set
              register, string register, every key of a Jepsen or
              key-value log): a proof that the log is linearizable
              ("exact": true in JSON; the text says "linearizable").
              With saturate, the default on the other objects: only that
              no violation was found ("exact": false). SATURATE never
              branches, so it can miss violations: on 20,800 random
              histories it found 98.5-98.8% of their violations (93.7%
              for sets, its worst object; docs/testing.md). Run
              -a symbolic to decide exactly.
  timeout     undecided: the time limit came first.
  interrupted undecided: an interrupt (Ctrl-C) came first; in a log of
              many objects, every object not in violation.

Algorithms (the paper's §6):
  (none named)    the registers: the frontier, exact, with a window of the
                  open operations (crashed ones, Jepsen's :info or a
                  native log's '[ID] crash' line, are counted, not kept
                  open), each violation reported at the return that
                  proves it (docs/removal.md, "Summaries at any cut");
                  past its limits it warns and goes on, sound but not
                  exact; the other objects: saturate -r
  saturate        unit propagation only; never branches; fast; the default
                  on the other objects, with -r on
  symbolic        full SAT search: exact (-c, -i, -r variations; -r forgets
                  what it derived, so symbolic -r is not exact; on a
                  string register whose get repeats an appended token,
                  symbolic and enumerate warn that ok is not a proof)
  enumerate -c    explicit completions and linearizations: exact, exponential
  enumerate       linearizations enumerated, completions left to the solver:
                  exact

With -r (on by default for saturate; --no-remove or -r=false turns it off),
operations that can no longer matter are forgotten (docs/removal.md), so a
monitor on an endless pipe keeps bounded memory. -r loses no detection for
saturate on the histories we measured. A match of a queue, stack, priority
queue, lock, semaphore or exchanger waits to be forgotten while a pending
operation overlaps it, but at most 64 wait: one stalled operation does not
hold the whole log. -v says how many were forgotten that way, and how many
tags repeated (their operations are never forgotten).

Live logs: after a violation or a bad line, satmon keeps reading its
input to the end, so the program writing it is neither blocked nor
killed by SIGPIPE; --exit-on-violation exits at once after a violation
instead. An interrupt (Ctrl-C) prints the verdict so far of the history
being read, and a summary. On a terminal, the file being read shows its
progress on stderr (steps read, rate, window; for a log of many objects
or a Jepsen, EDN or JSON history, the bytes read), and a batch of 10
files or more a bar of the files.

Examples:
  satmon check testdata/stack/figure11-h2.log
  satmon check -v testdata/*/*.log
  satmon check -a symbolic --format json testdata/queue/*.log
  my-program | satmon check --object queue -

Exit status, over all FILEs: 1 if any violation was found; otherwise 2 if
any usage or input error; otherwise 3 if any history is undecided (timeout,
interrupt); otherwise 0. A violation is never hidden by a bad file.
Bad input, in every format, is said on stderr as
'satmon check: FILE:LINE:COL: what is wrong'. JSON output: one record per
FILE, plus one per object in violation in logs of many objects, each on
one line; docs/output.md documents every field.

Flags:
`

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	alg := fs.StringP("algorithm", "a", "saturate", "checking algorithm: saturate (fast, can miss violations), symbolic (SAT, exact), enumerate (exact, exponential)")
	comp := fs.BoolP("completion", "c", false, "enumerate completions of pending operations explicitly")
	incr := fs.BoolP("incremental", "i", false, "SYMBOLIC: keep one live solver and add clauses as actions arrive")
	remove := fs.BoolP("remove-obsolete", "r", false, "forget obsolete matched operations (§5): bounded memory on endless logs (default on for saturate)")
	noRemove := fs.Bool("no-remove", false, "do not forget operations (saturate's -r is on by default)")
	objName := fs.String("object", "", "object of logs that name none with '# @object' (e.g. queue, stack, semaphore)")
	param := fs.String("param", "", "object parameter with --object: semaphore capacity or register initial value")
	solver := fs.String("solver", "gini", "SAT backend for SYMBOLIC: gini or gophersat")
	timeout := fs.Duration("timeout", 0, "limit on the time spent checking each history, e.g. 5s (0: none; time waiting for input on a pipe does not count); on expiry the verdict is 'timeout' (exit 3)")
	verbose := fs.BoolP("verbose", "v", false, "print per-history statistics (clauses, variables, propagations, window size, removals)")
	format := fs.String("format", "text", "output format: text, or json (one JSON record per line; docs/output.md)")
	mf := defineMultiFlags(fs)
	xf := addExplainFlags(fs)
	mf.xf = xf
	exitFirst := fs.Bool("exit-on-violation", false, "exit as soon as a violation is proven, without reading the rest of the input or the other files")
	fs.Usage = func() {
		fmt.Fprint(stderr, checkHelp)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return usageError(stderr, "check", err)
	}
	a, err := engine.ParseAlgorithm(*alg)
	if err != nil {
		return usageError(stderr, "check", err)
	}
	if *format != "text" && *format != "json" {
		return usageError(stderr, "check", fmt.Errorf("unknown format %q (want text or json)", *format))
	}
	if err := mf.validate(); err != nil {
		return usageError(stderr, "check", err)
	}
	if err := xf.validate(len(fs.Args())); err != nil {
		return usageError(stderr, "check", err)
	}
	if *timeout < 0 {
		return usageError(stderr, "check", fmt.Errorf("--timeout %v is negative (0 means no limit)", *timeout))
	}
	var obj history.Object
	if *objName != "" {
		var ok bool
		if obj, ok = history.ParseObject(*objName); !ok {
			return usageError(stderr, "check", fmt.Errorf("unknown object %q", *objName))
		}
		if err := engine.ValidateParam(obj, *param); err != nil {
			return usageError(stderr, "check", fmt.Errorf("--param: %v", err))
		}
	} else if *param != "" {
		return usageError(stderr, "check", errors.New("--param goes with --object"))
	}
	opt := engine.Options{Algorithm: a, Completion: *comp, Incremental: *incr, RemoveObsolete: *remove, Solver: *solver, Timeout: *timeout}
	switch {
	case *noRemove && *remove:
		return usageError(stderr, "check", errors.New("-r and --no-remove contradict each other"))
	case *noRemove:
		opt.RemoveObsolete = false
	case a == engine.Saturate && !fs.Changed("remove-obsolete"):
		opt.RemoveObsolete = true
	}
	if err := opt.Validate(); err != nil {
		return usageError(stderr, "check", fmt.Errorf("%s: %v", opt.Name(), err))
	}
	if !fs.Changed("algorithm") && !*comp && !*incr && !fs.Changed("remove-obsolete") && !*noRemove {
		// No variant named: the default, which checks the registers
		// exactly (engine.DefaultOptions).
		opt.Algorithm, opt.RemoveObsolete = 0, false
	}
	files := fs.Args()
	if len(files) == 0 {
		files = []string{"-"}
		sayReadingStdin(stdin, stderr)
	}
	c := &checker{
		mf:        mf,
		xf:        xf,
		opt:       opt,
		lo:        logfmt.Options{Object: obj, Param: *param},
		exitFirst: *exitFirst,
		out:       bufio.NewWriter(stdout),
		stderr:    stderr,
	}
	c.p = printer{w: c.out, json: *format == "json", verbose: *verbose}
	defer c.out.Flush()
	if len(files) >= progressMin {
		c.bar = progress.New(stderr, len(files), "checking")
		c.clearBar = c.bar != nil && isTerminal(stdout)
		defer c.bar.Done()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := c.onInterrupt(cancel)
	defer stop()
	return c.run(ctx, files, stdin)
}

func usageError(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "satmon %s: %v\nRun 'satmon %s --help' for usage.\n", cmd, err, cmd)
	return exitUsage
}

// outcome accumulates the verdicts of a batch into its exit code: a
// violation beats an input error, which beats an undecided history.
type outcome struct {
	violations, errors, undecided, ok int
}

func (o *outcome) add(v engine.Verdict) {
	switch v {
	case engine.Violation:
		o.violations++
	case engine.Error:
		o.errors++
	case engine.OK:
		o.ok++
	default: // timeout, interrupted
		o.undecided++
	}
}

func (o *outcome) code() int {
	switch {
	case o.violations > 0:
		return exitViolation
	case o.errors > 0:
		return exitUsage
	case o.undecided > 0:
		return exitUndecided
	}
	return exitOK
}

// checker runs check over a batch of files.
type checker struct {
	opt       engine.Options
	lo        logfmt.Options
	exitFirst bool
	out       *bufio.Writer
	stderr    io.Writer
	p         printer
	bar       *progress.Bar
	clearBar  bool // the bar and the verdicts share a terminal
	mf        *multiFlags
	xf        *explainFlags

	// mu is held while the batch's state changes, so that an interrupt
	// sees a consistent state; it is not held while waiting for input.
	mu   sync.Mutex
	sum  outcome
	cur  *engine.Monitor // the monitor of the history being read
	name string          // its file
	said bool            // its violation is printed
	// finite: the history being read is a regular file (regular)
	finite bool
	// stopping is set by an interrupt before it cancels the check: what
	// the main goroutine then finds is the interrupt's to print (parked).
	stopping atomic.Bool
	// multiDone, while a log is handed to multiFlags.check (which may
	// read it as a log of many objects), is closed once that check has
	// returned and its record is printed: an interrupt waits for it.
	multiDone chan struct{}
}

// multiGrace is how long an interrupt waits for the check of a log of
// many objects to print what it has: its reads return at once
// (ctxReader), and its monitors stop at their next step.
const multiGrace = 5 * time.Second

// parked is where the main goroutine waits, once an interrupt has
// stopped the check, for the interrupt to print the summary and exit.
func (c *checker) parked() {
	if c.stopping.Load() {
		c.mu.Unlock()
		select {} // os.Exit, in onInterrupt, ends it
	}
}

func (c *checker) run(ctx context.Context, files []string, stdin io.Reader) int {
	for _, f := range files {
		name, r, closeFn, err := open(f, stdin)
		if err != nil {
			c.mu.Lock()
			c.report(engine.Result{File: f, Algorithm: c.opt.Name(), Exact: c.opt.Exact(), Verdict: engine.Error, Error: err.Error()}, err)
			c.mu.Unlock()
			continue
		}
		c.finite = regular(r)
		in := r
		if !c.finite {
			in = newCtxReader(ctx, r) // a wait for input ends at an interrupt
		}
		prog := c.bytesProgress(in, name, fileSize(r))
		br := bufio.NewReaderSize(prog, 64<<10)
		done := make(chan struct{})
		c.mu.Lock()
		c.name, c.multiDone = name, done
		c.mu.Unlock()
		multi, res, err := c.mf.check(ctx, br, prog, name, c.lo.Object, c.lo.Param, c.opt, c.finite, c.out, c.stderr, c.p.json, c.p.verbose)
		c.mu.Lock()
		c.multiDone = nil
		if multi {
			c.sum.add(res.Verdict)
		}
		if c.stopping.Load() {
			close(done) // the record, if any, is printed
			c.parked()
		}
		c.mu.Unlock()
		if multi {
			// A log of many objects or a foreign history: check printed a
			// verdict per object and one for the log.
			if err != nil {
				drain(br, r)
			}
			closeFn()
			c.mu.Lock()
			if c.xf.failed {
				c.sum.add(engine.Error) // a picture could not be written
			}
			stop := c.exitFirst && res.Verdict == engine.Violation
			c.mu.Unlock()
			c.bar.Add(1)
			if stop {
				break
			}
			continue
		}
		if c.xf != nil && c.xf.on() {
			// An explanation needs the whole history: it is read, checked
			// and then explained, printed after its verdict.
			lo := c.lo
			lo.Name = name
			res, ex, err := explain.CheckLogExplain(br, lo, c.opt, nil)
			c.mu.Lock()
			c.parked()
			c.report(res, err)
			if err == nil && !c.xf.report(c.out, c.stderr, c.p.json, res, ex) {
				c.sum.add(engine.Error) // a picture could not be written
			}
			c.mu.Unlock()
			if err != nil {
				drain(br, r)
			}
			closeFn()
			c.bar.Add(1)
			continue
		}
		res, err = c.check(ctx, br, name)
		c.mu.Lock()
		c.parked()
		switch {
		case !c.said:
			c.report(res, err)
		case err == nil:
			c.sum.add(res.Verdict)
		default:
			// The violation, printed already, stands; reading the rest
			// of the input failed.
			c.sum.add(engine.Violation)
			fmt.Fprintf(c.stderr, "satmon check: %v\n", err)
		}
		c.cur, c.said = nil, false
		stop := c.exitFirst && res.Verdict == engine.Violation
		c.mu.Unlock()
		if err != nil {
			drain(br, r) // after the error is said
		}
		closeFn()
		c.bar.Add(1)
		if stop {
			break
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sum.code()
}

// drain reads the rest of a live input after an input error, as after a
// violation: the program writing it is neither blocked nor killed by
// SIGPIPE, whatever line was bad. The error is already printed; a
// regular file is left unread.
func drain(br *bufio.Reader, r io.Reader) {
	if regular(r) {
		return
	}
	_, _ = io.Copy(io.Discard, br)
}

// fileSize is the size of r when it is a regular file, else 0.
func fileSize(r io.Reader) int64 {
	f, ok := r.(*os.File)
	if !ok {
		return 0
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

// regular reports whether r is a regular file: a log read to its end
// before its verdict matters, which exact SYMBOLIC decides at the end
// (engine.Monitor.Finite) rather than at every return. A pipe or a
// terminal may be a live stream, checked as it comes.
func regular(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

func open(f string, stdin io.Reader) (string, io.Reader, func(), error) {
	if f == "-" {
		return "<stdin>", stdin, func() {}, nil
	}
	fh, err := os.Open(f)
	if err != nil {
		return f, nil, nil, err
	}
	return f, fh, func() { fh.Close() }, nil
}

// report prints one history's final record and counts it; mu is held.
func (c *checker) report(res engine.Result, err error) {
	c.sum.add(res.Verdict)
	if err != nil {
		c.out.Flush()
		c.clear()
		fmt.Fprintf(c.stderr, "satmon check: %v\n", err)
	}
	c.clear()
	c.p.print(res)
}

// clear erases the progress bar's line before a verdict is printed on the
// same terminal; the bar redraws itself on its next step.
func (c *checker) clear() {
	if c.clearBar {
		fmt.Fprint(c.stderr, "\r\x1b[K")
	}
}

// check reads one log and checks it. It prints a violation the moment it
// is proven; it then reads on to the end of the input (so that a producer
// on a pipe is not blocked or killed) unless told to exit at once.
func (c *checker) check(ctx context.Context, r io.Reader, name string) (engine.Result, error) {
	lo := c.lo
	lo.Name = name
	rd := logfmt.NewReader(r, lo)
	c.mu.Lock()
	c.name = name
	c.mu.Unlock()
	fail := func(err error) (engine.Result, error) {
		res := engine.Result{File: name, Algorithm: c.opt.Name(), Exact: c.opt.Exact()}
		if obj := rd.Object(); obj != history.NoObject {
			res.Object = obj.String() // the header was read
		}
		c.mu.Lock()
		if c.cur != nil {
			res = c.cur.Result()
			res.File = name
		}
		c.mu.Unlock()
		res.Verdict, res.Error = engine.Error, err.Error()
		return res, err
	}
	var m *engine.Monitor
	var a history.Action
	prog := c.liveProgress(name)
	defer prog.Done()
	for {
		crash, err := rd.NextIntoCrash(&a)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		c.mu.Lock()
		if crash {
			// The reader checked that the operation is open: the monitor
			// exists.
			err := m.Abandon(a.ID)
			c.mu.Unlock()
			if err != nil {
				return fail(fmt.Errorf("%s:%d: %w", name, a.Line, err))
			}
			continue
		}
		if m == nil {
			if m, err = engine.NewContext(ctx, rd.Object(), rd.Param(), c.opt); err != nil {
				c.mu.Unlock()
				return fail(err)
			}
			if c.finite {
				m.Finite()
			}
			c.cur = m
		}
		v, err := m.Step(a)
		if err != nil {
			c.mu.Unlock()
			return fail(fmt.Errorf("%s:%d: %w", name, a.Line, err))
		}
		prog.step(m)
		if v {
			prog.Done()
			// Print (and flush) the moment the violation is proven, so a
			// monitor on a pipe speaks while the program still runs.
			res := m.Result()
			res.File = name
			c.clear()
			c.p.print(res)
			c.said = true
		}
		done := m.Done()
		c.mu.Unlock()
		if done {
			if v && c.exitFirst {
				break
			}
			// The verdict is final; what follows is read, not parsed.
			if _, err := io.Copy(io.Discard, r); err != nil {
				return fail(fmt.Errorf("%s: %w", name, err))
			}
			break
		}
	}
	if m != nil {
		c.mu.Lock()
		v, err := m.End()
		if err != nil {
			c.mu.Unlock()
			return fail(fmt.Errorf("%s: %w", name, err))
		}
		if v {
			res := m.Result()
			res.File = name
			c.clear()
			c.p.print(res)
			c.said = true
		}
		c.mu.Unlock()
	}
	if m == nil {
		obj, param := rd.Object(), rd.Param()
		if obj == history.NoObject {
			obj, param = c.lo.Object, c.lo.Param
		}
		if obj == history.NoObject {
			return fail(fmt.Errorf("%s: empty log: no object and no actions", name))
		}
		var err error
		if m, err = engine.NewContext(ctx, obj, param, c.opt); err != nil {
			return fail(fmt.Errorf("%s: %w", name, err))
		}
	}
	res := m.Result()
	res.File = name
	return res, nil
}

// onInterrupt makes an interrupt (Ctrl-C) print the verdict so far of the
// history being read and a summary, then exit with the batch's code. It
// returns the function that stops listening.
func (c *checker) onInterrupt(cancel func()) func() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	quit := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-quit:
			return
		}
		os.Exit(c.interrupt(cancel))
	}()
	return func() {
		signal.Stop(sigs)
		close(quit)
	}
}

// interrupt stops the batch: it cancels the step under way, prints the
// verdict so far of the history being read and a summary, and returns the
// batch's exit code. It returns with mu held, so that nothing more is
// printed before the process exits.
func (c *checker) interrupt(cancel func()) int {
	c.stopping.Store(true)
	cancel()
	c.mu.Lock()
	if done := c.multiDone; done != nil {
		// The log may be one of many objects, whose check ends at the
		// cancel and prints its record, the verdicts so far.
		c.mu.Unlock()
		select {
		case <-done:
		case <-time.After(multiGrace):
			fmt.Fprintf(c.stderr, "satmon check: %s: interrupted; its check did not stop within %v, so its verdicts are not printed\n", c.name, multiGrace)
		}
		c.mu.Lock()
	}
	if c.cur != nil {
		res := c.cur.Result()
		res.File = c.name
		if res.Verdict != engine.Violation {
			res.Verdict = interrupted
		}
		if !c.said { // a violation is printed already
			c.clear()
			c.p.print(res)
		}
		c.sum.add(res.Verdict)
	}
	c.out.Flush()
	c.bar.Done()
	s := c.sum
	fmt.Fprintf(c.stderr, "satmon check: interrupted: %d violation(s), %d ok, %d input error(s), %d undecided\n",
		s.violations, s.ok, s.errors, s.undecided)
	return s.code()
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

type printer struct {
	w       *bufio.Writer
	json    bool
	verbose bool
}

// logRecord is the JSON record of a log of one object (docs/output.md).
type logRecord struct {
	Record string `json:"record"`
	engine.Result
	Skipped int `json:"skipped,omitempty"`
}

// exactVerdict is the "exact" of a record: whether its verdict is a
// decision of an exact variant. An undecided or failed check decides
// nothing, whatever the variant.
func exactVerdict(v engine.Verdict, exact bool) bool {
	return exact && (v == engine.OK || v == engine.Violation)
}

func (p printer) print(r engine.Result) { p.printSkipped(r, 0) }

// encode writes a JSON record on one line.
func (p printer) encode(rec any) {
	enc := json.NewEncoder(p.w)
	enc.SetEscapeHTML(false) // <stdin>, not \u003cstdin\u003e
	_ = enc.Encode(rec)
}

// printSkipped prints the record of a log of one object, of which
// skipped lines held no event. In text, an error is not printed: it is
// said on stderr, as for every format (docs/format.md, "Errors").
func (p printer) printSkipped(r engine.Result, skipped int) {
	defer p.w.Flush()
	if !p.verbose {
		r.Stats = nil
	}
	if p.json {
		r.Exact = exactVerdict(r.Verdict, r.Exact)
		p.encode(logRecord{"log", r, skipped})
		return
	}
	dur := time.Duration(r.Seconds * float64(time.Second)).Round(time.Microsecond)
	switch r.Verdict {
	case engine.Violation:
		fmt.Fprintf(p.w, "%s: violation of %s at step %d (line %d, return of [%s]); %s, %d operations, %v\n",
			r.File, r.Object, *r.ViolationStep, r.ViolationLine, r.ViolationOp, r.Algorithm, r.Operations, dur)
	case engine.Timeout:
		fmt.Fprintf(p.w, "%s: timeout, undecided after %d steps; %s, %d operations, %v\n", r.File, r.Steps, r.Algorithm, r.Operations, dur)
	case interrupted:
		fmt.Fprintf(p.w, "%s: interrupted, no violation in the first %d steps; %s, %d operations, %v\n", r.File, r.Steps, r.Algorithm, r.Operations, dur)
	case engine.Error:
		return
	default:
		if r.Exact {
			fmt.Fprintf(p.w, "%s: ok, linearizable (%s, proven in %d steps); %s, %d operations, %v\n",
				r.File, r.Object, r.Steps, r.Algorithm, r.Operations, dur)
		} else {
			fmt.Fprintf(p.w, "%s: ok, no violation found (%s, %d steps; %s can miss violations, %s); %d operations, %v\n",
				r.File, r.Object, r.Steps, r.Algorithm, decider(r.Algorithm), r.Operations, dur)
		}
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

// decider says what decides a history that the inexact algorithm alg
// called ok: SYMBOLIC, unless alg is SYMBOLIC or ENUMERATE already (a
// string register whose gets parse several ways, which the kernel does
// not decide), where the default check does.
func decider(alg string) string {
	if strings.HasPrefix(alg, "symbolic") || strings.HasPrefix(alg, "enumerate") {
		return "the default check (no -a) decides"
	}
	return "-a symbolic decides"
}
