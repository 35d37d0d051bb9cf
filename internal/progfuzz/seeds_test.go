package progfuzz

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// seedPrograms are the committed seed corpus: for every step kind, two
// programs that set up a few Arrays and then mostly take that step, and a
// few mixed programs. TestWriteSeeds writes them.
func seedPrograms() map[string][]byte {
	rng := rand.New(rand.NewSource(19))
	rec := func(k int) []byte {
		b := make([]byte, recLen)
		b[0] = byte(k)
		for i := 1; i < recLen; i++ {
			b[i] = byte(rng.Intn(256))
		}
		return b
	}
	seeds := map[string][]byte{}
	for k := 0; k < nSteps; k++ {
		for v := 0; v < 2; v++ {
			var p []byte
			for _, s := range []int{sNewRoot, sHostWrite, sView, sHostWrite, sNewRoot, sHostWrite} {
				p = append(p, rec(s)...)
			}
			for i := 0; i < 8; i++ {
				p = append(p, rec(k)...)
				if i%2 == 1 {
					p = append(p, rec([]int{sHostRead, sSync, sMoveTo, sOn, sBinary, sPipeline}[rng.Intn(6)])...)
				}
			}
			seeds[fmt.Sprintf("%s-%d", stepNames[k], v)] = p
		}
	}
	for v := 0; v < 6; v++ {
		var p []byte
		for i := 0; i < 24; i++ {
			p = append(p, rec(rng.Intn(nSteps))...)
		}
		seeds[fmt.Sprintf("mixed-%d", v)] = p
	}
	return seeds
}

// TestWriteSeeds writes the seed corpus under testdata/fuzz/FuzzProgram
// when PROGFUZZ_WRITE_SEEDS=1.
func TestWriteSeeds(t *testing.T) {
	if os.Getenv("PROGFUZZ_WRITE_SEEDS") != "1" {
		t.Skip("set PROGFUZZ_WRITE_SEEDS=1 to rewrite the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzProgram")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, p := range seedPrograms() {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", p)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
