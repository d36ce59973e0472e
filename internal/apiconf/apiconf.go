// Package apiconf is what the library's options (monitor.Option) set, so
// that monitor's subpackages read them as monitor does: monitor.Option is
// a func(*Config), which none of them can build but each can apply.
package apiconf

import "github.com/satmon/satmon/internal/engine"

// Config is what a check is run with.
type Config struct {
	Opt     engine.Options // the engine's variant; the zero Options is the default
	Param   string         // the object's initial state
	Explain bool           // keep cores, witnesses and drawings
}

// Configure applies opts, in order, to a zero Config.
func Configure[O ~func(*Config)](opts []O) Config {
	var c Config
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Engine is an option that runs the engine's variant opt: the CLI's way
// to every variant, which the library's options name only in part.
func Engine(opt engine.Options) func(*Config) {
	return func(c *Config) { c.Opt = opt }
}
