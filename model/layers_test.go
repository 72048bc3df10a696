package model

import (
	"math/rand/v2"
	"testing"
)

func TestLinearGrad(t *testing.T) {
	const m, in, out = 3, 4, 5
	rng := rand.New(rand.NewPCG(1, 2))
	x, w, b := randVec(rng, m*in, 1), randVec(rng, out*in, 1), randVec(rng, out, 1)
	r := randVec(rng, m*out, 1)
	y := make([]float64, m*out)
	f := func() float64 { linearForward(y, x, w, b, m, in, out); return weighted(r, y) }
	dx, dw, db := make([]float64, m*in), make([]float64, out*in), make([]float64, out)
	f()
	linearBackward(dx, dw, db, r, x, w, m, in, out)
	for _, c := range []struct {
		name   string
		x, grd []float64
	}{{"x", x, dx}, {"w", w, dw}, {"b", b, db}} {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c.name, c.x, c.grd, f) })
	}
}

func TestEmbedGrad(t *testing.T) {
	const V, E = 6, 3
	ids := []int{1, 4, 1, 0}
	rng := rand.New(rand.NewPCG(3, 4))
	table := randVec(rng, V*E, 1)
	r := randVec(rng, len(ids)*E, 1)
	y := make([]float64, len(ids)*E)
	f := func() float64 { embedForward(y, table, ids, E); return weighted(r, y) }
	d := make([]float64, V*E)
	embedBackward(d, r, ids, E)
	// Rows 2, 3 and 5 are unused and must get exactly zero.
	for _, row := range []int{2, 3, 5} {
		for k := 0; k < E; k++ {
			if d[row*E+k] != 0 {
				t.Errorf("unused row %d has gradient %g", row, d[row*E+k])
			}
		}
	}
	checkGrad(t, "table", table, d, f)
}

func TestStackGrad(t *testing.T) {
	tests := []struct{ frames, mel, stack int }{{7, 2, 3}, {6, 2, 3}, {1, 3, 3}, {5, 2, 1}}
	for _, tc := range tests {
		t.Run("", func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(tc.frames)))
			T := (tc.frames + tc.stack - 1) / tc.stack
			feats := randVec(rng, tc.frames*tc.mel, 1)
			r := randVec(rng, T*tc.stack*tc.mel, 1)
			x := make([]float64, T*tc.stack*tc.mel)
			f := func() float64 { stackForward(x, feats, tc.frames, tc.mel, tc.stack); return weighted(r, x) }
			f()
			// The last row repeats the last frame when frames is not a multiple.
			last := x[(T*tc.stack-1)*tc.mel : T*tc.stack*tc.mel]
			for k, v := range last {
				if v != feats[(tc.frames-1)*tc.mel+k] {
					t.Fatalf("padding: got %v, want last frame", last)
				}
			}
			d := make([]float64, tc.frames*tc.mel)
			stackBackward(d, r, tc.frames, tc.mel, tc.stack)
			checkGrad(t, "feats", feats, d, f)
		})
	}
}

func TestGRUCellGrad(t *testing.T) {
	const in, H = 4, 3
	rng := rand.New(rand.NewPCG(7, 8))
	g := GRUParams[float64]{In: in, H: H, WIh: randVec(rng, 3*H*in, 1), WHh: randVec(rng, 3*H*H, 1),
		BIh: randVec(rng, 3*H, 1), BHh: randVec(rng, 3*H, 1)}
	x, hp := randVec(rng, in, 1), randVec(rng, H, 1)
	r := randVec(rng, H, 1)
	gx, gh, pre, rzn, ghn, h := make([]float64, 3*H), make([]float64, 3*H), make([]float64, 3*H), make([]float64, 3*H), make([]float64, H), make([]float64, H)
	f := func() float64 {
		linearForward(gx, x, g.WIh, g.BIh, 1, in, 3*H)
		linearForward(gh, hp, g.WHh, g.BHh, 1, H, 3*H)
		gruCellForward(h, rzn, ghn, pre, gx, gh, hp, H)
		return weighted(r, h)
	}
	f()
	dgx, dgh := make([]float64, 3*H), make([]float64, 3*H)
	dx, dhp := make([]float64, in), make([]float64, H)
	dg := GRUParams[float64]{WIh: make([]float64, 3*H*in), WHh: make([]float64, 3*H*H), BIh: make([]float64, 3*H), BHh: make([]float64, 3*H)}
	gruCellBackward(dgx, dgh, dhp, r, rzn, ghn, hp, H)
	linearBackward(dhp, dg.WHh, dg.BHh, dgh, hp, g.WHh, 1, H, 3*H)
	linearBackward(dx, dg.WIh, dg.BIh, dgx, x, g.WIh, 1, in, 3*H)
	for _, c := range []struct {
		name   string
		x, grd []float64
	}{{"x", x, dx}, {"hprev", hp, dhp}, {"w_ih", g.WIh, dg.WIh}, {"w_hh", g.WHh, dg.WHh}, {"b_ih", g.BIh, dg.BIh}, {"b_hh", g.BHh, dg.BHh}} {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c.name, c.x, c.grd, f) })
	}
}

