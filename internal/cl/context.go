package cl

import "fmt"

// Context is a cl_context over one or more devices of one platform.
type Context struct {
	h       uintptr
	devices []DeviceID
}

// CreateContext creates a context for devs, which must share a platform.
func CreateContext(devs ...DeviceID) (*Context, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("opencl: CreateContext: no devices: %w", &Error{Op: "clCreateContext", Code: CodeInvalidValue})
	}
	ids := make([]uintptr, len(devs))
	for i, d := range devs {
		ids[i] = d.id
	}
	h, code := clCreateContext(devs[0].Platform().id, ids)
	if err := check("clCreateContext", code); err != nil {
		return nil, err
	}
	return &Context{h: h, devices: append([]DeviceID(nil), devs...)}, nil
}

// Handle returns the raw cl_context.
func (c *Context) Handle() uintptr { return c.h }

// Devices returns the devices the context was created for.
func (c *Context) Devices() []DeviceID { return append([]DeviceID(nil), c.devices...) }

// Release drops the context; objects created from it keep it alive until
// they are released too. Releasing twice is a no-op (not concurrently).
func (c *Context) Release() error { return releaseHandle(kindContext, &c.h) }

// QueueProperties is a cl_command_queue_properties bit set.
type QueueProperties uint64

const (
	QueueOutOfOrder QueueProperties = 1 << 0
	QueueProfiling  QueueProperties = 1 << 1
)

// CreateQueue creates a command queue on d; props 0 gives an in-order queue.
func (c *Context) CreateQueue(d DeviceID, props QueueProperties) (*CommandQueue, error) {
	h, code := clCreateQueue(c.h, d.id, uint64(props))
	if err := check("clCreateCommandQueue", code); err != nil {
		return nil, err
	}
	return &CommandQueue{h: h, dev: d}, nil
}

// MemFlags is a cl_mem_flags bit set. Flags that hand OpenCL a host pointer
// (USE_HOST_PTR, COPY_HOST_PTR) are not offered: Go memory must not be
// kept by C.
type MemFlags uint64

const (
	MemReadWrite     MemFlags = 1 << 0
	MemWriteOnly     MemFlags = 1 << 1
	MemReadOnly      MemFlags = 1 << 2
	MemAllocHostPtr  MemFlags = 1 << 4
	MemHostWriteOnly MemFlags = 1 << 7
	MemHostReadOnly  MemFlags = 1 << 8
	MemHostNoAccess  MemFlags = 1 << 9

	memHostPtrFlags = 1<<3 | 1<<5
)

// CreateBuffer creates a buffer of size bytes (> 0).
func (c *Context) CreateBuffer(flags MemFlags, size int) (*Buffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("opencl: CreateBuffer of %d bytes: %w", size, &Error{Op: "clCreateBuffer", Code: CodeInvalidBufferSize})
	}
	if flags&memHostPtrFlags != 0 {
		return nil, fmt.Errorf("opencl: CreateBuffer: host-pointer flags are not supported: %w", &Error{Op: "clCreateBuffer", Code: CodeInvalidValue})
	}
	h, code := clCreateBuffer(c.h, uint64(flags), size)
	if err := check("clCreateBuffer", code); err != nil {
		return nil, err
	}
	return &Buffer{h: h, size: size}, nil
}

// BuildProgram creates a program from src and builds it for dev; a failed
// build returns a *BuildError with the log.
func (c *Context) BuildProgram(dev DeviceID, options string, src ...string) (*Program, error) {
	p, err := c.CreateProgram(src...)
	if err != nil {
		return nil, err
	}
	if err := p.Build([]DeviceID{dev}, options); err != nil {
		p.Release()
		return nil, err
	}
	return p, nil
}

// CreateProgram creates a program from OpenCL C source; several sources are
// concatenated with newlines.
func (c *Context) CreateProgram(src ...string) (*Program, error) {
	s := ""
	for i, x := range src {
		if i > 0 {
			s += "\n"
		}
		s += x
	}
	if s == "" {
		return nil, fmt.Errorf("opencl: CreateProgram: empty source: %w", &Error{Op: "clCreateProgramWithSource", Code: CodeInvalidValue})
	}
	h, code := clCreateProgram(c.h, s)
	if err := check("clCreateProgramWithSource", code); err != nil {
		return nil, err
	}
	return &Program{h: h}, nil
}
