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

	// parallel's chunks: cur packs the call's generation, its home-worker
	// and chunk counts (see help); a chunk is taken by moving its word in
	// claims from gen<<1 to gen<<1|1, so a helper that wakes after its
	// call is over (its task's generation is old) takes nothing from a
	// later one.
	cur    atomic.Uint64
	claims [maxChunks]atomic.Uint64
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
	mbox     [maxWorkers]chan task // helper w's tasks (1 ≤ w < nWorkers)
	nWorkers int
)

func startPool() {
	nWorkers = min(runtime.GOMAXPROCS(0), maxWorkers)
	for w := 1; w < nWorkers; w++ {
		// room for a task of the next call behind one of a call that
		// ended before this helper woke
		mbox[w] = make(chan task, 2)
		go func() {
			for {
				t := nextTask(mbox[w])
				if t.j.help(t.gen, w) && !t.j.end.CompareAndSwap(endOpen, endDone) {
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

// yieldEvery is how often a polling helper lets other goroutines have its
// thread. Not at every look: on 16 cores, 15 helpers yielding at every
// look queued on the scheduler's lock, and a 2^16-point Floor took 14 µs
// on average against 5.5 µs yielding every 25
// (bench/results/h100-2026-12-07-pool.txt).
const yieldEvery = 25 * time.Microsecond

// nextTask takes the helper's next task from its mailbox, polling for
// spinFor first. Each helper has its own mailbox, as a shared queue that
// 15 helpers poll makes each call's hand-outs wait on its lock (a
// 2^16-point Exp: 26 µs on average on 16 cores, against 12 µs).
func nextTask(mb chan task) task {
	start := time.Now()
	yielded := start
	for i := 0; ; i++ {
		if len(mb) > 0 {
			return <-mb // only this helper takes from mb
		}
		if i%64 == 63 {
			now := time.Now()
			if now.Sub(start) >= spinFor {
				break
			}
			if now.Sub(yielded) >= yieldEvery {
				runtime.Gosched()
				yielded = now
			}
		}
	}
	return <-mb
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
	for c := range n {
		j.claims[c].Store(j.gen << 1)
	}
	homes := nw // chunks with a home worker: cheap ops only (see help)
	if grain < cheapGrain {
		homes = 0
	}
	j.cur.Store(j.gen<<genShift | uint64(homes)<<countShift | uint64(n))
	for w := 1; w < nw; w++ {
		select {
		case mbox[w] <- task{j, j.gen}:
		default: // that helper is behind: the others take its chunks
		}
	}
	if !j.help(j.gen, 0) {
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

// The word cur: generation (bits 32…), the count of workers with a home
// run of chunks (16…31; see help), chunk count (0…15); maxChunks and
// maxWorkers fit in 16 bits.
const (
	genShift   = 32
	countShift = 16
	genMask    = 1<<32 - 1
	idxMask    = 1<<16 - 1
)

// help runs chunks of call gen as worker w (the caller is 0) until none
// is left. A cheap op's worker takes its own run of chunks first, the
// same at every call of the same shape, so that a chunk's data stays in
// the cache of the core that last touched it (with chunks taken in any
// order, on a 16-core Xeon a 2^16-point Floor was slower split than on
// one core); then any chunk nobody has taken, from the last down (the
// others start at their own first). A costly op's chunks have no home:
// every worker takes any, from the last down. With homes, a late helper's
// run, taken by others only at the end, cost a 2^16-point
// Tanh more than the caches saved. It reports whether this goroutine
// finished the call's last chunk (a helper that did then ends the call:
// see endOpen).
func (j *job) help(gen uint64, w int) (finishedLast bool) {
	v := j.cur.Load()
	if v>>genShift != gen {
		return false
	}
	homes, n := int(v>>countShift&idxMask), int(v&idxMask)
	lo, hi := 0, 0
	if w < homes {
		lo, hi = w*n/homes, (w+1)*n/homes
	}
	for k := range n {
		c := lo + k // own chunks first, then the others from the last down
		if c >= hi {
			c = n - 1 - (k - (hi - lo))
			if c < hi {
				c -= hi - lo
			}
		}
		if j.claims[c].Load() != gen<<1 || !j.claims[c].CompareAndSwap(gen<<1, gen<<1|1) {
			continue
		}
		j.body(j, c, j.ptotal*c/n, j.ptotal*(c+1)/n)
		// n from cur of this generation: once done reaches n the caller
		// may start another call on j
		if j.done.Add(1) == int64(n) {
			return true
		}
	}
	return false
}
