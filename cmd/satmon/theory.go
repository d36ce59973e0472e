package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/satmon/satmon/internal/engine"

	"github.com/spf13/pflag"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

func init() {
	register(&command{name: "theory", summary: "print an object's kernel theory (§3) in readable notation", run: runTheory})
}

func runTheory(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("theory", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	all := fs.Bool("all", false, "print every formula of the paper's Figures 3–7 instead of one kernel")
	notes := fs.Bool("notes", false, "also print where satmon departs from the paper's literal text, and why")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: satmon theory [flags] OBJECT [PARAM]

Prints the first-order kernel theory THEORY(H) of an atomic object and the
formulas that constrain its matching function, as satmon evaluates and
grounds them. OBJECT is one of: queue, stack, priority-queue, set,
register, lock, semaphore, exchanger, cas-register (a compare-and-set
register, as Jepsen's etcd tests use), string-register (put, append and
get on a string: a key of a key-value store) (the "atomic-" prefix is
optional). PARAM is the semaphore's capacity (a positive integer,
default 1) or the register's initial value; other objects take none.

Examples:
  satmon theory stack
  satmon theory semaphore 2 --notes
  satmon theory --all

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "satmon theory: %v\nRun 'satmon theory --help' for usage.\n", err)
		return exitUsage
	}
	if *all {
		for _, d := range theory.Catalogue() {
			printDef(stdout, d, *notes)
		}
		return exitOK
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return exitUsage
	}
	obj, ok := history.ParseObject(fs.Arg(0))
	if !ok {
		fmt.Fprintf(stderr, "satmon theory: unknown object %q\n", fs.Arg(0))
		return exitUsage
	}
	if err := engine.ValidateParam(obj, fs.Arg(1)); err != nil {
		fmt.Fprintf(stderr, "satmon theory: %v\n", err)
		return exitUsage
	}
	k, err := theory.KernelOf(obj, fs.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "satmon theory: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "# %s: THEORY\n", obj)
	for _, d := range k.Theory {
		printDef(stdout, d, *notes)
	}
	fmt.Fprintf(stdout, "\n# %s: matching sanity\n", obj)
	for _, d := range k.Sanity {
		printDef(stdout, d, *notes)
	}
	return exitOK
}

func printDef(w io.Writer, d *theory.Def, notes bool) {
	fmt.Fprintf(w, "%s\n", d.Name)
	for _, p := range d.Parts {
		fmt.Fprintf(w, "    %s\n", p)
	}
	if notes && d.Note != "" {
		fmt.Fprintf(w, "    -- note: %s\n", d.Note)
	}
}
