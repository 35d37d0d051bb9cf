// Package ops holds operations on Arrays that follow residency: an op runs
// where its operands live (host kernels for host data, OpenCL kernels for
// data on an OpenCL device) and marks its destination dirty on that side.
// Operations take the destination first: ops.Add(dst, a, b).
package ops
