// Package explain says why a verdict holds: the core of a violation
// (a 1-minimal set of operations that is already not linearizable), its
// derivation in the words of docs/explain.md, and the witness
// linearization of an exact ok.
package explain
