// A pipeline without user_context whose extern stage, go_relay, is a Go
// function that calls another pipeline (Inner): errors after the nested
// call must still reach the outer call.
#include "Halide.h"

using namespace Halide;

class Relay : public Generator<Relay> {
public:
    Input<Buffer<int32_t>> input{"input", 1};
    Output<Buffer<int32_t>> output{"output", 1};

    void generate() {
        Var x("x");
        Func relayed("relayed");
        relayed.define_extern("go_relay", {input}, Int(32), {x});
        relayed.compute_root();
        output(x) = relayed(x) + 1;
    }
};

HALIDE_REGISTER_GENERATOR(Relay, relay)
