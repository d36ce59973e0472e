package monitor

// MonitorSymbolic is the engine's variant that WithAlgorithm(Symbolic)
// selects, for tests that compare with the engine's own checks.
var MonitorSymbolic = configure([]Option{WithAlgorithm(Symbolic)}).Opt
