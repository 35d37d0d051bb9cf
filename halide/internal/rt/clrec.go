package rt

// #include "clrec.h"
import "C"

import "unsafe"

// CLRec is gohl_clrec: the OpenCL launches one call recorded while its
// device captured (clrec.c). Set it as the call's Ctx.CLRec.
type CLRec C.gohl_clrec

// CLLaunch is one recorded launch. Kernel is a reference its taker owns
// (ReleaseCL).
type CLLaunch struct {
	Kernel        uintptr
	Dims          int
	Global, Local [3]uint64
	HasLocal      bool
	Args          []CLArg
}

// CLArg is one kernel argument: its size, and its value where Has (at
// most 8 bytes, little-endian; local memory has none).
type CLArg struct {
	Size int
	Has  bool
	Val  uint64
}

// NewCLRec is an empty record in C memory; nil when out of memory.
func NewCLRec() *CLRec { return (*CLRec)(unsafe.Pointer(C.gohl_clrec_new())) }

// Free releases what r still owns, then r.
func (r *CLRec) Free() { C.gohl_clrec_free((*C.gohl_clrec)(unsafe.Pointer(r))) }

// Take hands over r's launches and the references to the runtime's
// cl_mems they use (the caller releases both with ReleaseCL), and why a
// replay could not redo the call ("" when it can); r is empty after.
func (r *CLRec) Take() (ls []CLLaunch, mems []uintptr, why string) {
	c := (*C.gohl_clrec)(unsafe.Pointer(r))
	if c.n > 0 {
		for _, l := range unsafe.Slice(c.l, int(c.n)) {
			x := CLLaunch{Kernel: uintptr(l.kernel), Dims: int(l.dims), HasLocal: l.has_local != 0}
			for d := range 3 {
				x.Global[d], x.Local[d] = uint64(l.global[d]), uint64(l.local[d])
			}
			for i := range int(l.nargs) {
				x.Args = append(x.Args, CLArg{Size: int(l.size[i]), Has: l.has[i] != 0, Val: uint64(l.val[i])})
			}
			ls = append(ls, x)
		}
	}
	if c.nmems > 0 {
		for _, m := range unsafe.Slice(c.mems, int(c.nmems)) {
			mems = append(mems, uintptr(m))
		}
	}
	if c.err != 0 {
		why = C.GoString(&c.why[0])
	}
	C.gohl_clrec_reset(c)
	return ls, mems, why
}

// ReleaseCL drops a reference Take handed over: a kernel's, else a
// cl_mem's. It returns the OpenCL error code (0: none).
func ReleaseCL(h uintptr, kernel bool) int {
	k := 0
	if kernel {
		k = 1
	}
	return int(C.gohl_clrec_release(C.uintptr_t(h), C.int(k)))
}

// CLRecOwned is the number of references records took that nobody has
// released yet.
func CLRecOwned() int64 { return int64(C.gohl_clrec_owned()) }
