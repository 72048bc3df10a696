package train

import (
	"bufio"
	"encoding/json"
	"fmt"
	"image"
	"os"

	"github.com/heed-asr/heed/internal/chart"
)

// PlotLog draws the training curves recorded in the JSON Lines log at
// logPath to a 1200x450 PNG at pngPath: training and dev loss on the
// left, dev CER (percent) and attention sharpness (percent) on the right,
// against updates. It returns an error when the log has no training
// records or the PNG cannot be written (it is replaced atomically).
func PlotLog(logPath, pngPath string) error {
	f, err := os.Open(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	var step, loss, devStep, devLoss, cer, sharp []float64
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
			step = append(step, r.Step)
			loss = append(loss, r.Loss)
		case "dev":
			devStep = append(devStep, r.Step)
			devLoss = append(devLoss, r.DevLoss)
			cer = append(cer, 100*r.DevCER)
			sharp = append(sharp, 100*r.Sharpness)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(loss) == 0 {
		return fmt.Errorf("%s: no training records to plot", logPath)
	}

	const w, h = 1200, 450
	c := chart.New(w, h)
	trainStyle := chart.Style{Color: chart.Colors[0]}
	devStyle := chart.Style{Color: chart.Colors[1], Width: 2}
	left := c.Panel(image.Rect(0, 0, w/2, h))
	left.Title = "loss per character"
	left.XLabel = "update"
	left.YLabel = "loss"
	left.XMin, left.XMax = chart.Extent(step, devStep)
	left.YMin, left.YMax = padded(chart.Extent(loss, devLoss))
	left.Line(step, loss, trainStyle)
	left.Line(devStep, devLoss, devStyle)
	left.Dots(devStep, devLoss, 2, devStyle.Color)
	left.Legend(1, 0, chart.LegendItem{Name: "train", Style: trainStyle}, chart.LegendItem{Name: "dev", Style: devStyle})
	left.Axes()

	cerStyle := chart.Style{Color: chart.Colors[1], Width: 2}
	sharpStyle := chart.Style{Color: chart.Colors[2], Width: 2}
	right := c.Panel(image.Rect(w/2, 0, w, h))
	right.Title = "dev: CER % and sharpness %"
	right.XLabel = "update"
	right.YLabel = "percent"
	right.XMin, right.XMax = left.XMin, left.XMax
	right.YMin, right.YMax = padded(chart.Extent(cer, sharp))
	right.Line(devStep, cer, cerStyle)
	right.Line(devStep, sharp, sharpStyle)
	right.Dots(devStep, cer, 2, cerStyle.Color)
	right.Dots(devStep, sharp, 2, sharpStyle.Color)
	right.Legend(1, 0, chart.LegendItem{Name: "CER", Style: cerStyle}, chart.LegendItem{Name: "sharpness", Style: sharpStyle})
	right.Axes()

	tmp := pngPath + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := c.WritePNG(out); err != nil {
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

// padded widens the range lo..hi by 5% either way so that lines keep off
// the frame.
func padded(lo, hi float64) (float64, float64) {
	d := 0.05 * (hi - lo)
	return lo - d, hi + d
}
