// Package stream runs a chain of device steps over an Array too large to
// want resident, or whose transfers should hide behind its compute: in
// bands of the output's outermost dimension, so that the upload of band
// k+1, the compute of band k and the download of band k−1 overlap, on
// three in-order queues of one device ordered by events (the device's own
// queue computes; an upload and a download queue move data): OpenCL
// command queues on a device/opencl Device, CUDA streams on a
// device/cuda Device, where the steps are host-cuda pipelines and ops
// compiled by NVRTC.
// A GPU that moves both directions at once then costs about one direction,
// not both, plus the compute that does not hide.
//
// A chain is a list of Steps: Halide pipelines (Pipeline) and elementwise
// ops (Op), or any function of two device-resident band Arrays; a chain
// may end in a reduction (Reduce), whose output holds one element per
// band (each band's sum, say) for the caller to join. Each band's
// input region is walked back from its output rows through every step's
// Needs: a pipeline's is its bounds query, so a stencil's bands read their
// halo; an op's is the band itself. The source must cover every band's
// region, as it must for the unstreamed chain. Results equal the
// unstreamed chain's element for element, provided the steps compute an
// element from its coordinates and the input alone, not from the bounds
// of the buffers they are given (a pipeline that clamps to its input's
// own extent would clamp to the band's).
//
//	blurStep, _ := stream.Pipeline(blur.BlurOpenclPipeline) // 3×3 stencil
//	src := array.NewWithMins[uint16]([]int{-1, -1}, []int{w + 2, h + 2}) // with the halo
//	dst := array.New[uint16](w, h)
//	err := stream.Run(dst, src, stream.Options{Bands: 16}, blurStep)
//
// Host memory of the source and destination may be Go memory, copied
// through pinned staging buffers on the host while the transfers run, or
// the device's pinned memory (array.NewIn), moved directly. Every byte is
// counted in the device's Stats: each band's input region up and its
// output down, one transfer each, nothing else. A Stream (New) keeps its
// band buffers, staging and plan between Runs; Run alone makes and frees
// them. Where the chain runs is the module's placement rule
// (Options.Device, else where the operands live, else
// halide.DefaultDevice("OpenCL")).
//
// The bands are equal unless the Cut (Options.First, Options.Last) makes
// the first or last one thinner: only the first band's upload runs alone
// at the start, and only the last band's compute and download at the end.
// A Trace (RunOptions.Trace, for one RunContext) records where a Run's
// time went: per band the host's queueing and, on CUDA, each queue's part
// and each step. RunContext takes a context.Context: cancelled, a Run
// queues no further band, waits for the bands it queued and returns an
// error wrapping ctx.Err(), nothing left in flight.
package stream
