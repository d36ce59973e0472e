package engine

import "math/bits"

// cindex is cover's index of a return's configurations (frontier.allG)
// by their bitsets (ckey): a hash table whose buckets' lists run through
// kgent.next, the latest first. A bucket's list may hold other keys,
// which the walk skips (coveredAmong compares keys). It stands in for a
// map from key to latest entry: hashing a ckey (36 bytes) by the map's
// general hash, and clearing the map at every return, cost a sixth of a
// 20-client log's time; here the hash is a few multiplications and a
// reset clears a slice sized by the configurations recorded.
type cindex struct {
	heads []int32 // by bucket: 1 + the latest entry, 0 none
	shift uint    // 64 - log2(len(heads))
}

// bucket is k's bucket.
func (x *cindex) bucket(k *ckey) int {
	const m = 0x9E3779B97F4A7C15
	h := uint64(k.st) * m
	h = bits.RotateLeft64(h^k.taken, 31) * m
	h = bits.RotateLeft64(h^k.other, 31) * m
	h = bits.RotateLeft64(h^k.hide, 31) * m
	h = bits.RotateLeft64(h^k.seenK, 31) * m
	return int(h >> x.shift)
}

// first is the latest entry of allG in k's bucket, -1 none.
func (x *cindex) first(k *ckey) int32 {
	if len(x.heads) == 0 {
		return -1
	}
	return x.heads[x.bucket(k)] - 1
}

// build indexes all of allG, in order, with room for twice as many.
func (x *cindex) build(allG []kgent) {
	n := 64
	for n < 2*len(allG) {
		n *= 2
	}
	if cap(x.heads) >= n {
		x.heads = x.heads[:n]
		clear(x.heads)
	} else {
		x.heads = make([]int32, n)
	}
	x.shift = uint(64 - bits.TrailingZeros(uint(n)))
	for i := range allG {
		x.link(allG, i)
	}
}

// add indexes allG's last entry, and the whole anew (in a table twice
// as large) when the table is half full.
func (x *cindex) add(allG []kgent) {
	if 2*len(allG) > len(x.heads) {
		x.build(allG)
		return
	}
	x.link(allG, len(allG)-1)
}

// link puts entry i of allG first in its bucket.
func (x *cindex) link(allG []kgent, i int) {
	b := x.bucket(&allG[i].k)
	allG[i].next = x.heads[b] - 1
	x.heads[b] = int32(i + 1)
}
