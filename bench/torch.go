package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Torch is what bench/torch_chain.py -json writes: the same chain run with
// PyTorch on CUDA, and PyTorch's own host↔device copy rates.
type Torch struct {
	Device  string `json:"device"`
	Version string `json:"torch"`
	// Chain is torch_chain.py's --chain: "brighter" (also when absent, as
	// in files from before it had the flag) or "mixed".
	Chain   string         `json:"chain,omitempty"`
	Width   int            `json:"width"`
	Height  int            `json:"height"`
	Stages  int            `json:"stages"`
	Reps    int            `json:"reps"`
	Results []TorchResult  `json:"results"`
	Copies  []TorchCopy    `json:"copies"`
	Extra   map[string]any `json:"extra,omitempty"`
}

// TorchResult is one mode and host memory ("pageable" or "pinned").
type TorchResult struct {
	Mode     string  `json:"mode"`
	Memory   string  `json:"memory"`
	Stages   int     `json:"stages"`
	MedianMS float64 `json:"median_ms"`
	P10MS    float64 `json:"p10_ms"`
	P90MS    float64 `json:"p90_ms"`
	MinMS    float64 `json:"min_ms"`
	MaxMS    float64 `json:"max_ms"`
}

// TorchCopy is a host↔device copy rate measured by PyTorch.
type TorchCopy struct {
	Memory  string  `json:"memory"`
	Bytes   int64   `json:"bytes"`
	H2DGBps float64 `json:"h2d_gbps"`
	D2HGBps float64 `json:"d2h_gbps"`
}

// ReadTorch reads torch_chain.py's JSON.
func ReadTorch(r io.Reader) (*Torch, error) {
	var t Torch
	if err := json.NewDecoder(r).Decode(&t); err != nil {
		return nil, fmt.Errorf("bench: reading torch_chain.py JSON: %w", err)
	}
	return &t, nil
}

func (t *Torch) chainName() string {
	if t.Chain == "" {
		return "brighter"
	}
	return t.Chain
}

// torchMemory is PyTorch's name for a Memory.
func torchMemory(m Memory) string {
	if m == Pinned {
		return "pinned"
	}
	return "pageable"
}

// Find returns the median for mode ("resident", "roundtrip"), memory
// ("pageable", "pinned") and chain length.
func (t *Torch) Find(mode, memory string, stages int) (time.Duration, bool) {
	for _, x := range t.Results {
		if x.Mode == mode && x.Memory == memory && x.Stages == stages {
			return time.Duration(x.MedianMS * 1e6), true
		}
	}
	return 0, false
}

// Goal is one target of the residency benchmark, always like with like:
// our chain on Go memory against PyTorch's resident chain on pageable
// memory (≤ 0.8×), and ours on pinned memory against PyTorch's best on
// pinned memory, torch.compile where the file has it, else eager (≤ 1.0×).
// Ours is the faster of our modes that do the chain's whole work and move
// what it moves, resident and streamed, and Mode says which.
type Goal struct {
	Memory Memory
	Mode   Mode
	Bands  int    // Mode's bands when it is Streamed
	Label  string // the mode as the table names it (with a streamed cut's thin bands)
	Ours   time.Duration
	Torch  time.Duration
	// Peer names what Torch is: "eager pageable", "torch.compile pinned"...
	Peer   string
	Ratio  float64
	Target float64
	Met    bool
}

// Compiled is the mode torch_chain.py gives its resident chain run as one
// torch.compile'd function.
const Compiled = "compiled"

