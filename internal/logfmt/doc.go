// Package logfmt reads and writes satmon's line-oriented call/return log
// format (see docs/format.md), streaming and with positioned errors.
package logfmt
