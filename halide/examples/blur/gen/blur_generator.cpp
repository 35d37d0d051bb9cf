// A 3×3 box blur in two passes, as in Halide's apps/blur: the test
// pipeline for bounds queries. Each output pixel reads its 3×3
// neighbourhood, so an output at min (5, 7) with extent 29×13 needs the
// input at min (4, 6) with extent 31×15. Every split guards its tail
// (GuardWithIf), so the required input region is exact for any output.
// On OpenCL blur_x is a device intermediate (compute_root, gpu_tile).
#include "Halide.h"

using namespace Halide;

class Blur : public Generator<Blur> {
public:
    Input<Buffer<uint16_t>> input{"input", 2};
    Output<Buffer<uint16_t>> blur_y{"blur_y", 2};

    void generate() {
        Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
        Func blur_x("blur_x");
        Expr in32 = cast<uint32_t>(input(x, y));
        blur_x(x, y) = cast<uint16_t>((cast<uint32_t>(input(x - 1, y)) + in32 + cast<uint32_t>(input(x + 1, y))) / 3);
        blur_y(x, y) = cast<uint16_t>((cast<uint32_t>(blur_x(x, y - 1)) + cast<uint32_t>(blur_x(x, y)) + cast<uint32_t>(blur_x(x, y + 1))) / 3);

        // Sizes for the autoschedulers; they land in the metadata as
        // buffer estimates.
        input.set_estimates({{0, 1536}, {0, 2560}});
        blur_y.set_estimates({{0, 1536}, {0, 2560}});

        if (get_target().has_gpu_feature()) {
            blur_x.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 16, 16, TailStrategy::GuardWithIf);
            blur_y.gpu_tile(x, y, xo, yo, xi, yi, 16, 16, TailStrategy::GuardWithIf);
        } else {
            blur_y.vectorize(x, 8, TailStrategy::GuardWithIf);
            blur_x.compute_at(blur_y, y).vectorize(x, 8, TailStrategy::GuardWithIf);
        }
    }
};

HALIDE_REGISTER_GENERATOR(Blur, blur)
