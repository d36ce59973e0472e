// Package monitor checks histories of concurrent objects for
// linearizability violations, reporting each as soon as it is proven.
//
// Check takes timestamped operations, as a test harness records them;
// operations with a Key are grouped by key, each key its own object, such
// as a key-value store's (KVPut, KVGet, KVAppend on StringRegister).
// WithExplanation adds a violation's core or an exact ok's witness, and
// Visualize draws the result. A Monitor takes calls and returns as they
// happen; NewRecorder records a running program's operations and checks
// them while it runs; ReadLog reads a log (docs/format.md). By default
// registers (plain, compare-and-set, string) are decided exactly by their
// frontier, and the other objects by Saturate, which never reports a false
// violation but can miss one, so its OK is not a proof (Result.Exact);
// Symbolic and Enumerate decide every object.
package monitor
