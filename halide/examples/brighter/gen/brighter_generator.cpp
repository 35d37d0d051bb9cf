// Halide lesson 10's pipeline: brighten a uint8 image by k, saturating.
// The same generator builds for OpenCL (gpu_tile 64×4), CUDA (the same
// tile, 8 pixels per thread) and the host.
#include "Halide.h"

using namespace Halide;

class Brighter : public Generator<Brighter> {
public:
    Input<Buffer<uint8_t>> input{"input", 2};
    Input<uint8_t> k{"k"};
    Output<Buffer<uint8_t>> brighter{"brighter", 2};

    void generate() {
        Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), xv("xv");
        brighter(x, y) = saturating_add(input(x, y), k);
        // GuardWithIf: any size works, down to a 1×1 crop.
        if (get_target().has_feature(Target::CUDA)) {
            // CUDA: 8 pixels per thread in a 64×4 tile of threads. On the
            // H200 8 stages over 4096² (pinned, resident) took 0.758 ms
            // this way against 0.991 with one pixel per thread, 0.748 with
            // 4 and 1.113 with 16 (one job, bench/results/h200-schedules-cuda.txt).
            brighter.split(x, x, xv, 8, TailStrategy::GuardWithIf).vectorize(xv);
            brighter.gpu_tile(x, y, xo, yo, xi, yi, 64, 4, TailStrategy::GuardWithIf);
        } else if (get_target().has_gpu_feature()) {
            // 64×4 work-items: a warp reads 32 consecutive bytes of one
            // row. On the H200 (bench/results/h200-schedules.txt) 8 stages
            // took 0.981 ms with this tile, 1.013 with 16×16, and 1.184
            // with 16 pixels per work-item (vload16 of an unaligned
            // address).
            brighter.gpu_tile(x, y, xo, yo, xi, yi, 64, 4, TailStrategy::GuardWithIf);
        } else {
            brighter.vectorize(x, 32, TailStrategy::GuardWithIf).parallel(y, 64, TailStrategy::GuardWithIf);
        }
    }
};

HALIDE_REGISTER_GENERATOR(Brighter, brighter)
