package engine

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// idKey reads an id's bytes a few at once, in overlapping reads chosen
// by its length: it must give what the plain definition gives, its last
// keyedLen bytes one by one below its length, for ids of every length
// around the reads' sizes and of every byte.
func TestIDKeyReads(t *testing.T) {
	plain := func(id string) uint64 {
		var k uint64
		for i := max(len(id)-keyedLen, 0); i < len(id); i++ {
			k = k<<8 | uint64(id[i])
		}
		return k | uint64(min(len(id), 255))<<56
	}
	rng := rand.New(rand.NewPCG(1, 15))
	for n := 0; n <= 20; n++ {
		for range 200 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			if got, want := idKey(string(b)), plain(string(b)); got != want {
				t.Fatalf("idKey(%q) = %#x, want %#x", b, got, want)
			}
		}
	}
	for _, id := range []string{strings.Repeat("z", 255), strings.Repeat("z", 256), strings.Repeat("z", 300)} {
		if got, want := idKey(id), plain(id); got != want {
			t.Errorf("idKey of %d bytes = %#x, want %#x", len(id), got, want)
		}
	}
}