func TestGRUDirGrad(t *testing.T) {
	const T, in, H = 5, 3, 4
	for _, reverse := range []bool{false, true} {
		t.Run(map[bool]string{false: "forward", true: "reverse"}[reverse], func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, 10))
			p := GRUParams[float64]{In: in, H: H, WIh: randVec(rng, 3*H*in, 1), WHh: randVec(rng, 3*H*H, 1),
				BIh: randVec(rng, 3*H, 1), BHh: randVec(rng, 3*H, 1)}
			x, h0 := randVec(rng, T*in, 1), randVec(rng, H, 1)
			r, rT := randVec(rng, T*H, 1), randVec(rng, H, 1)
			var c gruDirCache[float64]
			hT := make([]float64, H)
			f := func() float64 {
				gruDirForward(&c, &p, gruHalf{}, x, T, h0, reverse, hT)
				return weighted(r, c.Hs) + weighted(rT, hT)
			}
			f()
			// The final state is the output at the last processed time.
			last := T - 1
			if reverse {
				last = 0
			}
			for k := range hT {
				if hT[k] != c.Hs[last*H+k] {
					t.Fatalf("hT = %v, want output at t=%d", hT, last)
				}
			}
			// hT feeds the gradient of the last processed output.
			dHs := append([]float64(nil), r...)
			addTo(dHs[last*H:last*H+H], rT)
			g := GRUParams[float64]{WIh: make([]float64, 3*H*in), WHh: make([]float64, 3*H*H), BIh: make([]float64, 3*H), BHh: make([]float64, 3*H)}
			dx, dh0 := make([]float64, T*in), make([]float64, H)
			gruDirBackward(&c, &p, &g, dx, dHs, reverse, dh0)
			for _, cc := range []struct {
				name   string
				x, grd []float64
			}{{"x", x, dx}, {"h0", h0, dh0}, {"w_ih", p.WIh, g.WIh}, {"w_hh", p.WHh, g.WHh}, {"b_ih", p.BIh, g.BIh}, {"b_hh", p.BHh, g.BHh}} {
				checkGrad(t, cc.name, cc.x, cc.grd, f)
			}
		})
	}
}

// TestGRUChunked checks that running a direction in two chunks with the
// state carried over equals one run (the latency-controlled encoder's basis).
func TestGRUChunked(t *testing.T) {
	const T, in, H, split = 7, 3, 4, 3
	const tol = 1e-14
	rng := rand.New(rand.NewPCG(11, 12))
	p := GRUParams[float64]{In: in, H: H, WIh: randVec(rng, 3*H*in, 1), WHh: randVec(rng, 3*H*H, 1),
		BIh: randVec(rng, 3*H, 1), BHh: randVec(rng, 3*H, 1)}
	x := randVec(rng, T*in, 1)
	var whole, a, b gruDirCache[float64]
	gruDirForward(&whole, &p, gruHalf{}, x, T, nil, false, nil)
	mid := make([]float64, H)
	gruDirForward(&a, &p, gruHalf{}, x[:split*in], split, nil, false, mid)
	gruDirForward(&b, &p, gruHalf{}, x[split*in:], T-split, mid, false, nil)
	got := append(append([]float64(nil), a.Hs[:split*H]...), b.Hs[:(T-split)*H]...)
	for i, v := range whole.Hs[:T*H] {
		if d := v - got[i]; d > tol || d < -tol {
			t.Fatalf("chunked output %d = %g, whole %g", i, got[i], v)
		}
	}
}

