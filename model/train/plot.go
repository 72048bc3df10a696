package train

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// PlotLog draws the training curves recorded in the JSON Lines log at
// logPath to a PNG at pngPath: training and dev loss on the left, dev CER
// (percent) and attention sharpness on the right, against updates.
func PlotLog(logPath, pngPath string) error {
	f, err := os.Open(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	var loss, devLoss, cer, sharp plotter.XYs
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		var r struct {
			Kind      string  `json:"kind"`
			Step      float64 `json:"step"`
			Loss      float64 `json:"loss"`
			DevLoss   float64 `json:"dev_loss"`
			DevCER    float64 `json:"dev_cer"`
			Sharpness float64 `json:"sharpness"`
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch r.Kind {
		case "train":
			loss = append(loss, plotter.XY{X: r.Step, Y: r.Loss})
		case "dev":
			devLoss = append(devLoss, plotter.XY{X: r.Step, Y: r.DevLoss})
			cer = append(cer, plotter.XY{X: r.Step, Y: 100 * r.DevCER})
			sharp = append(sharp, plotter.XY{X: r.Step, Y: 100 * r.Sharpness})
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(loss) == 0 {
		return fmt.Errorf("%s: no training records to plot", logPath)
	}
	left := plot.New()
	left.Title.Text = "loss per character"
	left.X.Label.Text = "update"
	if err := addLines(left, "train", loss, "dev", devLoss); err != nil {
		return err
	}
	right := plot.New()
	right.Title.Text = "dev: CER % and sharpness %"
	right.X.Label.Text = "update"
	if err := addLines(right, "CER", cer, "sharpness", sharp); err != nil {
		return err
	}
	const w, h = 12 * vg.Inch, 4.5 * vg.Inch
	img := vgimg.New(w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2}
	left.Draw(tiles.At(dc, 0, 0))
	right.Draw(tiles.At(dc, 0, 1))
	tmp := pngPath + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(out); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, pngPath)
}

func addLines(p *plot.Plot, name1 string, xy1 plotter.XYs, name2 string, xy2 plotter.XYs) error {
	var args []any
	if len(xy1) > 0 {
		args = append(args, name1, xy1)
	}
	if len(xy2) > 0 {
		args = append(args, name2, xy2)
	}
	if len(args) == 0 {
		return nil
	}
	return plotutil.AddLines(p, args...)
}
