package logfmt

import (
	"reflect"
	"strings"
	"testing"

	"olympos.io/encoding/edn"
)

// fastEDN decodes what it accepts exactly as the EDN decoder does.
func TestFastEDN(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"5", "-3", "0", "-0", "[1 2]", "nil", "[nil 2]", "[0 99]", "123456789012345678",
		"1234567890123456789", "007", "+5", "[1  2]", "[]", "[1 x]", `"x 0 1 y"`, ":timed-out", "5N", "1.5", "[1 [2]]"} {
		fast, ok := fastEDN(s)
		d := edn.NewDecoder(strings.NewReader(s))
		var slow any
		err := d.Decode(&slow)
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("%q: fast %#v, decoder error %v", s, fast, err)
			continue
		}
		if !reflect.DeepEqual(fast, normalize(slow)) {
			t.Errorf("%q: fast %#v, decoder %#v", s, fast, slow)
		}
	}
}
