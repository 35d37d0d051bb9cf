package cl

import (
	"fmt"
	"strings"
)

// DeviceType is a cl_device_type bit set.
type DeviceType uint64

const (
	DeviceDefault     DeviceType = 1 << 0
	DeviceCPU         DeviceType = 1 << 1
	DeviceGPU         DeviceType = 1 << 2
	DeviceAccelerator DeviceType = 1 << 3
	DeviceCustom      DeviceType = 1 << 4
	DeviceAll         DeviceType = 0xFFFFFFFF
)

func (t DeviceType) String() string {
	if t == DeviceAll {
		return "all"
	}
	var parts []string
	for _, x := range []struct {
		t DeviceType
		n string
	}{{DeviceDefault, "default"}, {DeviceCPU, "cpu"}, {DeviceGPU, "gpu"}, {DeviceAccelerator, "acc"}, {DeviceCustom, "custom"}} {
		if t&x.t != 0 {
			parts = append(parts, x.n)
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("DeviceType(%#x)", uint64(t))
	}
	return strings.Join(parts, "|")
}

// ParseDeviceType reads a device type the way Halide reads
// HL_OCL_DEVICE_TYPE: any of "cpu", "gpu", "acc", "custom", "default",
// "all", combined ("cpu,gpu" or "gpu|acc"). Empty means 0 (no preference).
func ParseDeviceType(s string) (DeviceType, error) {
	var t DeviceType
	s = strings.ToLower(s)
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '|' || r == ' ' || r == '+' }) {
		switch f {
		case "cpu":
			t |= DeviceCPU
		case "gpu":
			t |= DeviceGPU
		case "acc", "accelerator":
			t |= DeviceAccelerator
		case "custom":
			t |= DeviceCustom
		case "default":
			t |= DeviceDefault
		case "all":
			t |= DeviceAll
		default:
			return 0, fmt.Errorf("opencl: unknown device type %q: want cpu, gpu, acc, custom, default or all", f)
		}
	}
	return t, nil
}

// DeviceID is a raw cl_device_id with its info queries.
type DeviceID struct{ id uintptr }

func (d DeviceID) str(param uint32) string {
	s, _ := infoString("clGetDeviceInfo", kindDevice, d.id, 0, param)
	return strings.TrimSpace(s)
}

func (d DeviceID) num(param uint32) uint64 {
	v, _ := infoUint("clGetDeviceInfo", kindDevice, d.id, 0, param)
	return v
}

func (d DeviceID) Name() string            { return d.str(deviceName) }
func (d DeviceID) Vendor() string          { return d.str(deviceVendor) }
func (d DeviceID) Version() string         { return d.str(deviceVersion) }
func (d DeviceID) DriverVersion() string   { return d.str(deviceDriverVersion) }
func (d DeviceID) OpenCLCVersion() string  { return d.str(deviceOpenCLCVersion) }
func (d DeviceID) Extensions() string      { return d.str(deviceExtensions) }
func (d DeviceID) Type() DeviceType        { return DeviceType(d.num(deviceType)) }
func (d DeviceID) MaxComputeUnits() int    { return int(d.num(deviceMaxComputeUnits)) }
func (d DeviceID) MaxWorkGroupSize() int   { return int(d.num(deviceMaxWorkGroupSize)) }
func (d DeviceID) MaxClockMHz() int        { return int(d.num(deviceMaxClock)) }
func (d DeviceID) MaxMemAllocSize() int64  { return int64(d.num(deviceMaxMemAllocSize)) }
func (d DeviceID) GlobalMemSize() int64    { return int64(d.num(deviceGlobalMemSize)) }
func (d DeviceID) LocalMemSize() int64     { return int64(d.num(deviceLocalMemSize)) }
func (d DeviceID) Available() bool         { return d.num(deviceAvailable) != 0 }
func (d DeviceID) HostUnifiedMemory() bool { return d.num(deviceHostUnifiedMem) != 0 }

// IsSubDevice reports whether d is a sub-device (CL_DEVICE_PARENT_DEVICE
// is set): one made by SubDevices, which clReleaseDevice frees.
func (d DeviceID) IsSubDevice() bool { return d.num(deviceParentDevice) != 0 }

// MemBaseAddrAlign is CL_DEVICE_MEM_BASE_ADDR_ALIGN in bits: a sub-buffer's
// origin must be a multiple of it (in bytes: bits/8).
func (d DeviceID) MemBaseAddrAlign() int { return int(d.num(deviceMemBaseAddrAlign)) }

// Platform returns the platform the device belongs to.
func (d DeviceID) Platform() Platform {
	return Platform{uintptr(d.num(devicePlatform))}
}

func (d DeviceID) String() string {
	return fmt.Sprintf("%s [%s, %s]", d.Name(), d.Type(), d.Version())
}

// SubDevices partitions the device into as many sub-devices of units
// compute units each as fit (clCreateSubDevices, partition equally).
// CPU devices such as PoCL's can; most GPUs cannot, and say so in the
// error. opencl.OpenGroup opens them and takes them over.
func (d DeviceID) SubDevices(units int) ([]DeviceID, error) {
	if units <= 0 {
		return nil, fmt.Errorf("opencl: SubDevices of %d compute units: want ≥ 1", units)
	}
	n, code := clCreateSubDevices(d.id, units, nil)
	if err := check("clCreateSubDevices", code); err != nil {
		return nil, fmt.Errorf("opencl: %s cannot be split into devices of %d compute units: %w", d.Name(), units, err)
	}
	raw := make([]uintptr, n)
	if _, code := clCreateSubDevices(d.id, units, raw); code != 0 {
		return nil, check("clCreateSubDevices", code)
	}
	ids := make([]DeviceID, n)
	for i, h := range raw {
		ids[i] = DeviceID{id: h}
	}
	return ids, nil
}
