package kafka

// Test knobs.

// WrongOffsets makes c commit the next offset to read, ignoring the
// objects under way: the unsound rule the fault test must catch.
func WrongOffsets(c *Config) { c.wrongOffsets = true }

// CrashOn makes the consumer stop as a crash would, without checkpoint
// or commit, once ch is closed.
func CrashOn(c *Config, ch <-chan struct{}) { c.crash = ch }

// OnCheckpoint calls f after each checkpoint of a partition, with the
// offset committed, the next offset read and the objects under way.
func OnCheckpoint(c *Config, f func(p int32, committed, read int64, windows int)) { c.onCheckpoint = f }

// OnAssigned calls f after each partition is assigned and restored, with
// the offset reading starts from and the next offset its checkpoint read.
func OnAssigned(c *Config, f func(p int32, from, read int64)) { c.onAssigned = f }
