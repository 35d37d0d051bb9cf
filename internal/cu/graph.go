package cu

import "bytes"

// Stream capture and graphs: the driver records the work queued on a
// capturing stream into a graph instead of running it; an instantiated
// graph (GraphExec) runs all of it with one launch.

// Graph handles, as the driver passes them.
type (
	Graph     uintptr // CUgraph
	GraphExec uintptr // CUgraphExec
	GraphNode uintptr // CUgraphNode
)

// CaptureRelaxed is CU_STREAM_CAPTURE_MODE_RELAXED: other threads (and a
// goroutine that changed threads) may call the driver during the capture,
// and allocations there are allowed.
const CaptureRelaxed = 2

// ErrorStreamCaptureUnsupported is CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
// an operation not allowed while a stream captures (a synchronize).
const ErrorStreamCaptureUnsupported = 900

// BeginCapture starts capturing the work queued on s.
func BeginCapture(ctx Context, s Stream, mode int) error {
	return check("cuStreamBeginCapture_v2", cuCaptureBegin(ctx, s, mode))
}

// EndCapture ends the capture on s and returns its graph.
func EndCapture(ctx Context, s Stream) (Graph, error) {
	g, code := cuCaptureEnd(ctx, s)
	return g, check("cuStreamEndCapture", code)
}

// GraphInstantiate makes g launchable.
func GraphInstantiate(ctx Context, g Graph) (GraphExec, error) {
	e, code := cuGraphInstantiate(ctx, g)
	return e, check("cuGraphInstantiateWithFlags", code)
}

// GraphLaunch queues e's work on s.
func GraphLaunch(ctx Context, e GraphExec, s Stream) error {
	return check("cuGraphLaunch", cuGraphLaunch(ctx, e, s))
}

// GraphDestroy destroys g.
func GraphDestroy(ctx Context, g Graph) error { return check("cuGraphDestroy", cuGraphDestroy(ctx, g)) }

// GraphExecDestroy destroys e.
func GraphExecDestroy(ctx Context, e GraphExec) error {
	return check("cuGraphExecDestroy", cuGraphExecDestroy(ctx, e))
}

// GraphKernels returns g's kernel nodes and their functions.
func GraphKernels(ctx Context, g Graph) ([]GraphNode, []Function, error) {
	nodes, funcs, code := cuGraphKernels(ctx, g)
	return nodes, funcs, check("cuGraphGetNodes", code)
}

// GraphKernelSame reports whether kernel node n's parameters are the
// values at blob[offs[i]:], lens[i] bytes each (false for a node whose
// parameters came through extra).
func GraphKernelSame(ctx Context, n GraphNode, blob []byte, offs, lens []int32) (bool, error) {
	got := make([]byte, len(blob))
	code := cuGraphKernelParams(ctx, n, got, offs, lens)
	if code == ErrorNotSupported {
		return false, nil
	}
	if err := check("cuGraphKernelNodeGetParams_v2", code); err != nil {
		return false, err
	}
	for i, o := range offs {
		if !bytes.Equal(got[o:o+lens[i]], blob[o:o+lens[i]]) {
			return false, nil
		}
	}
	return true, nil
}

// GraphKernelParams reads kernel node n's parameters, f's, as laid out by
// ParamInfo's sizes: blob holds them, parameter i at offs[i], lens[i]
// bytes. A driver before cuFuncGetParamInfo (12.4), or a node
// whose parameters came through extra, is an error with code
// ErrorNotSupported.
func GraphKernelParams(ctx Context, n GraphNode, f Function) (blob []byte, offs, lens []int32, err error) {
	for i := 0; ; i++ {
		_, size, ok, err := ParamInfo(ctx, f, i)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			break
		}
		offs, lens = append(offs, int32(len(blob))), append(lens, int32(size))
		blob = append(blob, make([]byte, size)...)
	}
	return blob, offs, lens, check("cuGraphKernelNodeGetParams_v2", cuGraphKernelParams(ctx, n, blob, offs, lens))
}

// GraphExecSetParams sets kernel node n's parameters in e to the values
// at blob[offs[i]:] for later launches.
func GraphExecSetParams(ctx Context, e GraphExec, n GraphNode, blob []byte, offs []int32) error {
	return check("cuGraphExecKernelNodeSetParams_v2", cuGraphExecSetParams(ctx, e, n, blob, offs))
}
