package htmlreport

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image/color"
	"math"

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

// ratioPlot plots per entry NEW/OLD and the noise OLD'/OLD, each the
// median of its per-round ratios with its 95 % interval, over the band
// (grey) the ratio must leave to be a difference.
func ratioPlot(es []speed.EntryReport) (template.URL, error) {
	p := rowPlot(es, "NEW/OLD per call (log scale)")
	lo, hi := 1.0, 1.0
	for i, e := range es {
		y := row(i, len(es))
		if err := addBand(p, e.BandLo, e.BandHi, y); err != nil {
			return "", err
		}
		if err := addIntervals(p, []interval{
			{y + 0.17, e.Noise, e.NoiseLo, e.NoiseHi, colourOld, draw.CircleGlyph{}},
			{y - 0.17, e.Ratio, e.RatioLo, e.RatioHi, verdictColour(e.Verdict), draw.TriangleGlyph{}},
		}); err != nil {
			return "", err
		}
		lo, hi = min(lo, e.BandLo, e.RatioLo, e.NoiseLo), max(hi, e.BandHi, e.RatioHi, e.NoiseHi)
	}
	if err := addMark(p, 1, len(es)); err != nil {
		return "", err
	}
	legend(p, "OLD'/OLD: the noise", "NEW/OLD", "no difference inside")
	p.X.Min, p.X.Max = lo/1.1, hi*1.1
	p.X.Tick.Marker = ratioTicks
	return pngURL(p, len(es))
}

// timePlot plots per entry the time of a call on OLD and on NEW, each the
// median of the rounds' times (the dots) with its 95 % interval, over
// OLD's median times the band: where NEW's median stands when its ratio
// leaves the band.
func timePlot(es []speed.EntryReport) (template.URL, error) {
	p := rowPlot(es, "time per call (log scale)")
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, e := range es {
		y := row(i, len(es))
		om, olo, ohi := e.RoundMedian(speed.SideOld)
		nm, nlo, nhi := e.RoundMedian(speed.SideNew)
		if err := addBand(p, om*e.BandLo, om*e.BandHi, y); err != nil {
			return "", err
		}
		if err := addRounds(p, e.OldRoundNs, y+0.17); err != nil {
			return "", err
		}
		if err := addRounds(p, e.NewRoundNs, y-0.17); err != nil {
			return "", err
		}
		if err := addIntervals(p, []interval{
			{y + 0.17, om, olo, ohi, colourOld, draw.CircleGlyph{}},
			{y - 0.17, nm, nlo, nhi, verdictColour(e.Verdict), draw.TriangleGlyph{}},
		}); err != nil {
			return "", err
		}
		lo = min(lo, om*e.BandLo, least(e.OldRoundNs), least(e.NewRoundNs))
		hi = max(hi, om*e.BandHi, most(e.OldRoundNs), most(e.NewRoundNs))
	}
	legend(p, "OLD", "NEW", "OLD × the band")
	p.X.Min, p.X.Max = lo/1.3, hi*1.3
	p.X.Tick.Marker = plot.TickerFunc(nsTicks)
	return pngURL(p, len(es))
}

// rowPlot is a plot with one row per entry, log scale across.
func rowPlot(es []speed.EntryReport, x string) *plot.Plot {
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
	return p
}

// row is entry i's y: the first entry on top.
func row(i, n int) float64 { return float64(n - 1 - i) }

// addBand shades [lo, hi] across row y.
func addBand(p *plot.Plot, lo, hi, y float64) error {
	b, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: y - 0.4}, {X: hi, Y: y - 0.4}, {X: hi, Y: y + 0.4}, {X: lo, Y: y + 0.4}})
	if err != nil {
		return fmt.Errorf("the band of row %v: %v", y, err)
	}
	b.Color, b.LineStyle.Width = colourBand, 0
	p.Add(b)
	return nil
}

// addIntervals draws each median as its glyph with its interval as a bar.
func addIntervals(p *plot.Plot, is []interval) error {
	for _, in := range is {
		pt := errPoint{x: in.mid, y: in.y, lo: in.mid - in.lo, hi: in.hi - in.mid}
		bars, err := plotter.NewXErrorBars(pt)
		if err != nil {
			return fmt.Errorf("the interval %v [%v, %v]: %v", in.mid, in.lo, in.hi, err)
		}
		bars.Color, bars.Width, bars.CapWidth = in.colour, vg.Points(1.5), vg.Points(6)
		s, err := plotter.NewScatter(pt)
		if err != nil {
			return err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: in.colour, Radius: vg.Points(3.5), Shape: in.glyph}
		p.Add(bars, s)
	}
	return nil
}

// addRounds draws a side's round times as small dots on row y.
func addRounds(p *plot.Plot, rounds []float64, y float64) error {
	xys := make(plotter.XYs, len(rounds))
	for i, x := range rounds {
		xys[i] = plotter.XY{X: x, Y: y}
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return fmt.Errorf("the rounds: %v", err)
	}
	s.GlyphStyle = draw.GlyphStyle{Color: colourRound, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
	p.Add(s)
	return nil
}

// addMark draws a dashed line across the rows at x.
func addMark(p *plot.Plot, x float64, n int) error {
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: -0.5}, {X: x, Y: float64(n) - 0.5}})
	if err != nil {
		return err
	}
	l.Dashes, l.Color = []vg.Length{vg.Points(3), vg.Points(3)}, colourOld
	p.Add(l)
	return nil
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

// pngURL draws p, sized for n rows, as a PNG data URI.
func pngURL(p *plot.Plot, n int) (template.URL, error) {
	c := vgimg.NewWith(vgimg.UseWH(6*vg.Inch, vg.Length(1.6+0.45*float64(n))*vg.Inch), vgimg.UseDPI(plotDPI))
	p.Draw(draw.New(c))
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

func least(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func most(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
