package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/impls"
	"github.com/satmon/satmon/internal/logfmt"
)

func init() {
	register(&command{name: "gen", summary: "generate synthetic histories, linearizable or with injected faults", run: runGen})
}

// genFlags are gen's flags; source turns them into the stream of actions
// to write, so that other sources (real implementations) can be added as
// flags and branches there.
type genFlags struct {
	object      string
	ops         int
	concurrency int
	capacity    int
	pending     int
	seed        int64
	mutate      int
	values      int
	output      string
	impl        string
	threads     int
	yield       float64
	// --format jepsen: a register's history as Jepsen log lines
	format  string
	clients int
	reads   float64
	cas     float64
	info    float64
	stale   bool
}

func (f *genFlags) define(fs *pflag.FlagSet) {
	fs.StringVar(&f.object, "object", "", "object to generate (required): queue, stack, pqueue, set, register, lock, semaphore, exchanger")
	fs.IntVar(&f.ops, "ops", 100, "number of operations")
	fs.IntVar(&f.concurrency, "concurrency", 4, "most operations open (called, not yet returned) at once; 1 gives a sequential log")
	fs.IntVar(&f.capacity, "capacity", 0, "queue/stack/pqueue: most elements held (0: unbounded); semaphore: its capacity (0 means 1)")
	fs.IntVar(&f.pending, "pending", 0, "operations left without a return at the end (at most --concurrency)")
	fs.Int64Var(&f.seed, "seed", 1, "random seed: the same flags and seed give the same log")
	fs.IntVar(&f.mutate, "mutate", 0, "faults to inject (wrong or swapped return values, lost elements, ...); 0 keeps the log linearizable")
	fs.IntVar(&f.values, "values", 0, "register, set, queue, stack, pqueue: draw values from a pool of this size so they repeat (0: unique register and collection values, 4 set elements)")
	fs.StringVarP(&f.output, "output", "o", "", "write the log to this file instead of stdout")
	fs.StringVar(&f.impl, "impl", "", "record a real run of a concurrent implementation instead (see the list below)")
	fs.IntVar(&f.threads, "threads", 4, "with --impl: goroutines calling the implementation")
	fs.StringVar(&f.format, "format", "native", "native (satmon's log) or jepsen (Jepsen log lines of a register or cas-register, as Jepsen's etcd test writes; see below)")
	fs.IntVar(&f.clients, "clients", 5, "with --format jepsen: client processes, each with at most one operation open")
	fs.Float64Var(&f.reads, "reads", 0.5, "with --format jepsen: share of reads")
	fs.Float64Var(&f.cas, "cas", -1, "with --format jepsen: share of compare-and-sets (default 0.25 for cas-register, 0 for register); writes take the rest")
	fs.Float64Var(&f.info, "info", 0, "with --format jepsen: share of operations that crash (:info): they may or may not take effect and stay open for ever; the process returns under a new id")
	fs.BoolVar(&f.stale, "stale", false, "with --format jepsen: add one stale read (a value every write of which was overwritten before the read began), so the log is certainly not linearizable")
	fs.Float64Var(&f.yield, "yield", 0, "with --impl: probability of a yield or short spin at each interference point (0: barely concurrent, 1: very concurrent)")
}

// runImpl records a real run of implementation f.impl to out.
func (f *genFlags) runImpl(fs *pflag.FlagSet, out io.Writer) error {
	for _, synthetic := range []string{"object", "concurrency", "pending", "mutate", "values"} {
		if fs.Changed(synthetic) {
			return fmt.Errorf("--%s is for synthetic logs; it does not go with --impl", synthetic)
		}
	}
	if _, _, ok := impls.Info(f.impl); !ok {
		return fmt.Errorf("unknown implementation %q (want one of: %s)", f.impl, strings.Join(impls.Names(), ", "))
	}
	return impls.Run(f.impl, impls.Options{Threads: f.threads, Ops: f.ops, Seed: f.seed, Yield: f.yield, Capacity: f.capacity}, out)
}

// implList describes the implementations for --help.
func implList() string {
	var b strings.Builder
	for _, n := range impls.Names() {
		obj, faulty, _ := impls.Info(n)
		kind := "meant to be linearizable"
		if faulty {
			kind = "faulty or relaxed"
		}
		fmt.Fprintf(&b, "  %-16s %-22s %s\n", n, obj, kind)
	}
	return b.String()
}

// jepsen writes a register's history as Jepsen log lines.
func (f *genFlags) jepsen(fs *pflag.FlagSet, out io.Writer) error {
	for _, native := range []string{"concurrency", "capacity", "pending", "mutate", "impl", "threads", "yield"} {
		if fs.Changed(native) {
			return fmt.Errorf("--%s does not go with --format jepsen (see --help)", native)
		}
	}
	obj := history.CASRegister
	if f.object != "" {
		o, ok := history.ParseObject(f.object)
		if !ok || o != history.Register && o != history.CASRegister {
			return fmt.Errorf("--format jepsen writes a register or cas-register, not %q", f.object)
		}
		obj = o
	}
	cas := f.cas
	if cas < 0 {
		cas = 0.25
		if obj == history.Register {
			cas = 0
		}
	}
	if obj == history.Register && cas > 0 {
		return fmt.Errorf("--cas %g: a plain register has no compare-and-set (use --object cas-register)", cas)
	}
	values := f.values
	if !fs.Changed("values") {
		values = 5
	}
	cfg := gen.JepsenConfig{Ops: f.ops, Clients: f.clients, Values: values, Reads: f.reads, CAS: cas, Info: f.info, Stale: f.stale, Seed: f.seed}
	return gen.Jepsen(cfg, out)
}

