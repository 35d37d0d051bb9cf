package cu

import "unsafe"

// HostCopy is a copy between two host buffers that a stream runs in
// order (LaunchHostCopy): how a graph moves Go memory, which only the
// host can read at the time the graph runs. It is C memory, held as an
// integer.
type HostCopy uintptr

// NewHostCopy makes the job that copies rows of src to dst: pairs of a
// byte offset (the same in both) and a length. The job keeps both
// addresses, so Go memory among them must stay pinned (runtime.Pinner)
// until FreeHostCopy.
func NewHostCopy(dst, src unsafe.Pointer, rows []int) (HostCopy, error) {
	h := cuHostCopyNew(dst, src, rows)
	if h == 0 {
		return 0, check("malloc", ErrorOutOfMemory)
	}
	return h, nil
}

// FreeHostCopy frees h (0: nothing); no stream or graph may run it after.
func FreeHostCopy(h HostCopy) { cuHostCopyFree(h) }

// LaunchHostCopy queues h on s (cuLaunchHostFunc): a capture records it
// as a host node that copies again at each launch of the graph. A driver
// without the entry point answers an error with code ErrorNotSupported.
func LaunchHostCopy(ctx Context, s Stream, h HostCopy) error {
	return check("cuLaunchHostFunc", cuLaunchHostCopy(ctx, s, h))
}
