// Package monitor checks histories of concurrent objects for
// linearizability violations, reporting each as soon as it is proven.
//
// Check takes timestamped operations, as a test harness records them;
// CheckKeyed takes those of many objects, one per key, such as a
// key-value store's (KVPut, KVGet, KVAppend on StringRegister). A
// Monitor takes calls and returns one by one, as they happen. NewRecorder
// records a running program's operations and checks them while it runs.
// CheckLog reads satmon's log format. Each runs one of the paper's three
// algorithms (Options): SATURATE with forgetting, the default, is fast and
// never reports a false violation, but can miss one, so its OK is not a
// proof (Result.Exact); SYMBOLIC and ENUMERATE decide exactly.
package monitor
