package cl

// Raw gives this module's packages the OpenCL objects of a device/opencl
// Device (set by that package; ok false for other devices): the public
// packages hand out no binding types. The Device owns them.
var Raw = func(d any) (p Platform, id DeviceID, ctx *Context, q *CommandQueue, ok bool) { return }
