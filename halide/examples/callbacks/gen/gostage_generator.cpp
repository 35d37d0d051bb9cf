// An extern stage written in Go: output = go_offset(2·input, k) + 1, where
// go_offset (registered with halide.RegisterExtern) adds k·(x − y). The
// extern gets user_context first, so its errors reach the right call. On
// a GPU target the Halide stages run on the device and the extern on the
// host: Halide copies its input to host and its output back.
#include "Halide.h"

using namespace Halide;

class GoStage : public Generator<GoStage> {
public:
    Input<Buffer<int32_t>> input{"input", 2};
    Input<int32_t> k{"k"};
    Output<Buffer<int32_t>> output{"output", 2};

    void generate() {
        Var x("x"), y("y"), xi("xi"), yi("yi");
        Func twice("twice"), offset("offset");
        twice(x, y) = input(x, y) * 2;
        offset.define_extern("go_offset", {user_context_value(), twice, k}, Int(32), {x, y});
        output(x, y) = offset(x, y) + 1;

        twice.compute_root();
        offset.compute_root();
        if (get_target().has_gpu_feature()) {
            twice.gpu_tile(x, y, xi, yi, 8, 8, TailStrategy::GuardWithIf);
            output.gpu_tile(x, y, xi, yi, 8, 8, TailStrategy::GuardWithIf);
        } else {
            twice.vectorize(x, 8, TailStrategy::GuardWithIf);
            output.vectorize(x, 8, TailStrategy::GuardWithIf);
        }
    }
};

HALIDE_REGISTER_GENERATOR(GoStage, gostage)
