package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// widenCase is a random network of EncHidden 4, 2 layers, in float64, with
// an utterance, widened to 7 units per direction.
type widenCase struct {
	cfg    Config
	p, q   *Params[float64] // before and after widening
	feats  []float64
	frames int
	ids    []int
}

func newWidenCase(t *testing.T, window bool) *widenCase {
	t.Helper()
	cfg := smallConfig()
	cfg.EncLayers, cfg.EncHidden = 2, 4
	cfg.TrainWindow = window
	c := &widenCase{cfg: cfg, p: randParams(cfg, 31), frames: 23}
	rng := rand.New(rand.NewPCG(32, 33))
	c.feats = randVec(rng, c.frames*cfg.NumMel, 1)
	for range 5 {
		c.ids = append(c.ids, 1+rng.IntN(cfg.V()-1))
	}
	q, err := Widen(c.p, 7, rand.New(rand.NewPCG(34, 35)), 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if q.Cfg.EncHidden != 7 || len(q.Data) != NumParams(q.Cfg) {
		t.Fatalf("widened config has %d units, %d values", q.Cfg.EncHidden, len(q.Data))
	}
	c.q = q
	return c
}

// closeTo reports whether a and b differ by at most 1e-12 (absolutely, or
// relatively for large values).
func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(a)) }

func sameVec(t *testing.T, name string, a, b []float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d values before, %d after", name, len(a), len(b))
	}
	for i := range a {
		if !closeTo(a[i], b[i]) {
			t.Fatalf("%s[%d] = %.17g before, %.17g after", name, i, a[i], b[i])
		}
	}
}

func sameLoss(t *testing.T, name string, a, b Loss) {
	t.Helper()
	if !closeTo(a.Att, b.Att) || !closeTo(a.CTC, b.CTC) || !closeTo(a.Total, b.Total) || a.Chars != b.Chars {
		t.Errorf("%s: loss %+v before, %+v after", name, a, b)
	}
}

