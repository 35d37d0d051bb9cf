// Package capture records a sequence of device work once and replays it
// many times without planning it again on the host: Record runs a
// function on a device (ops, fused expressions, reductions into Arrays,
// residency transfers) and returns a Graph; Graph.Replay queues the same
// work again: one graph launch on CUDA (stream capture, then
// cuGraphInstantiate once and one cuGraphLaunch a replay, allocating
// nothing), one enqueue of a cl_khr_command_buffer on OpenCL devices that
// have one (PoCL), else the recorded kernels, copies and transfers queued
// again (OpenCL, device/sim): no placement, residency or argument
// planning.
//
//	g, err := capture.Record(dev, func() error {
//		if err := ops.BinaryScalar(y, x, 0.5, ops.OpMul); err != nil {
//			return err
//		}
//		return ops.Binary(z, y, x, ops.OpAdd)
//	})
//	defer g.Close()
//	for range n {
//		// write new input into x's memory, then
//		if err := g.Replay(); err != nil { … }
//	}
//
// Rules. The Arrays the work used are fixed: a replay refuses, with an
// error naming the Array and the op, one that was closed or whose device
// memory changed (freed and allocated again). Record runs the work once,
// as an eager run would (on CUDA it records, then launches the graph
// once), and a replay leaves the results an eager run of the same
// sequence would (TestReplayDrawn draws sequences and compares). Replay
// plans nothing, so it leaves the Arrays' residency as the capture left
// it: outputs device-newest, transfers moving the same host memory. To
// feed a new input each replay, make it host-newer before Record (write
// it through a host view) so that the capture records its upload (ops.On
// inside the function, or the first op that reads it), then write each
// new input into the same memory and replay (Example_input). On CUDA a
// graph moves Go memory through a staging block of its own, with a host
// copy at each launch, and keeps that memory pinned until Close; a
// pinned Array's (array.NewIn) it moves directly. Work that cannot be
// replayed makes Record fail, with an error that says why: reading a
// result back to the host (the *All reductions: reduce into an Array
// instead), or an op that ran on the host on an Array of the device.
// Halide pipeline calls are recorded (package halide, "Inside a
// capture"), and so is a Stream's Run (package halide/stream). Scalars
// (BinaryScalar's factor, a learning rate, a pipeline's brightness) are
// updated without recording again: Graph.Scalar finds them by the value
// they were recorded with (a CUDA pipeline call's from driver 12.4 on).
//
// Replay does not wait for the work. A recorded transfer moves its host
// memory when the work runs, so Sync the device before writing the next
// input into captured memory or reading what a recorded download wrote
// (a host view of a device-newest output downloads, and waits, by
// itself). Graph.Kind says how a Graph replays; Graph.Nodes, how much.
//
// The checks: go test ./device/capture (TestReplayDrawn: drawn sequences
// on device/sim, PoCL and, where there is one, CUDA; TestScalar,
// TestReplayBetweenEager, TestCloseUnderReplay), and on the CUDA mock
// go test -run TestMockCUDA ./device/cuda (TestCaptureMock: graphs,
// scalars, refusals, leaks; TestCaptureGoMock: Go memory in a graph).
// Timings: BenchmarkReplay, bench/results/capture-local.txt and
// bench/capture-h200.sh.
//
// Run the work once eagerly before recording it: kernels are then built
// and GEMM tilings tuned (tuning waits for the device, which a CUDA
// capture refuses, and on OpenCL its timing launches would be recorded).
//
// While Record runs, the device's queue belongs to it: run nothing else
// on that device from other goroutines meanwhile (it would be recorded
// too). Graph.Close releases what the graph holds (the CUDA graph, the
// device memory its work uses, temporaries included); a device closed
// while a Graph exists releases it too, and a replay racing or following
// it returns an error wrapping device.ErrClosed (the device's gate).
package capture
