// An OpenCL pipeline whose input is stored as a GPU texture
// (MemoryType::GPUTexture, an OpenCL image): package halide refuses it
// before the call, naming the limitation, instead of failing with
// incompatible_device_interface (-42) inside the runtime.
//
//	output(x, y) = 2 · input(x, y)
#include "Halide.h"

using namespace Halide;

class Texture : public Generator<Texture> {
public:
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output(x, y) = input(x, y) * 2.0f;
        input.store_in(MemoryType::GPUTexture);
        output.gpu_tile(x, y, xo, yo, xi, yi, 16, 16, TailStrategy::GuardWithIf);
    }
};

HALIDE_REGISTER_GENERATOR(Texture, texture)
