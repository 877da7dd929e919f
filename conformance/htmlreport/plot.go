package htmlreport

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/simabi/simabi/conformance/speed"
)

// The speed comparison's plots: one row per entry timed (the first on
// top), each value a median with its 95 % interval, drawn against the
// band a ratio must leave to be a difference (speed.Verdict).

var (
	colourSlower = color.RGBA{R: 0xc6, G: 0x28, B: 0x28, A: 0xff}
	colourFaster = color.RGBA{R: 0x2e, G: 0x7d, B: 0x32, A: 0xff}
	colourSame   = color.RGBA{R: 0x15, G: 0x65, B: 0xc0, A: 0xff}
	colourOld    = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
	colourRound  = color.RGBA{R: 0x60, G: 0x60, B: 0x60, A: 0x80}
	colourBand   = color.RGBA{R: 0xdd, G: 0xdd, B: 0xdd, A: 0xff}
)

// plotDPI draws the PNGs at twice a screen's 96 dots per inch: sharp on a
// dense screen, shown at their size in points.
const plotDPI = 192

// verdictColour is NEW's colour: red slower, green faster, blue the same.
func verdictColour(v string) color.Color {
	switch v {
	case speed.Slower:
		return colourSlower
	case speed.Faster:
		return colourFaster
	}
	return colourSame
}

// interval is one median with its interval, at row y.
type interval struct {
	y, mid, lo, hi float64
	colour         color.Color
	glyph          draw.GlyphDrawer
}

// rows is a plot with one row per entry, log scale across; err is the
// first plotter that could not be made (the later adds do nothing).
type rows struct {
	*plot.Plot
	n   int
	err error
}

func rowPlot(es []speed.EntryReport, x string) *rows {
	p := plot.New()
	p.X.Label.Text = x
	p.X.Scale = plot.LogScale{}
	names := make([]string, len(es))
	for i, e := range es {
		names[len(es)-1-i] = e.Name // row(i)
	}
	p.NominalY(names...)
	// Room above the entries for the legend.
	p.Y.Min, p.Y.Max = -0.6, float64(len(es))+1.1
	p.Add(plotter.NewGrid())
	return &rows{Plot: p, n: len(es)}
}

// row is entry i's y: the first entry on top.
func (r *rows) row(i int) float64 { return float64(r.n - 1 - i) }

// add adds what make makes, unless an earlier make failed.
func (r *rows) add(what string, make func() (plot.Plotter, error)) {
	if r.err != nil {
		return
	}
	pl, err := make()
	if err != nil {
		r.err = fmt.Errorf("%s: %v", what, err)
		return
	}
	r.Add(pl)
}

// ratioPlot plots per entry NEW/OLD and the noise OLD'/OLD, each the
// median of its per-round ratios with its 95 % interval, over the band
// (grey) the ratio must leave to be a difference.
func ratioPlot(es []speed.EntryReport) (template.URL, error) {
	p := rowPlot(es, "NEW/OLD per call (log scale)")
	lo, hi := 1.0, 1.0
	for i, e := range es {
		y := p.row(i)
		p.band(e.BandLo, e.BandHi, y)
		p.intervals(interval{y + 0.17, e.Noise, e.NoiseLo, e.NoiseHi, colourOld, draw.CircleGlyph{}},
			interval{y - 0.17, e.Ratio, e.RatioLo, e.RatioHi, verdictColour(e.Verdict), draw.TriangleGlyph{}})
		lo, hi = min(lo, e.BandLo, e.RatioLo, e.NoiseLo), max(hi, e.BandHi, e.RatioHi, e.NoiseHi)
	}
	// A dashed line across the rows at 1.
	p.add("the mark", func() (plot.Plotter, error) {
		l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(len(es)) - 0.5}})
		if err == nil {
			l.Dashes, l.Color = []vg.Length{vg.Points(3), vg.Points(3)}, colourOld
		}
		return l, err
	})
	legend(p.Plot, "OLD'/OLD: the noise", "NEW/OLD", "no difference inside")
	p.X.Min, p.X.Max = lo/1.1, hi*1.1
	p.X.Tick.Marker = ratioTicks
	return p.png()
}

// timePlot plots per entry the time of a call on OLD and on NEW, each the
// median of the rounds' times (the dots) with its 95 % interval, over
// OLD's median times the band: where NEW's median stands when its ratio
// leaves the band.
func timePlot(es []speed.EntryReport) (template.URL, error) {
	p := rowPlot(es, "time per call (log scale)")
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, e := range es {
		y := p.row(i)
		om, olo, ohi := e.RoundMedian(speed.SideOld)
		nm, nlo, nhi := e.RoundMedian(speed.SideNew)
		p.band(om*e.BandLo, om*e.BandHi, y)
		p.rounds(e.OldRoundNs, y+0.17)
		p.rounds(e.NewRoundNs, y-0.17)
		p.intervals(interval{y + 0.17, om, olo, ohi, colourOld, draw.CircleGlyph{}},
			interval{y - 0.17, nm, nlo, nhi, verdictColour(e.Verdict), draw.TriangleGlyph{}})
		all := slices.Concat([]float64{om * e.BandLo, om * e.BandHi}, e.OldRoundNs, e.NewRoundNs)
		lo, hi = min(lo, slices.Min(all)), max(hi, slices.Max(all))
	}
	legend(p.Plot, "OLD", "NEW", "OLD × the band")
	p.X.Min, p.X.Max = lo/1.3, hi*1.3
	p.X.Tick.Marker = plot.TickerFunc(nsTicks)
	return p.png()
}

