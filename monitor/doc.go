// Package monitor is satmon's streaming driver: it feeds a log's actions
// to one of the three algorithms (ENUMERATE, SYMBOLIC, SATURATE) and
// reports the first action at which a violation is proven.
package monitor