// source returns the log's object, its parameter, and the function that
// streams its actions.
func (f *genFlags) source() (history.Object, string, func(func(history.Action) error) error, error) {
	if f.object == "" {
		return 0, "", nil, errors.New("--object is required")
	}
	obj, ok := history.ParseObject(f.object)
	if !ok {
		return 0, "", nil, fmt.Errorf("unknown object %q", f.object)
	}
	cfg := gen.Config{
		Object:      obj,
		Ops:         f.ops,
		Concurrency: f.concurrency,
		Capacity:    f.capacity,
		Pending:     f.pending,
		Seed:        f.seed,
		Mutate:      f.mutate,
		Values:      f.values,
	}
	if err := cfg.Validate(); err != nil {
		return 0, "", nil, err
	}
	return obj, cfg.Param(), func(emit func(history.Action) error) error { return gen.Generate(cfg, emit) }, nil
}

func runGen(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("gen", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var f genFlags
	f.define(fs)
	mg := defineGenMultiFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: satmon gen --object NAME [flags]
       satmon gen --impl NAME [--threads N] [--ops N] [--seed S] [--yield P]

Writes a synthetic call/return log. A legal sequential run of the atomic
object is drawn at random and each operation is stretched into an interval
[call, return] around its place in the run, with at most --concurrency
operations open at a time; the log is therefore linearizable. --mutate
injects faults, after which it usually is not. The log is streamed, so
memory depends on --concurrency and --capacity, not on --ops. Values are
the tags "1", "2", ...; operation ids count calls.

Examples:
  satmon gen --object queue --ops 20 --concurrency 3 --seed 7
  satmon gen --object stack --ops 100000 --capacity 16 --mutate 1 | satmon check -

With --impl, the log is recorded from a real run of a Go implementation
(internal/impls) by goroutines under monitor/record; the seed fixes the
operation mix, not the schedule, so real runs are not reproducible.
  satmon gen --impl treiber-aba --threads 3 --ops 48 --yield 1 | satmon check -

With --format jepsen, the log is a register's history as Jepsen log lines
(the format of Jepsen's etcd test, read by satmon check; docs/format.md
"Histories from other tools"): --clients processes read, write and
compare-and-set one register that starts absent (nil), values drawn from
0 … --values-1 (default 5) so that they repeat. Each operation takes effect
at one point between its :invoke and its :ok (a cas that finds another
value ends in :fail), so the log is linearizable, unless --stale adds one
read of a value overwritten before the read began (certainly not
linearizable). --info crashes a share of the operations: the process logs
:info, the operation may or may not have taken effect and stays open for
ever, and the process comes back under a new id, as Jepsen's do.
  satmon gen --format jepsen --object cas-register --ops 20000 --clients 8 --values 100 --info 0.01
  satmon gen --format jepsen --object register --ops 1000 --clients 16 --stale

Implementations:
`+implList()+`
Exit status: 0 log written, 2 usage or output error.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		// pflag's ContinueOnError returns the error without printing it.
		fmt.Fprintf(stderr, "satmon gen: %v\nRun 'satmon gen --help' for usage.\n", err)
		return exitUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "satmon gen: unexpected argument %q (gen reads no files; see --help)\n", fs.Arg(0))
		return exitUsage
	}
	if f.format != "native" && f.format != "jepsen" {
		fmt.Fprintf(stderr, "satmon gen: unknown --format %q (want native or jepsen)\n", f.format)
		return exitUsage
	}
	if f.format == "native" {
		for _, j := range []string{"clients", "reads", "cas", "info", "stale"} {
			if fs.Changed(j) {
				fmt.Fprintf(stderr, "satmon gen: --%s is for --format jepsen\n", j)
				return exitUsage
			}
		}
	}
	if mg.objects > 0 {
		if f.format == "jepsen" {
			fmt.Fprintln(stderr, "satmon gen: --format jepsen writes one register; it does not go with --objects")
			return exitUsage
		}
		return mg.write(&f, stdout, stderr)
	}
	if f.format == "jepsen" {
		out := stdout
		var fh *os.File
		if f.output != "" && f.output != "-" {
			var err error
			if fh, err = os.Create(f.output); err != nil {
				fmt.Fprintf(stderr, "satmon gen: %v\n", err)
				return exitUsage
			}
			out = fh
		}
		err := f.jepsen(fs, out)
		if fh != nil {
			if cerr := fh.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "satmon gen: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	var (
		obj    history.Object
		param  string
		stream func(func(history.Action) error) error
		err    error
	)
	if f.impl == "" {
		if obj, param, stream, err = f.source(); err != nil {
			fmt.Fprintf(stderr, "satmon gen: %v\n", err)
			return exitUsage
		}
	}
	out := stdout
	if f.output != "" && f.output != "-" {
		fh, err := os.Create(f.output)
		if err != nil {
			fmt.Fprintf(stderr, "satmon gen: %v\n", err)
			return exitUsage
		}
		defer fh.Close()
		out = fh
	}
	if f.impl != "" {
		if err := f.runImpl(fs, out); err != nil {
			fmt.Fprintf(stderr, "satmon gen: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	w, err := logfmt.NewWriter(out, obj, param)
	if err == nil {
		err = stream(w.Write)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if c, ok := out.(io.Closer); ok && out != stdout && err == nil {
		err = c.Close()
	}
	if err != nil {
		fmt.Fprintf(stderr, "satmon gen: %v\n", err)
		return exitUsage
	}
	return exitOK
}
