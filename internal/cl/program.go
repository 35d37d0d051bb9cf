package cl

// Program is a cl_program built from OpenCL C source.
type Program struct{ h uintptr }

// Handle returns the raw cl_program.
func (p *Program) Handle() uintptr { return p.h }

// Release drops the program. Releasing twice is a no-op (not concurrently).
func (p *Program) Release() error { return releaseHandle(kindProgram, &p.h) }

// Devices returns the devices the program is associated with.
func (p *Program) Devices() ([]DeviceID, error) {
	hs, err := infoHandles("clGetProgramInfo", kindProgram, p.h, 0, programDevices)
	if err != nil {
		return nil, err
	}
	ds := make([]DeviceID, len(hs))
	for i, h := range hs {
		ds[i] = DeviceID{h}
	}
	return ds, nil
}

// Build compiles the program for devs (nil: all of the program's devices)
// with the given compiler options. On failure the error is a *BuildError
// carrying the build log of every one of those devices.
func (p *Program) Build(devs []DeviceID, options string) error {
	ids := make([]uintptr, len(devs))
	for i, d := range devs {
		ids[i] = d.id
	}
	code := clBuildProgram(p.h, ids, options)
	if code == 0 {
		return nil
	}
	e := &BuildError{Err: &Error{Op: "clBuildProgram", Code: int(code)}}
	if len(devs) == 0 {
		devs, _ = p.Devices()
	}
	for _, d := range devs {
		log, _ := p.BuildLog(d)
		e.Logs = append(e.Logs, BuildLog{Device: d, Name: d.Name(), Log: log})
	}
	return e
}

// BuildLog returns the compiler output of the last build for d.
func (p *Program) BuildLog(d DeviceID) (string, error) {
	return infoString("clGetProgramBuildInfo", kindProgramBuild, p.h, d.id, programBuildLog)
}

// CreateKernel returns the kernel function called name.
func (p *Program) CreateKernel(name string) (*Kernel, error) {
	h, code := clCreateKernel(p.h, name)
	if err := check("clCreateKernel("+name+")", code); err != nil {
		return nil, err
	}
	return &Kernel{h: h, name: name}, nil
}
