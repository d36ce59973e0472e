package kafka

import (
	"testing"

	"github.com/satmon/satmon/internal/apiconf"
	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/monitor"
)

// Config's options are monitor's, applied as monitor applies them; what
// Consume cannot honour is an error, not ignored.
func TestConfigOptions(t *testing.T) {
	t.Parallel()
	base := Config{Brokers: []string{"localhost:1"}, Topic: "actions", Group: "g"}
	for _, c := range []struct {
		opts []monitor.Option
		want engine.Options
	}{
		{nil, engine.Options{}},
		{[]monitor.Option{monitor.WithAlgorithm(monitor.Saturate)}, engine.Options{}},
		{[]monitor.Option{monitor.WithAlgorithm(monitor.Symbolic)}, engine.Options{Algorithm: engine.Symbolic}},
		{[]monitor.Option{monitor.WithAlgorithm(monitor.Enumerate)}, engine.Options{Algorithm: engine.Enumerate}},
		{[]monitor.Option{apiconf.Engine(engine.Options{Algorithm: engine.Saturate})}, engine.Options{Algorithm: engine.Saturate}},
	} {
		cfg := base
		cfg.Options = c.opts
		if err := cfg.defaults(); err != nil || cfg.opt.Name() != c.want.Name() || cfg.opt.Exact() != c.want.Exact() || cfg.opt != c.want {
			t.Errorf("options %d: %s (%v), want %s", len(c.opts), cfg.opt.Name(), err, c.want.Name())
		}
	}
	for name, cfg := range map[string]Config{
		"param":   {Options: []monitor.Option{monitor.WithParam("3")}},
		"explain": {Options: []monitor.Option{monitor.WithExplanation()}},
		"format":  {Format: JSON + 1},
		"variant": {Options: []monitor.Option{apiconf.Engine(engine.Options{Algorithm: engine.Saturate, Incremental: true})}},
	} {
		cfg.Brokers, cfg.Topic, cfg.Group = base.Brokers, base.Topic, base.Group
		if err := cfg.defaults(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
