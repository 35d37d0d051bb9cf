// Package cudatest runs tests against device/cuda's mock driver
// (device/cuda/testdata/mockcuda: libcuda, cuBLAS and NVRTC over host
// memory, with fault injection) where there is no GPU: Mock builds it with
// gcc, Run runs chosen tests of the current test binary in a child process
// that loads it. For tests only, as device/opencl/opencltest is.
package cudatest
