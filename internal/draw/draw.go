package draw

import (
	"flag"
	"hash/fnv"
	"math/rand/v2"
	"testing"
	"time"
)

var (
	seedFlag = flag.Uint64("draw.seed", 0, "seed of the drawn test cases (0: the UTC day number)")
	allFlag  = flag.Bool("draw.all", false, "run every case a sampled test knows, not the run's draw")
)

// Seed is the run's seed (the UTC day number, or -draw.seed), logged on t
// with the command line that replays it.
func Seed(t testing.TB) uint64 {
	t.Helper()
	s := *seedFlag
	if s == 0 {
		s = uint64(time.Now().UTC().Unix() / 86400)
	}
	t.Logf("cases drawn with -draw.seed %d", s)
	return s
}

// All reports whether -draw.all asks for every case.
func All() bool { return *allFlag }

// Rand is a generator of the run's seed for t: tests drawing from it get
// different streams (the test's name is mixed in) that replay together.
func Rand(t testing.TB) *rand.Rand {
	t.Helper()
	return rand.New(rand.NewPCG(Seed(t), nameHash(t.Name())))
}

// Pick is k of the n cases 0 … n−1, in order, drawn from the run's seed
// for t: every case when k ≥ n or under -draw.all. Over successive seeds
// every case comes up.
func Pick(t testing.TB, n, k int) []int {
	t.Helper()
	if k >= n || All() {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	r := Rand(t)
	chosen := make([]bool, n)
	for _, i := range r.Perm(n)[:k] {
		chosen[i] = true
	}
	out := make([]int, 0, k)
	for i, c := range chosen {
		if c {
			out = append(out, i)
		}
	}
	return out
}

func nameHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// Extents draws a shape of 1 … maxRank dimensions, each of extent
// 1 … maxExtent, and returns it with its element count.
func Extents(r *rand.Rand, maxRank, maxExtent int) (ext []int, n int) {
	ext = make([]int, 1+r.IntN(maxRank))
	n = 1
	for i := range ext {
		ext[i] = 1 + r.IntN(maxExtent)
		n *= ext[i]
	}
	return ext, n
}
