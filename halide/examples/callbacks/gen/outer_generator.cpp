// A pipeline whose extern stage is another pipeline (inner, built without
// user_context): output = inner(input + 1) − 1 = (input + 1)² − 1.
#include "Halide.h"

using namespace Halide;

class Outer : public Generator<Outer> {
public:
    Input<Buffer<int32_t>> input{"input", 1};
    Output<Buffer<int32_t>> output{"output", 1};

    void generate() {
        Var x("x");
        Func plus("plus"), squared("squared");
        plus(x) = input(x) + 1;
        plus.compute_root();
        squared.define_extern("inner", {plus}, Int(32), {x});
        squared.compute_root();
        output(x) = squared(x) - 1;
    }
};

HALIDE_REGISTER_GENERATOR(Outer, outer)
