package ops

import (
	"runtime"
	"sync"
	"unsafe"
)

// job is one op call: its loop nest, its kernels and its scalars. Jobs are
// pooled, so a call allocates nothing in steady state.
type job struct {
	nest
	row  rowFunc                  // rows calls it per row
	body func(j *job, chunk, lo, hi int) // chunk's share of [0, total)
	op   int
	mode int
	scal [maxOps]uint64 // storage for scalar operands (stride 0)

	// reductions
	rext, rstr int // the reduced dimension: extent, stride in elements
	part       [maxWorkers]partial

	// matmul
	mm mmJob

	wg sync.WaitGroup
}

type partial struct {
	f   float64
	u   uint64
	idx int
	_   [5]uint64 // keep workers' partials on their own cache lines
}

const maxWorkers = 64

var jobPool = sync.Pool{New: func() any { return new(job) }}

func getJob() *job { return jobPool.Get().(*job) }

func putJob(j *job) {
	j.base = [maxOps]unsafe.Pointer{}
	j.mm.clear()
	jobPool.Put(j)
}

type task struct {
	j      *job
	lo, hi int
	chunk  int
}

var (
	poolOnce sync.Once
	tasks    chan task
	nWorkers int
)

func startPool() {
	nWorkers = min(runtime.GOMAXPROCS(0), maxWorkers)
	tasks = make(chan task, 4*maxWorkers)
	for range nWorkers - 1 {
		go func() {
			for t := range tasks {
				t.j.body(t.j, t.chunk, t.lo, t.hi)
				t.j.wg.Done()
			}
		}()
	}
}

// workers is the number of goroutines a large op uses: GOMAXPROCS at the
// first call (at most 64).
func workers() int {
	poolOnce.Do(startPool)
	return nWorkers
}

// parallel runs j.body over [0, total) in up to workers() chunks when total
// is at least grain·2 points; below that it runs on the calling goroutine.
// It returns the number of chunks used (reductions read that many partials).
func (j *job) parallel(total, grain int) int {
	nw := 1
	if total >= 2*grain {
		nw = min(workers(), total/grain)
	}
	if nw <= 1 {
		j.body(j, 0, 0, total)
		return 1
	}
	j.wg.Add(nw - 1)
	for c := 1; c < nw; c++ {
		tasks <- task{j: j, lo: total * c / nw, hi: total * (c + 1) / nw, chunk: c}
	}
	j.body(j, 0, 0, total/nw)
	j.wg.Wait()
	return nw
}
