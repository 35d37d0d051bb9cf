package opencl

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/resident-go/resident/internal/cl"
)

// Environment variables read by Open when the Options leave a choice open:
// the ones Halide's OpenCL runtime reads.
const (
	EnvPlatformName = "HL_OCL_PLATFORM_NAME"
	EnvDeviceType   = "HL_OCL_DEVICE_TYPE"
)

// choose picks the device like Halide's runtime: platforms whose name
// contains the wanted name (case-insensitive), then the first device of the
// wanted type, or by default the first GPU, else the first CPU, across
// platforms.
func choose(o *Options) (cl.Platform, cl.DeviceID, error) {
	want := o.Platform
	if want == "" {
		want = os.Getenv(EnvPlatformName)
	}
	typ := o.Type
	if typ == 0 {
		t, err := ParseDeviceType(os.Getenv(EnvDeviceType))
		if err != nil {
			return cl.Platform{}, cl.DeviceID{}, fmt.Errorf("%s: %w", EnvDeviceType, err)
		}
		typ = t
	}
	ps, err := cl.Platforms()
	if err != nil {
		return cl.Platform{}, cl.DeviceID{}, err
	}
	var seen []string
	var cands []cl.Platform
	for _, p := range ps {
		name := p.Name()
		ds, _ := p.Devices(DeviceAll)
		for _, d := range ds {
			seen = append(seen, fmt.Sprintf("%q: %s", name, d))
		}
		if want == "" || strings.Contains(strings.ToLower(name), strings.ToLower(want)) {
			cands = append(cands, p)
		}
	}
	if o.Verbose {
		for _, s := range seen {
			log.Printf("opencl: found %s", s)
		}
	}
	order := []DeviceType{typ}
	if typ == 0 {
		order = []DeviceType{DeviceGPU, DeviceCPU, DeviceAll}
	}
	for _, t := range order {
		for _, p := range cands {
			ds, err := p.Devices(t)
			if err != nil {
				continue
			}
			for _, d := range ds {
				if d.Available() {
					return p, d, nil
				}
			}
		}
	}
	ts := "gpu, else cpu"
	if typ != 0 {
		ts = typ.String()
	}
	return cl.Platform{}, cl.DeviceID{}, fmt.Errorf("opencl: no device with platform name containing %q and type %s among [%s] (set %s, %s): %w",
		want, ts, strings.Join(seen, "; "), EnvPlatformName, EnvDeviceType, &cl.Error{Op: "select device", Code: cl.CodeDeviceNotFound})
}
