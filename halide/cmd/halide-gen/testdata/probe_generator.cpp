// halide-gen's test generator: one source, variants by generator params,
// so the tests build it once. uses_print adds print_when and trace_stores;
// uses_extern adds an extern stage, probe_ext, implemented in Go.
// probe_config.h comes from -I testdata/include.
#include "Halide.h"
#include "probe_config.h"

using namespace Halide;

class Probe : public Generator<Probe> {
public:
    GeneratorParam<bool> uses_print{"uses_print", false};
    GeneratorParam<bool> uses_extern{"uses_extern", false};
    Input<Buffer<int16_t>> input{"input", 2};
    Input<float> gain{"gain"};
    Output<Buffer<int16_t>> output{"output", 2};

    void generate() {
        Var x("x"), y("y");
        Expr v = cast<int16_t>(input(x, y) * gain) + PROBE_OFFSET;
        if (uses_extern) {
            Func f("f"), e("e");
            f(x, y) = v;
            f.compute_root();
            e.define_extern("probe_ext", {f, Expr(3), gain}, Int(16), {x, y});
            e.compute_root();
            v = e(x, y);
        }
        if (uses_print) {
            v = print_when(x == 0 && y == 0, v, "probe");
        }
        output(x, y) = v;
        if (uses_print) {
            output.trace_stores();
        }
    }
};

HALIDE_REGISTER_GENERATOR(Probe, probe)
