// print and trace: output(x) = 3·input(x), printing the value at x == 3
// and tracing every store, so the Go hooks
// (a call's halide.Options.Hooks) can be checked.
#include "Halide.h"

using namespace Halide;

class Printer : public Generator<Printer> {
public:
    Input<Buffer<int32_t>> input{"input", 1};
    Output<Buffer<int32_t>> output{"output", 1};

    void generate() {
        Var x("x");
        output(x) = print_when(x == 3, input(x) * 3, "<- printer at x = 3");
        output.trace_stores();
    }
};

HALIDE_REGISTER_GENERATOR(Printer, printer)
