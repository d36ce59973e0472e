package main

import (
	"strings"
	"testing"
)

// consume rejects bad command lines before it connects to anything.
func TestConsumeBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"consume"},
		{"consume", "--topic", "a", "--group", "g"},
		{"consume", "--brokers", "localhost:1", "--topic", "a", "--group", "g", "x.log"},
		{"consume", "--brokers", "localhost:1", "--topic", "a", "--group", "g", "-a", "fast"},
		{"consume", "--brokers", "localhost:1", "--topic", "a", "--group", "g", "--input-format", "jepsen"},
		{"consume", "--brokers", "localhost:1", "--topic", "a", "--group", "g", "--object", "stak"},
		{"consume", "--brokers", "localhost:1", "--topic", "a", "--group", "g", "--workers", "-1"},
		{"consume", "--brokers", "localhost:1", "--topic", "a", "--group", "g", "--object", "queue"},
	} {
		code, out, errs := runCmd(args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, "satmon consume:") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and a message", args, code, out, errs)
		}
	}
}