func TestBiGRUGrad(t *testing.T) {
	const T, in, H = 4, 3, 2
	for _, parallel := range []bool{false, true} {
		t.Run(map[bool]string{false: "serial", true: "parallel"}[parallel], func(t *testing.T) {
			rng := rand.New(rand.NewPCG(13, 14))
			var p, g [2]GRUParams[float64]
			for d := range 2 {
				p[d] = GRUParams[float64]{In: in, H: H, WIh: randVec(rng, 3*H*in, 1), WHh: randVec(rng, 3*H*H, 1),
					BIh: randVec(rng, 3*H, 1), BHh: randVec(rng, 3*H, 1)}
				g[d] = GRUParams[float64]{In: in, H: H, WIh: make([]float64, 3*H*in), WHh: make([]float64, 3*H*H), BIh: make([]float64, 3*H), BHh: make([]float64, 3*H)}
			}
			x, r := randVec(rng, T*in, 1), randVec(rng, T*2*H, 1)
			var c biGRUCache[float64]
			f := func() float64 { biGRUForward(&c, &p, [2]gruHalf{}, x, T, parallel); return weighted(r, c.Y) }
			f()
			dx := make([]float64, T*in)
			biGRUBackward(&c, &p, &g, dx, r)
			checkGrad(t, "x", x, dx, f)
			for d := range 2 {
				checkGrad(t, "w_ih", p[d].WIh, g[d].WIh, f)
				checkGrad(t, "w_hh", p[d].WHh, g[d].WHh, f)
				checkGrad(t, "b_ih", p[d].BIh, g[d].BIh, f)
				checkGrad(t, "b_hh", p[d].BHh, g[d].BHh, f)
			}
		})
	}
}

func TestEncoderGrad(t *testing.T) {
	cfg := smallConfig()
	cfg.Dropout = 0.3
	const frames = 7
	for _, train := range []bool{false, true} {
		t.Run(map[bool]string{false: "eval", true: "dropout"}[train], func(t *testing.T) {
			p := randParams(cfg, 15)
			g := NewParams[float64](cfg)
			rng := rand.New(rand.NewPCG(16, 17))
			feats := randVec(rng, frames*cfg.NumMel, 1)
			T := cfg.EncFrames(frames)
			r := randVec(rng, T*cfg.EncDim(), 1)
			var c encCache[float64]
			f := func() float64 {
				var drop *rand.Rand
				if train {
					drop = rand.New(rand.NewPCG(99, 100)) // same mask every evaluation
				}
				encoderForward(&c, p, nil, feats, frames, drop, false)
				return weighted(r, c.Out())
			}
			f()
			dfeats := make([]float64, len(feats))
			encoderBackward(&c, p, g, r, dfeats)
			checkGrad(t, "feats", feats, dfeats, f)
			for i, tn := range p.Tensors() {
				if len(tn.Name) > 4 && tn.Name[:4] == "enc." {
					checkGrad(t, tn.Name, tn.Data, g.Tensors()[i].Data, f)
				}
			}
		})
	}
}

func TestConvGrad(t *testing.T) {
	const T, nf, K = 9, 2, 5
	tests := []struct{ lo, hi int }{{0, T - 1}, {2, 5}, {0, 1}, {7, 8}}
	for _, tc := range tests {
		t.Run("", func(t *testing.T) {
			rng := rand.New(rand.NewPCG(18, uint64(tc.lo)))
			a, filt := randVec(rng, T, 1), randVec(rng, nf*K, 1)
			rows := tc.hi - tc.lo + 1
			r := randVec(rng, rows*nf, 1)
			y := make([]float64, rows*nf)
			f := func() float64 { convForward(y, a, filt, T, tc.lo, tc.hi, nf, K); return weighted(r, y) }
			f()
			da, dfilt := make([]float64, T), make([]float64, nf*K)
			convBackward(dfilt, da, r, a, filt, T, tc.lo, tc.hi, nf, K)
			checkGrad(t, "a", a, da, f)
			checkGrad(t, "filt", filt, dfilt, f)
		})
	}
}

