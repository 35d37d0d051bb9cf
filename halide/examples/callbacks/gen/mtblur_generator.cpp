// A 3-tap box blur of uint16 with clamped edges, built as a multi-target
// object (-target with a list: AVX-512 first, the portable target last)
// under a C++ namespace (-f resident::mtblur).
#include "Halide.h"

using namespace Halide;

class MtBlur : public Generator<MtBlur> {
public:
    Input<Buffer<uint16_t>> input{"input", 1};
    Output<Buffer<uint16_t>> output{"output", 1};

    void generate() {
        Var x("x");
        Func in = BoundaryConditions::repeat_edge(input);
        Expr sum = cast<uint32_t>(in(x - 1)) + in(x) + in(x + 1);
        output(x) = cast<uint16_t>(sum / 3);
        output.vectorize(x, natural_vector_size<uint16_t>(), TailStrategy::GuardWithIf);
    }
};

HALIDE_REGISTER_GENERATOR(MtBlur, mtblur)
