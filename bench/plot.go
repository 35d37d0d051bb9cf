package bench

import (
	"fmt"
	"io"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WritePlot draws the median time per iteration against the number of
// stages, one line per mode and host memory (solid: Go memory, dashed:
// pinned), each point with a bar from its p10 to its p90 time, and writes
// it as a PNG.
func WritePlot(w io.Writer, r *Report) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s chain, %d×%d uint8", r.Device, stageList(r), r.Width, r.Height)
	p.X.Label.Text = "stages"
	p.Y.Label.Text = "median time per iteration (ms; bars: p10–p90)"
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true

	keys, pts := plotSeries(r)
	if len(keys) == 0 {
		return fmt.Errorf("bench: nothing to plot: the report has no results")
	}
	for _, k := range keys {
		l, s, err := plotter.NewLinePoints(pts[k].XYs)
		if err != nil {
			return err
		}
		bars, err := plotter.NewYErrorBars(pts[k])
		if err != nil {
			return err
		}
		c := plotutil.Color(int(k.m))
		l.Color, s.Color, bars.Color = c, c, c
		p.Add(bars)
		l.Width = vg.Points(1.5)
		s.Shape = draw.CircleGlyph{}
		if k.mem == Pinned {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			s.Shape = draw.BoxGlyph{}
		}
		p.Add(l, s)
		p.Legend.Add(fmt.Sprintf("%s, %s memory", k.m, k.mem), l, s)
	}
	p.X.Min, p.Y.Min = 0, 0
	p.Y.Max *= 1.4 // room for the legend above the lines
	p.X.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		var ts []plot.Tick
		for i := 1; i <= r.Stages; i++ {
			ts = append(ts, plot.Tick{Value: float64(i), Label: fmt.Sprint(i)})
		}
		return ts
	})
	wt, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, "png")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// seriesKey is one line of the plot: a mode on a host memory.
type seriesKey struct {
	m   Mode
	mem Memory
}

// spread is a line's points (stages, median ms) with, for each, how far
// its p10 lies below and its p90 above the median: gonum's error bars.
type spread struct {
	plotter.XYs
	plotter.YErrors
}

// plotSeries groups r's results into lines, in their order of first
// appearance.
func plotSeries(r *Report) ([]seriesKey, map[seriesKey]*spread) {
	var keys []seriesKey
	pts := map[seriesKey]*spread{}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	for _, x := range r.Results {
		k := seriesKey{x.Mode, x.Memory}
		sp, ok := pts[k]
		if !ok {
			sp = &spread{}
			pts[k] = sp
			keys = append(keys, k)
		}
		med := ms(x.Time.Median)
		sp.XYs = append(sp.XYs, plotter.XY{X: float64(x.Stages), Y: med})
		sp.YErrors = append(sp.YErrors, struct{ Low, High float64 }{med - ms(x.Time.P10), ms(x.Time.P90) - med})
	}
	return keys, pts
}
