// A Go extern stage on the device, in the style of Halide's
// define_extern_opencl aottest: output = go_dev_add(2·input, k) + 1, where
// go_dev_add is declared with DeviceAPI::OpenCL, so Halide hands it
// buffers on the device, and the Go function (halide.ExternDeviceArray)
// adds k there with package ops, on the pipeline's queue, without a copy.
//
// With host_input=true (the pipeline devstage_hostin) twice has no GPU
// schedule, like make_a_root in Halide's define_extern_opencl test: Halide
// computes it on the host and hands the device stage a buffer with host
// memory and no device allocation, which a C stage there uploads itself
// (halide_copy_to_device) and ExternDeviceArray uploads for a Go stage.
#include "Halide.h"

using namespace Halide;

class DevStage : public Generator<DevStage> {
public:
    Input<Buffer<int32_t>> input{"input", 2};
    Input<int32_t> k{"k"};
    Output<Buffer<int32_t>> output{"output", 2};
    GeneratorParam<bool> host_input{"host_input", false};

    void generate() {
        Var x("x"), y("y"), xi("xi"), yi("yi");
        Func twice("twice"), added("added");
        twice(x, y) = input(x, y) * 2;
        added.define_extern("go_dev_add", {user_context_value(), twice, k}, Int(32), {x, y},
                            NameMangling::Default, DeviceAPI::OpenCL);
        output(x, y) = added(x, y) + 1;

        twice.compute_root();
        if (!host_input) {
            twice.gpu_tile(x, y, xi, yi, 8, 8, TailStrategy::GuardWithIf);
        }
        added.compute_root();
        output.gpu_tile(x, y, xi, yi, 8, 8, TailStrategy::GuardWithIf);
    }
};

HALIDE_REGISTER_GENERATOR(DevStage, devstage)
