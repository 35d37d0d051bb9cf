package main

import (
	"fmt"
	"strings"

	"github.com/resident-go/resident/halide/internal/target"
)

type targetOptions struct {
	runtime     bool // the runtime: no forced features
	userContext bool // add user_context
	cplusplus   bool // C++ namespaced names: add c_plus_plus_name_mangling
}

// resolveTargets expands a target list (comma-separated, for Halide's
// multi-target objects) and adds the forced features to every element:
// Halide refuses a list whose elements differ in them. Pipelines get
// user_context (so errors reach the right call) unless asked not to,
// no_runtime (package halide links the one runtime), and
// c_plus_plus_name_mangling for namespaced names.
func resolveTargets(list string, o targetOptions) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		list = "host"
		if o.runtime {
			list = "opencl-cuda"
		}
	}
	var out []string
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		switch t {
		case "":
			return nil, fmt.Errorf("%w: empty element in target list %q", errUsage, list)
		case "host":
			t = target.Portable
		case "opencl":
			t = target.Portable + "-opencl"
		case "native":
			t = target.Host()
		case "native-opencl":
			t = target.Host() + "-opencl"
		case "cuda":
			t = target.Portable + "-" + target.CUDA
		case "native-cuda":
			t = target.Host() + "-" + target.CUDA
		case "opencl-cuda":
			// The runtime's: both GPU modules in one object.
			t = target.Portable + "-opencl-cuda"
		}
		if o.runtime {
			out = append(out, t)
			continue
		}
		if !o.userContext && hasFeature(t, "user_context") {
			return nil, fmt.Errorf("%w: target %q has user_context but -user_context=false", errUsage, t)
		}
		var force []string
		if o.userContext {
			force = append(force, "user_context")
		}
		force = append(force, "no_runtime")
		if o.cplusplus {
			force = append(force, "c_plus_plus_name_mangling")
		}
		for _, f := range force {
			if !hasFeature(t, f) {
				t += "-" + f
			}
		}
		out = append(out, t)
	}
	if o.runtime && len(out) > 1 {
		return nil, fmt.Errorf("%w: the runtime takes one target, got %q", errUsage, list)
	}
	return out, nil
}

func hasFeature(t, f string) bool {
	for _, p := range strings.Split(t, "-") {
		if p == f {
			return true
		}
	}
	return false
}
