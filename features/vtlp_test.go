package features

import (
	"math"
	"testing"
)

func TestWarpMelIdentity(t *testing.T) {
	c := DefaultConfig()
	x := make([]float32, 3*c.NumMel)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	y := append([]float32(nil), x...)
	WarpMel(y, 3, c, 1)
	for i := range x {
		if x[i] != y[i] {
			t.Fatalf("alpha 1 changed bin %d", i)
		}
	}
}

// A peak at one bin moves up for alpha > 1 and down for alpha < 1, by
// about the expected number of bins, and the top bin stays put.
func TestWarpMelMovesFormants(t *testing.T) {
	c := DefaultConfig()
	n := c.NumMel
	peakAt := func(alpha float64) int {
		x := make([]float32, n)
		for i := range x {
			d := float64(i - 30)
			x[i] = float32(-d * d / 4)
		}
		WarpMel(x, 1, c, alpha)
		best := 0
		for i := range x {
			if x[i] > x[best] {
				best = i
			}
		}
		return best
	}
	if p := peakAt(1); p != 30 {
		t.Fatalf("alpha 1: peak at %d, want 30", p)
	}
	up, down := peakAt(1.15), peakAt(0.85)
	if !(up > 31 && up < 36) || !(down < 29 && down > 23) {
		t.Errorf("peak at bin 30 moved to %d (alpha 1.15) and %d (alpha 0.85)", up, down)
	}
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i)
	}
	WarpMel(x, 1, c, 0.9)
	if x[n-1] != float32(n-1) {
		t.Errorf("top bin changed to %v", x[n-1])
	}
}
