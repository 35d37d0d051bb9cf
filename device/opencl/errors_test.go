package opencl

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/internal/cl"
	"strings"
	"testing"
)

func TestErrorName(t *testing.T) {
	for _, tc := range []struct {
		code int
		name string
	}{
		{0, "CL_SUCCESS"},
		{-1, "CL_DEVICE_NOT_FOUND"},
		{-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
		{-5, "CL_OUT_OF_RESOURCES"},
		{-6, "CL_OUT_OF_HOST_MEMORY"},
		{-11, "CL_BUILD_PROGRAM_FAILURE"},
		{-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
		{-30, "CL_INVALID_VALUE"},
		{-38, "CL_INVALID_MEM_OBJECT"},
		{-52, "CL_INVALID_KERNEL_ARGS"},
		{-61, "CL_INVALID_BUFFER_SIZE"},
		{-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
		{-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
		{-20, "CL_UNKNOWN_ERROR"},
		{7, "CL_UNKNOWN_ERROR"},
	} {
		if got := cl.ErrorName(tc.code); got != tc.name {
			t.Errorf("ErrorName(%d) = %s, want %s", tc.code, got, tc.name)
		}
	}
	// Every standard code from -1 to -19 and -30 to -72 has a name.
	for c := -72; c < 0; c++ {
		if (c >= -19 || c <= -30) && cl.ErrorName(c) == "CL_UNKNOWN_ERROR" {
			t.Errorf("code %d has no name", c)
		}
	}
}

func TestErrorMessageAndIs(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &cl.Error{Op: "clCreateBuffer", Code: cl.CodeInvalidBufferSize})
	if s := err.Error(); !strings.Contains(s, "CL_INVALID_BUFFER_SIZE") || !strings.Contains(s, "clCreateBuffer") {
		t.Errorf("message %q lacks the name or op", s)
	}
	if !errors.Is(err, &cl.Error{Code: cl.CodeInvalidBufferSize}) {
		t.Error("errors.Is by code failed")
	}
	if errors.Is(err, &cl.Error{Code: cl.CodeOutOfResources}) {
		t.Error("errors.Is matched another code")
	}
	var e *cl.Error
	if !errors.As(err, &e) || e.Code != -61 {
		t.Errorf("errors.As: %v", e)
	}
	be := &BuildError{Err: &cl.Error{Op: "clBuildProgram", Code: cl.CodeBuildProgramFailure}, Logs: []cl.BuildLog{{Name: "a", Log: "bad token"}, {Name: "b", Log: "also bad"}}}
	if s := be.Error(); !strings.Contains(s, "bad token") || !strings.Contains(s, "also bad") || !strings.Contains(s, "CL_BUILD_PROGRAM_FAILURE") {
		t.Errorf("BuildError message %q", s)
	}
	if !errors.Is(be, &cl.Error{Code: cl.CodeBuildProgramFailure}) {
		t.Error("BuildError does not unwrap to its *cl.Error")
	}
}

func TestParseDeviceType(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want DeviceType
		bad  bool
	}{
		{"", 0, false},
		{"cpu", DeviceCPU, false},
		{"GPU", DeviceGPU, false},
		{"acc", DeviceAccelerator, false},
		{"gpu,cpu", DeviceGPU | DeviceCPU, false},
		{"gpu|acc", DeviceGPU | DeviceAccelerator, false},
		{"all", DeviceAll, false},
		{"tpu", 0, true},
	} {
		got, err := ParseDeviceType(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseDeviceType(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
	if s := (DeviceGPU | DeviceCPU).String(); s != "cpu|gpu" {
		t.Errorf("String = %q", s)
	}
}
