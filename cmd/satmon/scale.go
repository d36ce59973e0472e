package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/history"
)

func init() {
	register(&command{name: "scale", summary: "measure ns/step, window and memory of a checker on long generated logs", run: runScale})
}

func runScale(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("scale", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	objects := fs.String("objects", "queue,stack", "comma-separated objects to generate")
	steps := fs.String("steps", "10k,100k,1M", "comma-separated log lengths in steps (k and M suffixes)")
	conc := fs.Int("concurrency", 8, "most operations open at once")
	capacity := fs.Int("capacity", 16, "most elements a collection holds")
	alg := fs.StringP("algorithm", "a", "saturate", "checker algorithm")
	remove := fs.BoolP("remove-obsolete", "r", true, "forget obsolete operations (-r)")
	seed := fs.Int64("seed", 1, "generator seed")
	values := fs.Int("values", 4, "register and set: values drawn from a pool of this size, so they repeat")
	one := fs.String("one", "", "internal: run one measurement (object:steps) and print it")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: satmon scale [flags]

Streams generated linearizable logs straight from the generator into a
checker (nothing is held in memory but the checker's window) and prints,
for each object and length: total time, ns per step, steps per second,
CPU time per step (the process's own; on a shared machine wall time
mostly measures the neighbours), the largest window, and the process's
peak resident memory. Each measurement runs in its own process, so peak
memory is that run's own.

Examples:
  satmon scale
  satmon scale --steps 10k,100k,1M,10M --objects queue,stack
  satmon scale --steps 100k -r=false
  satmon scale --objects semaphore            (capacities 16 and 64)
  satmon scale --objects semaphore=8 --steps 10k
  satmon scale --objects register,set --values 4 --concurrency 4

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "satmon scale: %v\nRun 'satmon scale --help' for usage.\n", err)
		return exitUsage
	}
	a, err := engine.ParseAlgorithm(*alg)
	if err != nil {
		fmt.Fprintf(stderr, "satmon scale: %v\n", err)
		return exitUsage
	}
	opt := engine.Options{Algorithm: a, RemoveObsolete: *remove}
	if err := opt.Validate(); err != nil {
		fmt.Fprintf(stderr, "satmon scale: %v\n", err)
		return exitUsage
	}
	cfg := func(obj history.Object, n int) gen.Config {
		c := gen.Config{Object: obj, Ops: n / 2, Concurrency: *conc, Capacity: *capacity, Seed: *seed}
		if obj == history.Register || obj == history.Set {
			c.Values = *values
		}
		return c
	}
	if *one != "" {
		name, n, ok := strings.Cut(*one, ":")
		obj, okObj := parseScaleObject(name)
		steps, err := parseCount(n)
		if !ok || !okObj || err != nil {
			fmt.Fprintf(stderr, "satmon scale: bad --one %q\n", *one)
			return exitUsage
		}
		c := cfg(obj.obj, steps)
		if obj.capacity > 0 {
			c.Capacity = obj.capacity
		}
		return measure(c, opt, stdout, stderr)
	}
	var objs []scaleObject
	for _, name := range strings.Split(*objects, ",") {
		if o, ok := history.ParseObject(name); ok && o == history.Semaphore && !strings.Contains(name, "=") {
			// A semaphore's capacity is the size of its LIMIT counter:
			// measure a small and a large one.
			objs = append(objs, scaleObject{o, 16}, scaleObject{o, 64})
			continue
		}
		obj, ok := parseScaleObject(name)
		if !ok {
			fmt.Fprintf(stderr, "satmon scale: unknown object %q\n", name)
			return exitUsage
		}
		objs = append(objs, obj)
	}
	var counts []int
	for _, s := range strings.Split(*steps, ",") {
		n, err := parseCount(s)
		if err != nil {
			fmt.Fprintf(stderr, "satmon scale: %v\n", err)
			return exitUsage
		}
		counts = append(counts, n)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "satmon scale: %v\n", err)
		return exitUsage
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	fmt.Fprintf(w, "%s, concurrency %d, capacity %d, values %d (register, set), seed %d\n", opt.Name(), *conc, *capacity, *values, *seed)
	fmt.Fprintf(w, "%-22s %10s %10s %10s %12s %12s %10s %12s\n", "object", "steps", "seconds", "ns/step", "steps/s", "CPU ns/step", "window", "peak RSS MB")
	w.Flush()
	for _, obj := range objs {
		for _, n := range counts {
			var out bytes.Buffer
			cmd := exec.Command(self, "scale", "--one", fmt.Sprintf("%s:%d", obj.arg(), n),
				"--concurrency", strconv.Itoa(*conc), "--capacity", strconv.Itoa(*capacity),
				"--algorithm", *alg, "--remove-obsolete="+strconv.FormatBool(*remove), "--seed", strconv.FormatInt(*seed, 10),
				"--values", strconv.Itoa(*values))
			cmd.Stdout, cmd.Stderr = &out, stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(stderr, "satmon scale: %s, %d steps: %v\n", obj, n, err)
				return exitViolation
			}
			fmt.Fprintf(w, "%-22s %s", obj, out.String())
			w.Flush()
		}
	}
	return exitOK
}

