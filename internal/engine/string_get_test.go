package engine

import (
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/testhist"
)

// TestStringGetKeepsViolation: -r forgets a string register's get only
// where real time implies what it saw (remover.implied). Here get [5]
// saw "2", so put(2) [3] took effect before get [2] was called, and [2]'s
// empty string is a violation at its return (step 8). Forgetting [5] once
// it was quiet, as -r once did for every get, let [2] go before [3] and
// lost the violation. History 73 of TestStringRegisterRemovalSound, which
// the fast tier (a tenth of its histories) does not reach.
func TestStringGetKeepsViolation(t *testing.T) {
	t.Parallel()
	const log = `# @object atomic-string-register
[3] call put(2)
[5] call get
[5] return 2
[2] call get
[6] call put(0)
[3] return
[7] call put(1)
[2] return
[4] call append(0)
[8] call append(0)
[1] call append(2)
[7] return
[4] return
[1] return
[8] return
`
	for _, opt := range []Options{
		{Algorithm: Saturate}, {Algorithm: Saturate, RemoveObsolete: true},
		{Algorithm: Symbolic, RemoveObsolete: true}, {Algorithm: Symbolic, Incremental: true, RemoveObsolete: true},
	} {
		r, err := CheckLog(strings.NewReader(log), "get.log", 0, "", opt)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != Violation || *r.ViolationStep != 8 {
			t.Errorf("%s: %s at %v, want a violation at step 8", opt.Name(), r.Verdict, testhist.Step(r.ViolationStep))
		}
	}
}
