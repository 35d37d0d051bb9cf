package ops

import (
	"math/bits"
	"time"
)

// gemmTuning is Tuning's Gemm field, with its defaults.
type gemmTuning = struct {
	ModelOnly bool
	Budget    time.Duration
	MinFlops  float64
}

func gemmBudget(t gemmTuning) time.Duration {
	if t.Budget > 0 {
		return t.Budget
	}
	return 100 * time.Millisecond
}

func gemmMinFlops(t gemmTuning) float64 {
	if t.MinFlops > 0 {
		return t.MinFlops
	}
	return 1e8
}

// gemmChoice is how one product runs: tiling cfg, K cut into split
// slices (≤ 1: not cut).
type gemmChoice struct {
	cfg   gemmConfig
	split int
}

// gemmClass is a shape class: element size, ⌈log2⌉ of M, N, K and the
// batch, and whether a's and b's rows are contiguous (the kernels' fast
// loads).
type gemmClass struct {
	es, m, n, k, batch int8
	rows               bool
}

func log2Up(x int) int8 { return int8(bits.Len(uint(max(x, 1) - 1))) }

func classOf(es int, mm *mmJob) gemmClass {
	return gemmClass{es: int8(es), m: log2Up(mm.m), n: log2Up(mm.n), k: log2Up(mm.k), batch: log2Up(mm.batch),
		rows: mm.sak == 1 && mm.sbj == 1}
}

// gemmChoose is the kernel for product mm of elements of es bytes on s's
// device: a forced tiling or split (tests, bench's tuner) as set; else the
// class's chosen one; else the model's, with tune true when the class
// should be measured first (gemmRun.autotune).
func (s devRef) gemmChoose(es int, mm *mmJob) (ch gemmChoice, tune bool) {
	key := classOf(es, mm)
	s.mu.Lock() // once: this runs for every MatMul
	cfg, forced := s.gemm[es]
	split, splitForced := s.gemmSplit[es]
	c, chosen := s.gemmChosen[key]
	t := s.tuning.Gemm
	s.mu.Unlock()
	if forced || splitForced {
		if !forced {
			cfg = s.gemmModel(es, mm).cfg
		}
		if !splitForced {
			split = 1
		}
		return gemmChoice{cfg, split}, false
	}
	if chosen {
		return c, false
	}
	flops := 2 * float64(mm.m) * float64(mm.n) * float64(mm.k) * float64(mm.batch)
	return s.gemmModel(es, mm), !t.ModelOnly && flops >= gemmMinFlops(t)
}

// gemmModel is the deterministic choice: the device's default tiling (the
// inline-PTX one for float64 where it may run), or the first of its
// smaller family that gives ¾ of the compute units a work-group
// (gemmFit), and split-K where even that leaves them idle
// (gemmSplitRule).
func (s devRef) gemmModel(es int, mm *mmJob) gemmChoice {
	cfg := gemmDefault(s.d, es, true)
	if cfg.mma() && !s.mmaFits(es, cfg) {
		cfg = gemmDefault(s.d, es, false)
	}
	var buf [8]gemmConfig // no allocation: the model runs per call below MinFlops
	fam := buf[:0]
	for _, c := range gemmFamily(cfg) {
		if s.gemmFits(es, c) {
			fam = append(fam, c)
		}
	}
	cfg = gemmFit(cfg, fam, mm.m, mm.n, mm.batch, s.cus)
	return gemmChoice{cfg, gemmSplitRule(cfg, mm.m, mm.n, mm.k, mm.batch, s.cus)}
}

// gemmFits says whether tiling c may run for elements of es bytes on s's
// device (its work-group and local memory fit; inline PTX: mmaFits).
func (s devRef) gemmFits(es int, c gemmConfig) bool {
	if c.mma() {
		return s.mmaFits(es, c)
	}
	return c.threads() <= s.d.Caps().MaxGroup && int64(c.TK*(c.TM+gemmPadA+c.TN)*es) <= s.localMem
}

// gemmSplitMinK is the least K a split-K slice gets from the model.
const gemmSplitMinK = 256

// gemmSplitRule is the model's split-K factor for tiling c on an m×n×k
// product of batch matrices on units compute units: 1 (no split) for a
// batch, or when c's work-groups fill ¾ of the units; else the power of
// two (≤ 32) that brings them to two per unit, as far as slices of at
// least gemmSplitMinK allow.
func gemmSplitRule(c gemmConfig, m, n, k, batch, units int) int {
	groups := (m + c.TM - 1) / c.TM * ((n + c.TN - 1) / c.TN)
	if batch != 1 || 4*groups >= 3*units {
		return 1
	}
	s := 1
	for groups*s < 2*units && k/(2*s) >= gemmSplitMinK && s < 32 {
		s *= 2
	}
	return s
}