func TestAttentionGrad(t *testing.T) {
	cfg := smallConfig()
	const T = 8
	tests := []struct {
		name   string
		window bool
		pos    int
	}{{"full", false, 0}, {"window-start", true, 0}, {"window-mid", true, 4}, {"window-end", true, 7}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := randParams(cfg, 19)
			g := NewParams[float64](cfg)
			rng := rand.New(rand.NewPCG(20, 21))
			D, A, H2 := cfg.DecHidden, cfg.AttDim, cfg.EncDim()
			s, aPrev := randVec(rng, D, 1), randSoftmax(rng, T)
			vhb, h := randVec(rng, T*A, 1), randVec(rng, T*H2, 1)
			ra, rc := randVec(rng, T, 1), randVec(rng, H2, 1)
			lo, hi := windowOf(&cfg, T, tc.pos, tc.window)
			var c attStep[float64]
			var sc attScratch[float64]
			a, ctx := make([]float64, T), make([]float64, H2)
			f := func() float64 {
				attentionForward(&c, &sc, p, nil, s, aPrev, vhb, h, T, lo, hi, a, ctx)
				return weighted(ra, a) + weighted(rc, ctx)
			}
			f()
			for j := 0; j < T; j++ {
				if (j < lo || j > hi) && a[j] != 0 {
					t.Fatalf("weight %d outside window [%d, %d] is %g", j, lo, hi, a[j])
				}
			}
			ds, daPrev, dvhb, dh := make([]float64, D), make([]float64, T), make([]float64, T*A), make([]float64, T*H2)
			da := append([]float64(nil), ra...)
			dws := make([]float64, A)
			attentionBackward(&c, &sc, p, g, s, aPrev, a, h, T, rc, da, ds, daPrev, dvhb, dh, dws)
			linearBackward(nil, g.AttW, nil, dws, s, p.AttW, 1, D, A)
			checkGrad(t, "s", s, ds, f)
			checkGrad(t, "aPrev", aPrev, daPrev, f)
			checkGrad(t, "vhb", vhb, dvhb, f)
			checkGrad(t, "h", h, dh, f)
			checkGrad(t, "att.w", p.AttW, g.AttW, f)
			checkGrad(t, "att.u", p.AttU, g.AttU, f)
			checkGrad(t, "att.vec", p.AttVec, g.AttVec, f)
			checkGrad(t, "att.conv", p.AttConv, g.AttConv, f)
		})
	}
}

func TestDecoderGrad(t *testing.T) {
	cfg := smallConfig()
	const T = 7
	ys := []int{EOS, 5, 3, 5, 9}
	for _, window := range []bool{false, true} {
		t.Run(map[bool]string{false: "full", true: "window"}[window], func(t *testing.T) {
			p := randParams(cfg, 22)
			g := NewParams[float64](cfg)
			rng := rand.New(rand.NewPCG(23, 24))
			H2, DZ := cfg.EncDim(), cfg.DecHidden+cfg.EncDim()
			h := randVec(rng, T*H2, 1)
			r := randVec(rng, len(ys)*DZ, 1)
			var c decCache[float64]
			f := func() float64 { decoderForward(&c, p, h, T, ys, window); return weighted(r, c.Z) }
			f()
			for i := range ys {
				if rows := c.Att[i].Hi - c.Att[i].Lo + 1; window != (rows < T) {
					t.Fatalf("step %d: window %v but %d of %d frames attended", i, window, rows, T)
				}
			}
			dh := make([]float64, T*H2)
			decoderBackward(&c, p, g, r, dh)
			checkGrad(t, "h", h, dh, f)
			for i, tn := range p.Tensors() {
				if n := tn.Name; n[:4] == "dec." || n[:4] == "att." {
					checkGrad(t, n, tn.Data, g.Tensors()[i].Data, f)
				}
			}
		})
	}
}

func TestOutputGrad(t *testing.T) {
	cfg := smallConfig()
	tgt := []int{4, 1, 4, EOS}
	for _, eps := range []float64{0, 0.1} {
		t.Run("", func(t *testing.T) {
			p := randParams(cfg, 25)
			g := NewParams[float64](cfg)
			rng := rand.New(rand.NewPCG(26, 27))
			N, V, DZ := len(tgt), cfg.V(), cfg.DecHidden+cfg.EncDim()
			z := randVec(rng, N*DZ, 1)
			var c outCache[float64]
			const scale = 0.7
			f := func() float64 {
				outputForward(&c, p, z, N)
				return scale * smoothedCE(nil, c.LogP, tgt, V, eps, 0)
			}
			f()
			dlp := make([]float64, N*V)
			smoothedCE(dlp, c.LogP, tgt, V, eps, scale)
			dz := make([]float64, N*DZ)
			outputBackward(&c, p, g, dlp, dz)
			checkGrad(t, "z", z, dz, f)
			for _, n := range []string{"out.wo", "out.bo", "out.w", "out.b"} {
				checkGrad(t, n, tensorByName(p, n), tensorByName(g, n), f)
			}
		})
	}
}

func tensorByName[F float32 | float64](p *Params[F], name string) []F {
	for _, tn := range p.Tensors() {
		if tn.Name == name {
			return tn.Data
		}
	}
	panic("no tensor " + name)
}