// band shades [lo, hi] across row y.
func (r *rows) band(lo, hi, y float64) {
	r.add(fmt.Sprintf("the band of row %v", y), func() (plot.Plotter, error) {
		b, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: y - 0.4}, {X: hi, Y: y - 0.4}, {X: hi, Y: y + 0.4}, {X: lo, Y: y + 0.4}})
		if err == nil {
			b.Color, b.LineStyle.Width = colourBand, 0
		}
		return b, err
	})
}

// intervals draws each median as its glyph with its interval as a bar.
func (r *rows) intervals(is ...interval) {
	for _, in := range is {
		pt := errPoint{x: in.mid, y: in.y, lo: in.mid - in.lo, hi: in.hi - in.mid}
		what := fmt.Sprintf("the interval %v [%v, %v]", in.mid, in.lo, in.hi)
		r.add(what, func() (plot.Plotter, error) {
			bars, err := plotter.NewXErrorBars(pt)
			if err == nil {
				bars.Color, bars.Width, bars.CapWidth = in.colour, vg.Points(1.5), vg.Points(6)
			}
			return bars, err
		})
		r.add(what, func() (plot.Plotter, error) {
			s, err := plotter.NewScatter(pt)
			if err == nil {
				s.GlyphStyle = draw.GlyphStyle{Color: in.colour, Radius: vg.Points(3.5), Shape: in.glyph}
			}
			return s, err
		})
	}
}

// rounds draws a side's round times as small dots on row y.
func (r *rows) rounds(xs []float64, y float64) {
	r.add("the rounds", func() (plot.Plotter, error) {
		xys := make(plotter.XYs, len(xs))
		for i, x := range xs {
			xys[i] = plotter.XY{X: x, Y: y}
		}
		s, err := plotter.NewScatter(xys)
		if err == nil {
			s.GlyphStyle = draw.GlyphStyle{Color: colourRound, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
		}
		return s, err
	})
}

// legend names the old side's glyph, the new side's and the band.
func legend(p *plot.Plot, old, new, band string) {
	o, _ := plotter.NewScatter(plotter.XYs{{}})
	o.GlyphStyle = draw.GlyphStyle{Color: colourOld, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
	n, _ := plotter.NewScatter(plotter.XYs{{}})
	n.GlyphStyle = draw.GlyphStyle{Color: colourSame, Radius: vg.Points(3.5), Shape: draw.TriangleGlyph{}}
	b, _ := plotter.NewPolygon(plotter.XYs{{}, {X: 1}, {X: 1, Y: 1}})
	b.Color, b.LineStyle.Width = colourBand, 0
	p.Legend.Add(old, o)
	p.Legend.Add(new+" (red slower, green faster, blue the same)", n)
	p.Legend.Add(band, b)
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
}

// png draws the plot, sized for its rows, as a PNG data URI.
func (r *rows) png() (template.URL, error) {
	if r.err != nil {
		return "", r.err
	}
	c := vgimg.NewWith(vgimg.UseWH(6*vg.Inch, vg.Length(1.6+0.45*float64(r.n))*vg.Inch), vgimg.UseDPI(plotDPI))
	r.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return "", err
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())), nil
}

// errPoint is one point with its interval, as the error bars take it.
type errPoint struct{ x, y, lo, hi float64 }

func (e errPoint) Len() int                      { return 1 }
func (e errPoint) XY(int) (float64, float64)     { return e.x, e.y }
func (e errPoint) XError(int) (float64, float64) { return e.lo, e.hi }

// ratioTicks marks the ratios a reader compares against.
var ratioTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, v := range []float64{0.1, 0.2, 0.5, 0.8, 1, 1.25, 2, 5, 10} {
		if v >= lo && v <= hi {
			ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprintf("%g", v)})
		}
	}
	return ts
})

// nsTicks marks 1, 2, 3 and 5 times the powers of ten, in time units.
func nsTicks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for p := math.Pow(10, math.Floor(math.Log10(lo))); p <= hi; p *= 10 {
		for _, m := range []float64{1, 2, 3, 5} {
			if v := m * p; v >= lo && v <= hi {
				ts = append(ts, plot.Tick{Value: v, Label: speed.NsText(v)})
			}
		}
	}
	return ts
}