// gemmCandidates are the tilings autotune measures for elements of es
// bytes on s's device (the default and its smaller family first), those
// that fit.
func (s devRef) gemmCandidates(es int) []gemmConfig {
	var cs []gemmConfig
	switch {
	case !isNVIDIA(s.d):
		cs = []gemmConfig{gemmOther, {64, 64, 16, 4, 4, gemmVec}}
	case es == 8:
		cs = append([]gemmConfig{gemmNVIDIAMMA}, gemmMMASmall...)
		cs = append(append(cs, gemmNVIDIA64), gemmNVIDIA64Small...)
	default:
		cs = append([]gemmConfig{gemmNVIDIA32}, gemmNVIDIA32Small...)
		cs = append(cs, gemmConfig{128, 128, 8, 8, 8, gemmVec})
	}
	out := cs[:0]
	for _, c := range cs {
		if s.gemmFits(es, c) {
			out = append(out, c)
		}
	}
	return out
}

// tuneChoices lists what autotune times for product mm: the model's
// choice first, then every candidate tiling unsplit, then split-K around
// each tiling's rule (half, it, double) where the rule splits at all.
func (g *gemmRun) tuneChoices(model gemmChoice) []gemmChoice {
	mm := &g.mm
	out := []gemmChoice{model}
	seen := map[gemmChoice]bool{model: true}
	add := func(c gemmChoice) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	cands := g.s.gemmCandidates(g.es)
	for _, c := range cands {
		add(gemmChoice{c, 1})
	}
	for _, c := range cands {
		r := gemmSplitRule(c, mm.m, mm.n, mm.k, mm.batch, g.s.cus)
		if r < 2 {
			continue
		}
		for _, f := range []int{r, r / 2, 2 * r} {
			if f >= 2 && mm.k/f >= gemmSplitMinK/2 {
				add(gemmChoice{c, f})
			}
		}
	}
	return out
}

// autotune runs product g with each of tuneChoices in turn (the model's
// first), each timed from its launch to the device's sync, for at most
// the budget of launch time, keeps the fastest as the class's choice and
// leaves dst holding the product. A candidate whose build fails is
// skipped (not timed); the class's first launch taking over a third of
// the budget keeps the model's choice.
func (g *gemmRun) autotune(model gemmChoice) error {
	s := g.s
	s.tuneMu.Lock()
	defer s.tuneMu.Unlock()
	key := classOf(g.es, &g.mm)
	s.mu.Lock()
	c, ok := s.gemmChosen[key]
	budget := gemmBudget(s.tuning.Gemm)
	s.mu.Unlock()
	if ok { // another call tuned the class meanwhile
		return g.run(c)
	}
	if err := s.d.Sync(); err != nil { // time only our own launches
		return err
	}
	best, bestT := model, time.Duration(-1)
	var spent time.Duration
	var lastErr error
	ran := false // dst holds the product of a whole launch (the last one)
	timed := func(ch gemmChoice) (time.Duration, error) {
		t0 := time.Now()
		err := g.run(ch)
		if err == nil {
			err = s.d.Sync()
		}
		d := time.Since(t0)
		spent += d
		ran = err == nil
		return d, err
	}
	for i, ch := range g.tuneChoices(model) {
		if spent >= budget {
			break
		}
		if _, _, err := g.program(ch.cfg); err != nil { // builds outside the budget
			lastErr = err
			continue
		}
		if ch.split > 1 {
			if _, err := g.sumProgram(); err != nil {
				lastErr = err
				continue
			}
		}
		t, err := timed(ch) // the first launch of a kernel: warm-up, timed too
		if err != nil {
			lastErr = err
			continue
		}
		if i == 0 && 3*t > budget {
			bestT = t
			break // too large to measure within the budget: the model's
		}
		if bestT < 0 || t < 3*bestT {
			for r := 0; r < 2 && spent+t <= budget; r++ {
				u, err := timed(ch)
				if err != nil {
					break
				}
				t = min(t, u)
			}
		}
		if ran && (bestT < 0 || t < bestT) {
			best, bestT = ch, t
		}
	}
	if bestT < 0 { // nothing ran: the model's error, or the last one
		if err := g.run(model); err != nil {
			if lastErr != nil {
				return lastErr
			}
			return err
		}
		return nil
	}
	s.mu.Lock()
	s.gemmChosen[key] = best
	s.mu.Unlock()
	if !ran {
		return g.run(best)
	}
	return nil
}
