// Package uffd is the raw binding to Linux's userfaultfd write-protect
// mode: a Watch over whole pages reports whether anything wrote them
// since its last Protect. The engine (ops/engine) uses it to see writes
// made to an engine Dense's host copy behind its back while the device
// holds the newest values.
//
// The faults are resolved by a C thread of this package, never by Go
// code: a goroutine that faults inside the runtime (copy, clear) cannot
// be preempted, and a Go handler could then wait for a processor the
// faulting thread holds. The thread takes no Go lock and calls no driver;
// it marks the Watch hit, lifts the protection from all of its pages and
// wakes the writer, so one write costs one round trip whatever its size.
//
// Available is false where the kernel lacks write-protection of
// unpopulated anonymous memory (Linux 6.4) or refuses the process a
// userfaultfd that also serves the kernel's own faults (without
// CAP_SYS_PTRACE where vm.unprivileged_userfaultfd is 0; seccomp):
// nothing is watched there.
package uffd
