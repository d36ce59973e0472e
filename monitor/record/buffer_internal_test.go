package record

import (
	"testing"

	"github.com/satmon/satmon/internal/record"
)

// DefaultBuffer is written out so that go doc shows the number; it must
// be the recorder's.
func TestDefaultBuffer(t *testing.T) {
	t.Parallel()
	if DefaultBuffer != record.DefaultBuffer {
		t.Errorf("DefaultBuffer is %d, internal/record's %d", DefaultBuffer, record.DefaultBuffer)
	}
}
