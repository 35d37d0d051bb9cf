// A pipeline without user_context (halide-gen -user_context=false): its C
// signature, inner(halide_buffer_t *input, halide_buffer_t *output), is
// that of an extern stage, so outer calls it through define_extern. Go can
// call it directly too.
#include "Halide.h"

using namespace Halide;

class Inner : public Generator<Inner> {
public:
    Input<Buffer<int32_t>> input{"input", 1};
    Output<Buffer<int32_t>> output{"output", 1};

    void generate() {
        Var x("x");
        output(x) = input(x) * input(x);
    }
};

HALIDE_REGISTER_GENERATOR(Inner, inner)