// TestWidenKeepsFunction checks that the widened network computes what the
// old one does: the training loss (per utterance and batched), the encoder
// outputs at the old units' places, the CTC log-posteriors, the attention
// keys, greedy decoding with its attention, and forced alignment.
func TestWidenKeepsFunction(t *testing.T) {
	for _, window := range []bool{false, true} {
		t.Run(fmt.Sprintf("window %v", window), func(t *testing.T) {
			c := newWidenCase(t, window)
			H, H2 := 4, 7

			l1, err := NewWorkspace[float64]().ForwardBackward(c.p, c.feats, c.frames, c.ids, nil, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			l2, err := NewWorkspace[float64]().ForwardBackward(c.q, c.feats, c.frames, c.ids, nil, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			sameLoss(t, "ForwardBackward", l1, l2)
			items := []batchItem[float64]{{feats: c.feats, frames: c.frames, ids: c.ids}, {feats: c.feats[:17*c.cfg.NumMel], frames: 17, ids: c.ids[:3]}}
			b1, err := new(batchWorkspace[float64]).forwardBackward(c.p, items, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			b2, err := new(batchWorkspace[float64]).forwardBackward(c.q, items, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			sameLoss(t, "batched forwardBackward", b1, b2)

			m1, m2 := NewNet(c.p), NewNet(c.q)
			e1, e2 := m1.Encode(c.feats, c.frames), m2.Encode(c.feats, c.frames)
			if e1.T != e2.T {
				t.Fatalf("T = %d before, %d after", e1.T, e2.T)
			}
			var mapped []float64 // e2.H at the old units' places
			for f := 0; f < e2.T; f++ {
				row := e2.H[f*2*H2 : (f+1)*2*H2]
				mapped = append(append(mapped, row[:H]...), row[H2:H2+H]...)
			}
			sameVec(t, "encoder output", e1.H, mapped)
			sameVec(t, "CTC log-posteriors", e1.CTCLogProbs, e2.CTCLogProbs)
			sameVec(t, "attention keys", e1.Vhb, e2.Vhb)

			ids1, att1 := m1.Greedy(e1, 12)
			ids2, att2 := m2.Greedy(e2, 12)
			if !slices.Equal(ids1, ids2) || len(att1) != len(att2) {
				t.Fatalf("greedy %v before, %v after", ids1, ids2)
			}
			for i := range att1 {
				sameVec(t, fmt.Sprintf("greedy attention step %d", i), att1[i], att2[i])
			}
			fa1, fa2 := m1.ForceAlign(e1, c.ids), m2.ForceAlign(e2, c.ids)
			for i := range fa1 {
				sameVec(t, fmt.Sprintf("forced alignment step %d", i), fa1[i], fa2[i])
			}
		})
	}
}

// TestWidenNewUnitsLearn checks that the new units start silent but not
// dead: the gradient reaches every kind of weight that reads them, while
// it does not yet reach their own incoming weights (they read nothing back
// until the weights reading them have moved).
func TestWidenNewUnitsLearn(t *testing.T) {
	c := newWidenCase(t, false)
	H, H2, E, D := 4, 7, c.cfg.EmbedDim, c.cfg.DecHidden
	g := NewParams[float64](c.q.Cfg)
	if _, err := NewWorkspace[float64]().ForwardBackward(c.q, c.feats, c.frames, c.ids, g, nil, false); err != nil {
		t.Fatal(err)
	}
	// maxAbs returns the largest |m[r*cols+j]| over all rows r and the new
	// units' columns j = off+H..off+H2-1 and, with both, off+H2+H..off+2*H2-1.
	maxAbs := func(m []float64, cols, off int, both bool) float64 {
		var s float64
		for r := 0; r < len(m)/cols; r++ {
			for u := H; u < H2; u++ {
				s = math.Max(s, math.Abs(m[r*cols+off+u]))
				if both {
					s = math.Max(s, math.Abs(m[r*cols+off+H2+u]))
				}
			}
		}
		return s
	}
	for _, o := range []struct {
		name string
		m    []float64
		cols int
		off  int
		both bool
	}{
		{"ctc.w", g.CTCW, 2 * H2, 0, true},
		{"att.v", g.AttV, 2 * H2, 0, true},
		{"dec.gru.w_ih", g.DecGRU.WIh, E + 2*H2, E, true},
		{"out.wo", g.OutWo, D + 2*H2, D, true},
		{"enc.1.f.w_ih", g.Enc[1][0].WIh, 2 * H2, 0, true},
		{"enc.1.b.w_ih", g.Enc[1][1].WIh, 2 * H2, 0, true},
		{"enc.1.f.w_hh", g.Enc[1][0].WHh, H2, 0, false},
		{"enc.0.b.w_hh", g.Enc[0][1].WHh, H2, 0, false},
	} {
		if s := maxAbs(o.m, o.cols, o.off, o.both); s == 0 {
			t.Errorf("%s: no gradient on the weights reading the new units", o.name)
		}
	}
	// The new units' own rows get no gradient yet.
	for l := range g.Enc {
		for d := range g.Enc[l] {
			e := &g.Enc[l][d]
			for gate := 0; gate < 3; gate++ {
				for u := H; u < H2; u++ {
					r := gate*H2 + u
					for _, v := range slices.Concat(e.WIh[r*e.In:(r+1)*e.In], e.WHh[r*H2:(r+1)*H2], e.BIh[r:r+1], e.BHh[r:r+1]) {
						if v != 0 {
							t.Fatalf("enc.%d.%d: new unit %d gate %d has gradient %g", l, d, u, gate, v)
						}
					}
				}
			}
		}
	}
}

// TestWidenLayout checks where the values go: with rng nil (Adam's
// moments) every old value appears once and everything new is 0; with an
// rng only the new units' incoming weights differ from that, and all of them
// are non-zero and small.
func TestWidenLayout(t *testing.T) {
	cfg := smallConfig()
	cfg.EncLayers, cfg.EncHidden = 2, 4
	H, H2 := 4, 7
	p := NewParams[float64](cfg)
	for i := range p.Data {
		p.Data[i] = float64(i + 1) // distinct and non-zero
	}
	m, err := Widen(p, H2, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, v := range m.Data {
		if v != 0 {
			got = append(got, v)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, p.Data) {
		t.Fatalf("widened moments hold %d non-zero values, want the %d old ones each once", len(got), len(p.Data))
	}
	// Spot checks written out: the backward units' columns and the gate rows.
	V, E := cfg.V(), cfg.EmbedDim
	for v := 0; v < V; v++ {
		for j := 0; j < H; j++ {
			if m.CTCW[v*2*H2+H2+j] != p.CTCW[v*2*H+H+j] || m.CTCW[v*2*H2+j] != p.CTCW[v*2*H+j] {
				t.Fatalf("ctc.w row %d unit %d misplaced", v, j)
			}
		}
	}
	for r := 0; r < 3*cfg.DecHidden; r++ {
		for j := 0; j < H; j++ {
			if m.DecGRU.WIh[r*(E+2*H2)+E+H2+j] != p.DecGRU.WIh[r*(E+2*H)+E+H+j] {
				t.Fatalf("dec.gru.w_ih row %d backward unit %d misplaced", r, j)
			}
		}
	}
	for gate := 0; gate < 3; gate++ {
		for u := 0; u < H; u++ {
			if m.Enc[1][1].BHh[gate*H2+u] != p.Enc[1][1].BHh[gate*H+u] {
				t.Fatalf("enc.1.b.b_hh gate %d unit %d misplaced", gate, u)
			}
		}
	}

	const scale = 0.01
	w, err := Widen(p, H2, rand.New(rand.NewPCG(1, 2)), scale)
	if err != nil {
		t.Fatal(err)
	}
	k := scale / math.Sqrt(float64(H2))
	for l := range w.Enc {
		for d := range w.Enc[l] {
			a, b := &w.Enc[l][d], &m.Enc[l][d]
			for gate := 0; gate < 3; gate++ {
				for u := H; u < H2; u++ {
					r := gate*H2 + u
					for _, rows := range [][2][]float64{
						{a.WIh[r*a.In : (r+1)*a.In], b.WIh[r*a.In : (r+1)*a.In]},
						{a.WHh[r*H2 : (r+1)*H2], b.WHh[r*H2 : (r+1)*H2]},
					} {
						for i, v := range rows[0] {
							if v == 0 || math.Abs(v) > k {
								t.Fatalf("enc.%d.%d new unit %d gate %d weight %g, want non-zero within ±%g", l, d, u, gate, v, k)
							}
							rows[0][i] = rows[1][i] // so that the rest can be compared whole
						}
					}
				}
			}
		}
	}
	if !slices.Equal(w.Data, m.Data) {
		t.Error("widening with an rng changes more than the new units' incoming weights")
	}

	same, err := Widen(p, H, rand.New(rand.NewPCG(1, 2)), scale)
	if err != nil || !slices.Equal(same.Data, p.Data) || &same.Data[0] == &p.Data[0] {
		t.Errorf("widening to the same width does not give a copy (err %v)", err)
	}
	if _, err := Widen(p, H-1, nil, 0); err == nil {
		t.Error("narrowing succeeded")
	}
}
