package cu

// Raw gives this module's packages the context and stream of a
// device/cuda Device (set by that package; ok false for other devices):
// the public packages hand out no binding types. The Device owns them.
var Raw = func(d any) (ctx Context, s Stream, ok bool) { return }
