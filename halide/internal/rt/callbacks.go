package rt

// #include <stdint.h>
import "C"

import "unsafe"

// What the C side calls in Go (hooks.c), set by package halide at init.
var (
	// OnPrint gets a call's printed message (n bytes at msg, NUL after).
	OnPrint func(slot int32, msg unsafe.Pointer, n int)
	// OnTrace gets a call's trace event and returns its id.
	OnTrace func(slot int32, e *TraceEvent) int32
	// OnExtern runs the Go extern stage whose stub symbol is name.
	OnExtern func(slot int32, name unsafe.Pointer, kinds []uint32, vals []uint64) int32
)

//export gohlPrint
func gohlPrint(slot C.int32_t, msg *C.char, n C.int) {
	OnPrint(int32(slot), unsafe.Pointer(msg), int(n))
}

//export gohlTrace
func gohlTrace(slot C.int32_t, e unsafe.Pointer) C.int32_t {
	return C.int32_t(OnTrace(int32(slot), (*TraceEvent)(e)))
}

//export gohlExtern
func gohlExtern(slot C.int32_t, name *C.char, n C.int, kinds *C.uint32_t, vals *C.uint64_t) C.int {
	return C.int(OnExtern(int32(slot), unsafe.Pointer(name),
		unsafe.Slice((*uint32)(unsafe.Pointer(kinds)), int(n)), unsafe.Slice((*uint64)(unsafe.Pointer(vals)), int(n))))
}
