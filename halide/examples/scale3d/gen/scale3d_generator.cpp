// A float32 3-D pipeline with a scalar and a 1-D input:
// output(x, y, c) = input(x, y, c) * gain + bias(c).
// bias is indexed by the channel coordinate, so tests with non-zero mins
// show that Halide sees the Array's mins, not just its extents.
#include "Halide.h"

using namespace Halide;

class Scale3D : public Generator<Scale3D> {
public:
    Input<Buffer<float>> input{"input", 3};
    Input<Buffer<float>> bias{"bias", 1};
    Input<float> gain{"gain"};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Var x("x"), y("y"), c("c"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output(x, y, c) = input(x, y, c) * gain + bias(c);
        if (get_target().has_gpu_feature()) {
            output.gpu_tile(x, y, xo, yo, xi, yi, 16, 16, TailStrategy::GuardWithIf);
        } else {
            output.vectorize(x, 8, TailStrategy::GuardWithIf);
        }
    }
};

HALIDE_REGISTER_GENERATOR(Scale3D, scale3d)
