package cl

import "fmt"

// Platform is an OpenCL platform (one installed driver: PoCL, NVIDIA CUDA, …).
type Platform struct{ id uintptr }

// Platforms lists the installed platforms. With no ICD loader the error
// wraps ErrNoOpenCL; with a loader but no platform it is an *Error with
// code CL_PLATFORM_NOT_FOUND_KHR that also wraps ErrNoOpenCL.
func Platforms() ([]Platform, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	n, code := clPlatformIDs(nil)
	if code == codePlatformNotFound || (code == 0 && n == 0) {
		return nil, fmt.Errorf("%w: %w", ErrNoOpenCL, &Error{Op: "clGetPlatformIDs", Code: CodePlatformNotFound})
	}
	if err := check("clGetPlatformIDs", code); err != nil {
		return nil, err
	}
	ids := make([]uintptr, n)
	if _, code := clPlatformIDs(ids); code != 0 {
		return nil, check("clGetPlatformIDs", code)
	}
	ps := make([]Platform, n)
	for i, id := range ids {
		ps[i] = Platform{id}
	}
	return ps, nil
}

// ID returns the raw cl_platform_id.
func (p Platform) ID() uintptr { return p.id }

func (p Platform) str(param uint32) string {
	s, _ := infoString("clGetPlatformInfo", kindPlatform, p.id, 0, param)
	return s
}

// Name is CL_PLATFORM_NAME, e.g. "NVIDIA CUDA" or "Portable Computing Language".
func (p Platform) Name() string       { return p.str(platformName) }
func (p Platform) Vendor() string     { return p.str(platformVendor) }
func (p Platform) Version() string    { return p.str(platformVersion) }
func (p Platform) Profile() string    { return p.str(platformProfile) }
func (p Platform) Extensions() string { return p.str(platformExtensions) }
func (p Platform) String() string     { return p.Name() + " (" + p.Version() + ")" }

// Devices lists the platform's devices of type t (DeviceAll for every one).
// A platform without such devices returns an empty list and no error.
func (p Platform) Devices(t DeviceType) ([]DeviceID, error) {
	n, code := clDeviceIDs(p.id, uint64(t), nil)
	if code == codeDeviceNotFound || (code == 0 && n == 0) {
		return nil, nil
	}
	if err := check("clGetDeviceIDs", code); err != nil {
		return nil, err
	}
	ids := make([]uintptr, n)
	if n, code = clDeviceIDs(p.id, uint64(t), ids); code != 0 {
		return nil, check("clGetDeviceIDs", code)
	}
	ds := make([]DeviceID, n)
	for i := range ds {
		ds[i] = DeviceID{ids[i]}
	}
	return ds, nil
}
