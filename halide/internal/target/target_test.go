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

func TestPortableIsSubsetOfHost(t *testing.T) {
	host := Host()
	for _, f := range strings.Split(Portable, "-")[3:] {
		if !strings.Contains(host, f) {
			t.Skipf("this CPU lacks %s; portable objects won't run here", f)
		}
	}
}