// Goals returns the targets that the report and t both have figures for.
func Goals(r *Report, t *Torch) []Goal {
	var gs []Goal
	for _, g := range []Goal{{Memory: GoMemory, Target: 0.8}, {Memory: Pinned, Target: 1.0}} {
		x, ok := r.Find(Resident, g.Memory, r.Stages)
		if s, sok := r.Find(Streamed, g.Memory, r.Stages); sok && (!ok || s.Time.Median < x.Time.Median) {
			x, ok = s, true
		}
		if !ok {
			continue
		}
		g.Mode, g.Bands, g.Label = x.Mode, x.Bands, modeLabel(x)
		mem := torchMemory(g.Memory)
		ref, ok := time.Duration(0), false
		if g.Memory == Pinned {
			ref, ok = t.Find(Compiled, mem, t.Stages)
			g.Peer = "torch.compile " + mem
		}
		if !ok {
			ref, ok = t.Find("resident", mem, t.Stages)
			g.Peer = "eager " + mem
		}
		if !ok || ref <= 0 {
			continue
		}
		g.Ours, g.Torch = x.Time.Median, ref
		g.Ratio = float64(g.Ours) / float64(ref)
		g.Met = g.Ratio <= g.Target
		gs = append(gs, g)
	}
	return gs
}

// WriteComparison writes a markdown table of our medians beside PyTorch's
// for each mode and host memory of the full chain, and the goals.
func WriteComparison(w io.Writer, r *Report, t *Torch) error {
	p := &errWriter{w: w}
	mixed := t.Chain == "mixed"
	if mixed {
		p.printf("\n**Against PyTorch %s on %s** (same chain: saturating +k → float32 → × scale → sum, %d×%d uint8, upload included, only the sum comes back)\n", t.Version, t.Device, t.Width, t.Height)
	} else {
		p.printf("\n**Against PyTorch %s on %s** (same chain: %d × saturating +k, %d×%d uint8, upload and download included)\n", t.Version, t.Device, t.Stages, t.Width, t.Height)
	}
	if r.stagesDiffer() != mixed {
		p.printf("\nWarning: PyTorch ran the %s chain, we ran %s: ratios are not like for like.\n", t.chainName(), chainLabel(r))
	}
	// A mixed chain is one chain however it is cut (a fused run has two
	// stages where PyTorch lists four).
	if t.Width != r.Width || t.Height != r.Height || (!mixed && t.Stages != r.Stages) {
		p.printf("\nWarning: PyTorch ran %d stages on %d×%d, we ran %d on %d×%d: ratios are not like for like.\n", t.Stages, t.Width, t.Height, r.Stages, r.Width, r.Height)
	}
	p.printf("\n| mode | host memory | ours median ms | PyTorch median ms | ours ÷ PyTorch | round trip ÷ resident (ours / PyTorch) | torch.compile ms | ours ÷ torch.compile |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, mode := range []Mode{Resident, RoundTrip, Streamed} {
		for _, mem := range Memories {
			x, ok := r.Find(mode, mem, r.Stages)
			peer := mode // PyTorch does not stream: its resident chain does the same work
			if mode == Streamed {
				peer = Resident
			}
			y, ok2 := t.Find(peer.String(), torchMemory(mem), t.Stages)
			if !ok || !ok2 {
				continue
			}
			rt := "–"
			if mode == RoundTrip {
				ty, _ := t.Find("resident", torchMemory(mem), t.Stages)
				if ty > 0 {
					rt = fmt.Sprintf("%.1f / %.1f", x.VsResident, float64(y)/float64(ty))
				}
			}
			cm, cr := "–", "–"
			if c, ok := t.Find(Compiled, torchMemory(mem), t.Stages); ok && peer == Resident && c > 0 {
				cm, cr = ms(c), fmt.Sprintf("%.2f", float64(x.Time.Median)/float64(c))
			}
			p.printf("| %s | %s / %s | %s | %s | %.2f | %s | %s | %s |\n", modeLabel(x), mem, torchMemory(mem), ms(x.Time.Median), ms(y), float64(x.Time.Median)/float64(y), rt, cm, cr)
		}
	}
	if gs := Goals(r, t); len(gs) > 0 {
		p.printf("\nGoals (our faster of resident and streamed ÷ PyTorch resident, like with like: Go memory against pageable, pinned against pinned):\n\n")
		for _, g := range gs {
			verdict := "met"
			if !g.Met {
				verdict = "NOT met"
			}
			p.printf("- %s memory, %s: %s ms ÷ %s ms (PyTorch %s) = %.2f× (goal ≤ %.1f×): %s\n", g.Memory, g.Label, ms(g.Ours), ms(g.Torch), g.Peer, g.Ratio, g.Target, verdict)
		}
	}
	return p.err
}
