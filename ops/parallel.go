package ops

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/resident-go/resident/array"
)

// job is one op call: its loop nest, its kernels and its scalars. Jobs are
// pooled, so a call allocates nothing in steady state.
type job struct {
	nest
	row  rowFunc  // rows calls it per row
	body bodyFunc // chunk's share of [0, total)
	op   int
	mode int
	scal [maxOps]uint64 // storage for scalar operands (stride 0)

	// reductions
	rext, rstr int // the reduced dimension: extent, stride in elements
	part       [maxChunks]partial

	// matmul
	mm mmJob

	// a fused expression (Eval and the reductions of an Expr)
	fuse *fusePlan

	offs [maxChunks][maxOps]int // per-chunk row offsets (forRows)

	// parallel's chunks, taken in order by the caller and the helpers
	next            atomic.Int64
	nchunks, ptotal int

	wg sync.WaitGroup
}

// bodyFunc is a chunk's share of an op.
type bodyFunc = func(j *job, chunk, lo, hi int)

// Taking a generic function's value (binRow[T]) inside generic code makes
// a closure over T's dictionary, which allocates each time. These tables
// keep one per kernel and type pair, made on first use.
const nTypes = 12

var (
	rowTab  [16][nTypes][nTypes]atomic.Pointer[rowFunc]
	bodyTab [8][nTypes]atomic.Pointer[bodyFunc]
)

// Kernel numbers in the tables.
const (
	kBin = iota
	kBinHalf
	kUn
	kUnHalf
	kCmp
	kCmpHalf
	kWhere
	kCopy
	kIota
	kCast
	kClass
	kClassHalf
	kReduce

	bGemm = iota - kReduce - 1
	bTile
	bReduceAll
)

// cachedRow returns the row kernel number k for types D and S, making it
// with mk the first time.
func cachedRow[D, S array.Elem](k int, mk func() rowFunc) rowFunc {
	return cached(&rowTab[k][typeIndex[D]()][typeIndex[S]()], mk)
}

// cachedBody is cachedRow for chunk bodies.
func cachedBody[T array.Elem](k int, mk func() bodyFunc) bodyFunc {
	return cached(&bodyTab[k][typeIndex[T]()], mk)
}

// cached returns the function in *p, storing mk's result there first if
// it is empty.
func cached[F any](p *atomic.Pointer[F], mk func() F) F {
	if f := p.Load(); f != nil {
		return *f
	}
	f := mk()
	p.Store(&f)
	return f
}

func typeIndex[T array.Elem]() int {
	var z T
	switch any(z).(type) {
	case int8:
		return 0
	case int16:
		return 1
	case int32:
		return 2
	case int64:
		return 3
	case uint8:
		return 4
	case uint16:
		return 5
	case uint32:
		return 6
	case uint64:
		return 7
	case float32:
		return 8
	case float64:
		return 9
	case array.Float16:
		return 10
	}
	return 11
}

type partial struct {
	f   float64
	u   uint64
	idx int
	_   [5]uint64 // keep workers' partials on their own cache lines
}

const maxWorkers = 64

// A parallel op is cut into up to chunksPerWorker chunks per worker, which
// the caller and the helpers take in turn: a worker that the OS delays
// (on a loaded machine) leaves its share to the others.
const (
	chunksPerWorker = 4
	maxChunks       = maxWorkers * chunksPerWorker
)

var jobPool = sync.Pool{New: func() any { return new(job) }}

func getJob() *job { return jobPool.Get().(*job) }

func putJob(j *job) {
	j.nest = nest{}
	j.row, j.body, j.op, j.mode, j.rext, j.rstr = nil, nil, 0, 0, 0, 0
	j.fuse = nil
	j.mm.clear()
	jobPool.Put(j)
}

type task struct{ j *job }

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
				t.j.help()
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

// parallel runs j.body over [0, total) when total is at least grain·2
// points, cut into chunks of at least grain points that the calling
// goroutine and up to workers()−1 helpers take in order; below that it runs
// on the caller. It returns the number of chunks (reductions combine that
// many partials, in chunk order, so results do not depend on timing).
func (j *job) parallel(total, grain int) int {
	nw := 1
	if total >= 2*grain {
		nw = min(workers(), total/grain)
	}
	if nw <= 1 {
		j.body(j, 0, 0, total)
		return 1
	}
	j.nchunks, j.ptotal = min(nw*chunksPerWorker, total/grain), total
	j.next.Store(0)
	j.wg.Add(nw - 1)
	for range nw - 1 {
		tasks <- task{j}
	}
	j.help()
	j.wg.Wait()
	return j.nchunks
}

// help runs chunks of j until none is left.
func (j *job) help() {
	for {
		c := int(j.next.Add(1) - 1)
		if c >= j.nchunks {
			return
		}
		j.body(j, c, j.ptotal*c/j.nchunks, j.ptotal*(c+1)/j.nchunks)
	}
}
