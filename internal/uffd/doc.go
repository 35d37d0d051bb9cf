// Package uffd is the raw binding to Linux's userfaultfd: a Watch over
// whole pages reports whether anything wrote them since its last Protect
// (write-protect mode), and Drop lets pages go so that their next touch
// fills them from a Source, device memory read by a C function (missing
// mode). The engine (ops/engine) uses both on an engine Dense's host copy
// while the device holds the newest values: writes behind its back are
// seen, and reads see the newest values.
//
// The faults are resolved by C threads of this package, never by Go
// code: a goroutine that faults inside the runtime (copy, clear) cannot
// be preempted, and a Go handler could then wait for a processor the
// faulting thread holds. One thread serves every fault and calls no
// driver: it marks the Watch hit, lifts the protection from all of its
// pages and wakes the writer, so one write costs one round trip whatever
// its size. A second reads dropped ranges' sources (a driver call), so a
// driver thread faulting elsewhere meanwhile is still served; Settle
// fills dropped pages before a device's own transfer touches them, so no
// driver ever waits on a fill.
//
// Available is false where the kernel lacks write-protection of
// unpopulated anonymous memory (Linux 6.4) or refuses the process a
// userfaultfd that also serves the kernel's own faults (without
// CAP_SYS_PTRACE where vm.unprivileged_userfaultfd is 0, unless it may
// open /dev/userfaultfd; seccomp): nothing is watched there.
package uffd
