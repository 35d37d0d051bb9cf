// Package devkit is the device skeleton the backends (device/opencl,
// device/cuda) share, and parts of it device/sim: a Core each backend's
// state embeds (the gate every driver call passes, close hooks, the
// allocation pool and its cache, the Stats counters, per-device values,
// pinned host blocks, and the one shutdown path) over a small Driver
// (allocate, free, finish, drop, release), and the frames of the calls
// both make the same way (Malloc, FreeAlloc, CropAlloc, HostCopy,
// CopyFromPeer, AllocHost, capture recording). A backend supplies only
// its driver calls; subpackage streamkit does the same for streamed
// execution. It is plumbing, kept out of package device's public surface.
package devkit