// scaleObject is an object of --objects: NAME, or semaphore=CAPACITY.
// A bare "semaphore" stands for capacities 16 and 64; other objects take
// --capacity.
type scaleObject struct {
	obj      history.Object
	capacity int // 0: --capacity
}

func parseScaleObject(s string) (scaleObject, bool) {
	name, c, withCap := strings.Cut(s, "=")
	obj, ok := history.ParseObject(name)
	if !ok || !withCap {
		return scaleObject{obj: obj}, ok
	}
	n, err := strconv.Atoi(c)
	if err != nil || n <= 0 || obj != history.Semaphore {
		return scaleObject{}, false
	}
	return scaleObject{obj, n}, true
}

// arg is the object as --one takes it.
func (o scaleObject) arg() string {
	if o.capacity > 0 {
		return fmt.Sprintf("%s=%d", o.obj, o.capacity)
	}
	return o.obj.String()
}

func (o scaleObject) String() string {
	if o.capacity > 0 {
		return fmt.Sprintf("%s %d", o.obj, o.capacity)
	}
	return o.obj.String()
}

// measure runs one generated log through a checker and prints one row.
func measure(cfg gen.Config, opt engine.Options, stdout, stderr io.Writer) int {
	m, err := engine.New(cfg.Object, cfg.Param(), opt)
	if err != nil {
		fmt.Fprintf(stderr, "satmon scale: %v\n", err)
		return exitUsage
	}
	start, cpu := time.Now(), cpuTime()
	steps := 0
	err = gen.Generate(cfg, func(a history.Action) error {
		steps++
		v, err := m.Step(a)
		if v {
			return fmt.Errorf("violation reported at step %d on a linearizable generated log", steps)
		}
		return err
	})
	el := time.Since(start)
	cpuPerStep := -1.0
	if c := cpuTime(); cpu >= 0 && c >= 0 {
		cpuPerStep = float64((c - cpu).Nanoseconds()) / float64(steps)
	}
	if err != nil {
		fmt.Fprintf(stderr, "satmon scale: %v\n", err)
		return exitViolation
	}
	res := m.Result()
	fmt.Fprintf(stdout, "%10d %10.2f %10.0f %12.0f %12.0f %10d %12.1f\n", steps, el.Seconds(),
		float64(el.Nanoseconds())/float64(steps), float64(steps)/el.Seconds(), cpuPerStep, res.Stats.MaxWindow, peakRSSMB())
	return exitOK
}

// peakRSSMB reads the process's peak resident set size (VmHWM) on Linux;
// -1 where /proc is not available.
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if kb, err := strconv.ParseFloat(f[0], 64); err == nil {
				return kb / 1024
			}
		}
	}
	return -1
}

func parseCount(s string) (int, error) {
	s = strings.TrimSpace(s)
	mul := 1
	switch {
	case strings.HasSuffix(s, "k"):
		mul, s = 1000, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "M"):
		mul, s = 1000000, strings.TrimSuffix(s, "M")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad count %q", s)
	}
	return n * mul, nil
}
