package monitor

import (
	"context"
	"io"

	"github.com/satmon/satmon/monitor/logfmt"
)

// Knobs that only tests and benchmarks turn live here, out of the
// exported types: see tuning.

// tuned is a variant with test-only knobs.
type tuned struct {
	Options
	tuning
}

// check is CheckHistory for histories the tests built. An error is
// returned as verdict Error in the Result, which no test expects, so a
// test that meets one fails on the verdict.
func check(hist *History, opt Options) Result {
	r, _ := CheckHistory(hist, opt)
	return r
}

// checkTuned is check with test-only knobs.
func checkTuned(hist *History, opt tuned) Result {
	r, _ := checkHistory(context.Background(), hist, opt.Options, opt.tuning)
	return r
}

// checkLogTuned is CheckLog with test-only knobs.
func checkLogTuned(r io.Reader, name string, opt tuned) (Result, error) {
	hist, err := logfmt.ReadHistory(r, logfmt.Options{Name: name})
	if err != nil {
		return Result{}, err
	}
	return checkHistory(context.Background(), hist, opt.Options, opt.tuning)
}

// checkFrontLimits is check with the frontier's limits lowered: at most
// open operations followed open at once, at most budget configurations
// per return (0: the production limit).
func checkFrontLimits(hist *History, opt Options, open, budget int) Result {
	return checkTuned(hist, tuned{Options: opt, tuning: tuning{frontOpen: open, frontBudget: budget}})
}
