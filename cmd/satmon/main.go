// Command satmon monitors call/return logs of concurrent objects and reports
// linearizability (observational-refinement) violations as soon as they are
// proven.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// Exit codes shared by every sub-command.
const (
	exitOK        = 0 // no violation
	exitViolation = 1 // a violation was found
	exitUsage     = 2 // bad usage or bad input
)

// command is one sub-command; each lives in its own file and registers
// itself from init, so sub-commands can be added without touching main.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run([]string{"--help"}, stdin, stdout, stderr)
			}
		}
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "satmon: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `satmon watches the call/return log of a concurrent object and reports,
as soon as it can be proven, that the log is impossible for the atomic
(linearizable) version of that object.

Usage:
  satmon <command> [flags] [arguments]

Commands:
`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
Run 'satmon <command> --help' for a command's flags and examples.
Exit codes: 0 no violation, 1 violation found, 2 usage or input error.
`)
}
