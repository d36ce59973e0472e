package engine

import (
	"testing"
)

// A compare-and-set known (by the look-ahead) to fail is taken as a
// success only towards a wanted state, but a chain of them, or one from a
// state an open or crashed write reaches, must still be followed: up to
// its return the history allows it to succeed, so the violation it makes
// comes at its return and not at the read before it. Each log is checked
// against ENUMERATE -c, verdict and step.
func TestFrontierKnownFailureChains(t *testing.T) {
	t.Parallel()
	logs := []string{
		// write(1), cas(1,2) as a success, read 2; then cas(1,2) fails.
		"# @object cas-register 0\n[1] call write(1)\n[2] call cas(1, 2)\n[3] call read\n[3] return 2\n[2] return fail\n[1] return\n",
		// A chain: write(1), cas(1,3), cas(3,2), read 2.
		"# @object cas-register 0\n[1] call write(1)\n[2] call cas(1, 3)\n[4] call cas(3, 2)\n[3] call read\n[3] return 2\n[2] return fail\n[4] return fail\n[1] return\n",
		"# @object cas-register 0\n[1] call write(1)\n[2] call cas(1, 3)\n[4] call cas(3, 2)\n[3] call read\n[3] return 2\n[4] return fail\n[2] return fail\n[1] return\n",
		// Through a crashed write (pending to the end): write(1), then
		// cas(1,2).
		"# @object cas-register 0\n[1] call write(1)\n[2] call cas(1, 2)\n[3] call read\n[3] return 2\n[2] return fail\n",
		// The crashed compare-and-set leads there: cas(1,3) known to
		// fail, a crashed cas(3,2).
		"# @object cas-register 0\n[5] call cas(3, 2)\n[1] call write(1)\n[2] call cas(1, 3)\n[3] call read\n[3] return 2\n[2] return fail\n[1] return\n",
	}
	for i, log := range logs {
		if want := enumerateCase(t, i, log); want.Verdict != Violation {
			t.Fatalf("case %d: enumerate -c says %v", i, want.Verdict)
		}
	}
}
