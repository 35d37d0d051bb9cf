// Scalar parameters with defaults, ranges and estimates, and a constraint
// on the input: the test pipeline for metadata (Arg.Default, Min, Max,
// Estimate, GoName) and for the errors Halide reports for them
// (param_too_small, param_too_large, constraint_violated).
//
//	output(x, y) = saturate_u8(input(x, y) · gain + bias_level), or 255 minus that when invert
#include "Halide.h"

using namespace Halide;

class Params : public Generator<Params> {
public:
    Input<Buffer<uint8_t>> input{"input", 2};
    Input<float> gain{"gain", 1.0f, 0.0f, 8.0f};
    Input<int16_t> bias_level{"bias_level", 0, -255, 255};
    Input<bool> invert{"invert", false};
    Output<Buffer<uint8_t>> output{"output", 2};

    void generate() {
        Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
        Expr v = clamp(cast<float>(input(x, y)) * gain + cast<float>(bias_level), 0.0f, 255.0f);
        v = select(invert, 255.0f - v, v);
        output(x, y) = cast<uint8_t>(v);

        gain.set_estimate(2.0f);
        bias_level.set_estimate(10);
        input.set_estimates({{0, 640}, {0, 480}});
        output.set_estimates({{0, 640}, {0, 480}});
        // The input's x always starts at 0: Halide checks it per call.
        input.dim(0).set_min(0);

        if (get_target().has_gpu_feature()) {
            output.gpu_tile(x, y, xo, yo, xi, yi, 16, 16, TailStrategy::GuardWithIf);
        }
    }
};

HALIDE_REGISTER_GENERATOR(Params, params)
