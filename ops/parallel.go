package ops

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

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

	// operands whose memory the job reaches through a held use
	// (hostInputs, hostDst), released by putJob
	held []*array.Raw

	offs [maxChunks][maxOps]int // per-chunk row offsets (forRows)

	// parallel's chunks, taken in order by the caller and the helpers:
	// next packs the call's generation, its chunk count and the next
	// chunk (see claim), so a helper that wakes after its call is over
	// takes nothing from a later one.
	next   atomic.Uint64
	gen    uint64
	ptotal int
	done   atomic.Int64  // chunks finished in this call
	end    atomic.Int32  // the call's end: endOpen, endParked or endDone
	last   chan struct{} // a helper that finishes the last chunk wakes a parked caller
}

// A call's end, a handshake between its caller and the helper that
// finishes its last chunk: that helper moves endOpen to endDone, and the
// caller, having polled for that a while, moves endOpen to endParked and
// sleeps on last, which the helper then fills. Only a caller that parked
// is woken: waking a sleeping goroutine costs tens of microseconds, more
// than a small op's whole call.
const (
	endOpen = iota
	endParked
	endDone
)

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
	s   spart     // a statistic's (statAll)
	_   [2]uint64 // keep workers' partials on their own cache lines
}

const maxWorkers = 64

// A parallel op is cut into up to chunksPerWorker chunks per worker, which
// the caller and the helpers take in turn: a worker that the OS delays
// (on a loaded machine) leaves its share to the others.
const (
	chunksPerWorker = 4
	maxChunks       = maxWorkers * chunksPerWorker
)

// Grains (the fewest points a chunk takes) of the elementwise ops: a
// cheap op (add, floor, maximum) takes a helper from 2^15 points, now
// that helpers poll (spinFor) and a hand-off costs about a microsecond
// (2^16 float32 on 2 cores: 1.7-2.6x NumPy's speed on average, against
// 0.86-1.07 alone: bench/results/spin-local.txt); a costly one (exp,
// sin, pow) is cut finer.
const (
	cheapGrain  = 1 << 14
	costlyGrain = 1 << 11
)

// grainFor is an elementwise op's grain.
func grainFor(costly bool) int {
	if costly {
		return costlyGrain
	}
	return cheapGrain
}

var jobPool = sync.Pool{New: func() any { return &job{last: make(chan struct{}, 1)} }}

func getJob() *job { return jobPool.Get().(*job) }

// putJob puts j back. A helper that wakes after the call is over may
// still hold j: it only reads next, whose generation then tells it to
// leave j alone.
func putJob(j *job) {
	for i, r := range j.held {
		res().Release(r)
		j.held[i] = nil
	}
	j.held = j.held[:0]
	j.nest = nest{}
	j.row, j.body, j.op, j.mode, j.rext, j.rstr = nil, nil, 0, 0, 0, 0
	j.fuse = nil
	j.mm.clear()
	jobPool.Put(j)
}

type task struct {
	j   *job
	gen uint64
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
			for {
				t, ok := nextTask()
				if !ok {
					return
				}
				if t.j.help(t.gen) && !t.j.end.CompareAndSwap(endOpen, endDone) {
					t.j.last <- struct{}{} // the caller parked
				}
			}
		}()
	}
}

// spinFor is how long a helper polls for the next task before it sleeps:
// an op that follows another finds its helpers awake, where waking a
// sleeping one costs the op tens of microseconds, as long as a 2^16-point
// Tanh on one core (OpenMP runtimes spin for the same reason, and longer).
// On 2 cores too: there, 2^16-point Tanh, Sin and Pow took twice their
// best time on average with sleeping helpers, and 1.1-1.3x with polling
// ones (bench/results/spin-local.txt).
const spinFor = 50 * time.Microsecond

// nextTask takes the next task, polling for spinFor first; it yields
// while it polls, so other goroutines run.
func nextTask() (task, bool) {
	for start := time.Now(); time.Since(start) < spinFor; {
		select {
		case t, ok := <-tasks:
			return t, ok
		default:
			runtime.Gosched()
		}
	}
	t, ok := <-tasks
	return t, ok
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
//
// The caller waits only for chunks a helper has begun: on a loaded
// machine a helper the OS has not run yet finds nothing left when it
// wakes (or a later call's generation), and the caller, which took its
// share, is long gone.
func (j *job) parallel(total, grain int) int {
	nw := 1
	if total >= 2*grain {
		nw = min(workers(), total/grain)
	}
	if nw <= 1 {
		j.body(j, 0, 0, total)
		return 1
	}
	n := min(nw*chunksPerWorker, total/grain)
	j.ptotal = total
	j.done.Store(0)
	j.end.Store(endOpen)
	j.gen = (j.gen + 1) & genMask
	j.next.Store(j.gen<<genShift | uint64(n)<<countShift)
	for range nw - 1 {
		select {
		case tasks <- task{j, j.gen}:
		default: // every helper is behind: do not queue more
		}
	}
	if !j.help(j.gen) {
		j.await()
	}
	return n
}

// await returns once the helper that finishes the call's last chunk has
// said so (see endOpen). It polls for spinFor before it sleeps: the
// helpers it waits for are running (each took its chunk), so the wait is
// at most a chunk's time, short for the small ops where a wake-up would
// cost most.
func (j *job) await() {
	start := time.Now()
	for i := 0; ; i++ {
		if j.end.Load() == endDone {
			return
		}
		if i%64 == 63 {
			if time.Since(start) > spinFor {
				break
			}
			runtime.Gosched() // a helper waiting for this P runs
		}
	}
	if j.end.CompareAndSwap(endOpen, endParked) {
		<-j.last
	}
}

// The word next: generation (bits 32…), chunk count (16…31), next chunk
// (0…15); maxChunks fits in 16 bits.
const (
	genShift   = 32
	countShift = 16
	genMask    = 1<<32 - 1
	idxMask    = 1<<16 - 1
)

// claim takes chunk c of the n of call gen, or reports that none is left.
func (j *job) claim(gen uint64) (c, n int, ok bool) {
	for {
		v := j.next.Load()
		c, n = int(v&idxMask), int(v>>countShift&idxMask)
		if v>>genShift != gen || c >= n {
			return 0, 0, false
		}
		if j.next.CompareAndSwap(v, v+1) {
			return c, n, true
		}
	}
}

// help runs chunks of call gen until none is left. It reports whether
// this goroutine finished the call's last chunk (a helper that did then
// ends the call: see endOpen).
func (j *job) help(gen uint64) (finishedLast bool) {
	for {
		c, n, ok := j.claim(gen)
		if !ok {
			return false
		}
		j.body(j, c, j.ptotal*c/n, j.ptotal*(c+1)/n)
		// n from the claim: once done reaches n the caller may start
		// another call on j
		if j.done.Add(1) == int64(n) {
			return true
		}
	}
}
