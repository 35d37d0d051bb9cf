package target

import (
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// TestHostMatchesHalide compares with Halide's own get_host_target where
// Debian's libhalide14-0-dev is installed.
func TestHostMatchesHalide(t *testing.T) {
	out, err := exec.Command("/usr/lib/x86_64-linux-gnu/halide14/get_host_target").Output()
	if err != nil {
		t.Skip("get_host_target not installed:", err)
	}
	// get_host_target prints the target followed by its own feature list
	// without a separator; keep the x86 features only.
	want := map[string]bool{}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "-")[3:] {
		f = strings.TrimSuffix(f, "user_context")
		want[f] = true
	}
	got := Features(cpuid.CPU)
	sort.Strings(got)
	for _, f := range got {
		if !want[f] {
			t.Errorf("feature %s not reported by Halide (%s)", f, out)
		}
		delete(want, f)
	}
	for f := range want {
		t.Errorf("Halide reports %s, Host() lacks it (%s)", f, Host())
	}
}

// Features on synthetic CPUs: Portable is exactly what an AVX2 machine
// without AVX-512 reports, and the AVX-512 levels stack as in Halide.
func TestFeatures(t *testing.T) {
	avx2 := []cpuid.FeatureID{cpuid.SSE4, cpuid.AVX, cpuid.F16C, cpuid.FMA3, cpuid.AVX2}
	skylake := append(avx2[:len(avx2):len(avx2)], cpuid.AVX512F, cpuid.AVX512CD, cpuid.AVX512VL, cpuid.AVX512BW, cpuid.AVX512DQ)
	for _, tc := range []struct {
		name string
		ids  []cpuid.FeatureID
		want string
	}{
		{"none", nil, ""},
		{"avx without sse4.1", []cpuid.FeatureID{cpuid.AVX}, "avx"},
		{"avx2 needs avx", []cpuid.FeatureID{cpuid.SSE4, cpuid.AVX2}, "sse41"},
		{"portable", avx2, strings.Join(sorted(strings.Split(Portable, "-")[3:]), "-")},
		{"skylake", skylake, "avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"},
		{"cannonlake", append(skylake[:len(skylake):len(skylake)], cpuid.AVX512IFMA, cpuid.AVX512VBMI),
			"avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41"},
	} {
		var c cpuid.CPUInfo
		c.Enable(tc.ids...)
		if got := strings.Join(sorted(Features(c)), "-"); got != tc.want {
			t.Errorf("%s: Features = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}
