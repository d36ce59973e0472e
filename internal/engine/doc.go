// Package engine decides one object's log: each call and return goes
// into a bounded window, is ground into clauses by the object's kernel,
// and is decided by one of the paper's algorithms (SATURATE, SYMBOLIC,
// ENUMERATE, or a register's frontier), while the window forgets what can
// no longer matter.
package engine
