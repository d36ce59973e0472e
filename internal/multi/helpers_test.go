package multi

import (
	"github.com/satmon/satmon/internal/engine"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testhist"
	"github.com/satmon/satmon/internal/testutil"
)

// The engine's tests' shorthands, for the tests here.
var (
	enumC = engine.Options{Algorithm: engine.Enumerate, Completion: true}
	scale = testutil.Scale
	deref = testhist.Step
)

// check is engine.CheckHistory for histories the tests built; an error
// is verdict Error, which no test expects.
func check(hist *h.History, opt engine.Options) engine.Result {
	r, _ := engine.CheckHistory(hist, opt)
	return r
}
