// The smallest useful pipeline, output(x) = input(x) + 1 on int32: its run
// time is the cost of a call, which the overhead benchmark measures.
#include "Halide.h"

using namespace Halide;

class Tiny : public Generator<Tiny> {
public:
    Input<Buffer<int32_t>> input{"input", 1};
    Output<Buffer<int32_t>> output{"output", 1};

    void generate() {
        Var x("x");
        output(x) = input(x) + 1;
    }
};

HALIDE_REGISTER_GENERATOR(Tiny, tiny)
