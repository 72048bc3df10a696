package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// sameBits fails unless got and want agree to within tol·max|want| (tol 0:
// bit for bit). The assembly kernels repeat the Go loops' operations, so
// they agree exactly unless the Go side was compiled with fused
// multiply-adds (GOAMD64=v3), which moves a result by an ulp or so.
func sameBits(t *testing.T, name string, got, want []float32) {
	t.Helper()
	scale := 0.0
	for _, v := range want {
		scale = max(scale, math.Abs(float64(v)))
	}
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); d > 1e-6*scale || math.IsNaN(float64(got[i])) {
			t.Fatalf("%s[%d] = %g, want %g", name, i, got[i], want[i])
		}
	}
}

// TestCellKernels compares every implementation's GRU cell, Add and Adam
// kernels with the portable ones, and the float32 cell with float64, at
// lengths around the vector widths.
func TestCellKernels(t *testing.T) {
	for _, im := range impls {
		for _, H := range []int{1, 3, 8, 9, 16, 31, 64, 77} {
			t.Run(fmt.Sprintf("%s/H%d", im.name, H), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(H), 7))
				gx, gh, hp := randSlice(r, 3*H), randSlice(r, 3*H), randSlice(r, H)
				for i := range gx {
					gx[i] *= 3
				}
				h, rzn, ghn, pre := make([]float32, H), make([]float32, 3*H), make([]float32, H), make([]float32, 3*H)
				gruForward32(im, h, rzn, ghn, pre, gx, gh, hp, H)
				wh, wrzn, wghn, wpre := make([]float32, H), make([]float32, 3*H), make([]float32, H), make([]float32, 3*H)
				gruForward32(implGo, wh, wrzn, wghn, wpre, gx, gh, hp, H)
				sameBits(t, "h", h, wh)
				sameBits(t, "rzn", rzn, wrzn)
				sameBits(t, "ghn", ghn, wghn)
				// float64 reference of the whole cell.
				h64 := make([]float64, H)
				GRUCellForward(h64, make([]float64, 3*H), make([]float64, H), make([]float64, 3*H), to64(gx), to64(gh), to64(hp), H)
				for k := range h64 {
					if d := math.Abs(float64(h[k]) - h64[k]); d > 1e-6 {
						t.Fatalf("h[%d] = %g, float64 %g", k, h[k], h64[k])
					}
				}

				dh, dhp := randSlice(r, H), randSlice(r, H)
				dgx, dgh, dhp1 := make([]float32, 3*H), make([]float32, 3*H), append([]float32(nil), dhp...)
				im.gruBack(dgx, dgh, dhp1, dh, rzn, ghn, hp, H)
				wdgx, wdgh, wdhp := make([]float32, 3*H), make([]float32, 3*H), append([]float32(nil), dhp...)
				gruBackGo(wdgx, wdgh, wdhp, dh, rzn, ghn, hp, H)
				sameBits(t, "dgx", dgx, wdgx)
				sameBits(t, "dgh", dgh, wdgh)
				sameBits(t, "dhprev", dhp1, wdhp)

				sum, wsum := make([]float32, 3*H+1), make([]float32, 3*H+1)
				im.add(sum[:3*H], gx, gh)
				addGo(wsum[:3*H], gx, gh)
				sameBits(t, "add", sum, wsum)
				if sum[3*H] != 0 {
					t.Fatal("add wrote past dst")
				}
				im.tanhGrad(sum[:3*H], rzn, gh, -0.7)
				tanhGradGo(wsum[:3*H], rzn, gh, -0.7)
				sameBits(t, "tanhGrad", sum, wsum)
				im.mul(sum[:3*H], gx, gh)
				mulGo(wsum[:3*H], gx, gh)
				sameBits(t, "mul", sum, wsum)
				if sum[3*H] != 0 {
					t.Fatal("mul wrote past dst")
				}
			})
		}
		for _, n := range vecLens {
			t.Run(fmt.Sprintf("%s/adam%d", im.name, n), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(n), 8))
				p, g, m, v := randSlice(r, n+1), randSlice(r, n+1), randSlice(r, n+1), randSlice(r, n+1)
				for i := range v {
					v[i] *= v[i]
				}
				c := AdamCoef{B1: 0.9, B2: 0.999, C2: 1 - math.Pow(0.999, 7), Step: 1e-3 / (1 - math.Pow(0.9, 7)), Decay: 1 - 1e-5, Eps: 1e-8}
				wp, wm, wv := append([]float32(nil), p...), append([]float32(nil), m...), append([]float32(nil), v...)
				im.adam(p[:n], g[:n], m[:n], v[:n], &c)
				adamGo(wp[:n], g[:n], wm[:n], wv[:n], &c)
				sameBits(t, "p", p, wp)
				sameBits(t, "m", m, wm)
				sameBits(t, "v", v, wv)
			})
		}
	}
}

func to64(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}
