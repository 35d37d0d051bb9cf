package bench

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WritePlot draws the median time per iteration against the number of
// stages, one line per mode and host memory (solid: Go memory, dashed:
// pinned), and writes it as a PNG.
func WritePlot(w io.Writer, r *Report) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s chain, %d×%d uint8", r.Device, stageList(r), r.Width, r.Height)
	p.X.Label.Text = "stages"
	p.Y.Label.Text = "median time per iteration (ms)"
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true

	type key struct {
		m   Mode
		mem Memory
	}
	var keys []key
	pts := map[key]plotter.XYs{}
	for _, x := range r.Results {
		k := key{x.Mode, x.Memory}
		if _, ok := pts[k]; !ok {
			keys = append(keys, k)
		}
		pts[k] = append(pts[k], plotter.XY{X: float64(x.Stages), Y: float64(x.Time.Median) / 1e6})
	}
	if len(keys) == 0 {
		return fmt.Errorf("bench: nothing to plot: the report has no results")
	}
	for _, k := range keys {
		l, s, err := plotter.NewLinePoints(pts[k])
		if err != nil {
			return err
		}
		c := plotutil.Color(int(k.m))
		l.Color, s.Color = c, c
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
