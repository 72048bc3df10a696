package model

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestVocab(t *testing.T) {
	tests := []struct {
		text    string
		ids     []int
		wantErr string
	}{
		{"", []int{}, ""},
		{"a z", []int{3, 1, 28}, ""},
		{"don't", []int{6, 17, 16, 2, 22}, ""},
		{"Hello", nil, `'H'`},
		{"a.b", nil, `'.'`},
		{"é", nil, `'é'`},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			ids, err := Encode(tc.text)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want mention of %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(ids) != len(tc.ids) {
				t.Fatalf("Encode(%q) = %v, %v; want %v", tc.text, ids, err, tc.ids)
			}
			for i := range ids {
				if ids[i] != tc.ids[i] {
					t.Fatalf("Encode(%q) = %v, want %v", tc.text, ids, tc.ids)
				}
			}
			if got := Decode(append(ids, EOS)); got != tc.text {
				t.Fatalf("Decode = %q, want %q", got, tc.text)
			}
		})
	}
	v := DefaultVocab()
	if len(v) != VocabSize || v[EOS] != "<eos>" || v[1] != " " || v[2] != "'" || v[3] != "a" || v[28] != "z" {
		t.Fatalf("vocab %q", v)
	}
}

func TestConfigValidate(t *testing.T) {
	def := DefaultConfig()
	if err := def.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		mod  func(*Config)
	}{
		{"even-conv", func(c *Config) { c.ConvWidth = 30 }},
		{"zero-hidden", func(c *Config) { c.EncHidden = 0 }},
		{"ctc-weight", func(c *Config) { c.CTCWeight = 1.5 }},
		{"dropout", func(c *Config) { c.Dropout = 1 }},
		{"smoothing", func(c *Config) { c.LabelSmoothing = -0.1 }},
		{"window", func(c *Config) { c.WindowLeft, c.WindowRight = 0, 0 }},
		{"vocab", func(c *Config) { c.Vocab = c.Vocab[:5] }},
		{"vocab-order", func(c *Config) { c.Vocab = DefaultVocab(); c.Vocab[3], c.Vocab[4] = "b", "a" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.mod(&c)
			if err := c.Validate(); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	// JSON round trip.
	b, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil || back.Validate() != nil || back.DecodeWindow != def.DecodeWindow || back.ConvWidth != def.ConvWidth {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}

func TestParamsLayout(t *testing.T) {
	cfg := DefaultConfig()
	p := InitParams[float32](cfg, 1)
	off, names := 0, map[string]bool{}
	for _, tn := range p.Tensors() {
		if names[tn.Name] {
			t.Fatalf("duplicate tensor %s", tn.Name)
		}
		names[tn.Name] = true
		n := prod(tn.Shape)
		if len(tn.Data) != n || &tn.Data[0] != &p.Data[off] {
			t.Fatalf("%s: not the view at offset %d", tn.Name, off)
		}
		off += n
		isBias := strings.Contains(tn.Name, ".b_") || strings.HasSuffix(tn.Name, ".b") || strings.HasSuffix(tn.Name, ".bo")
		var nz int
		for _, v := range tn.Data {
			if v != 0 {
				nz++
			}
		}
		if isBias != (nz == 0) {
			t.Errorf("%s: %d non-zero of %d (bias %v)", tn.Name, nz, n, isBias)
		}
	}
	if off != len(p.Data) || off != NumParams(cfg) {
		t.Fatalf("tensors cover %d of %d", off, len(p.Data))
	}
	first, last := p.Tensors()[0], p.Tensors()[len(p.Tensors())-1]
	if first.Name != "enc.0.f.w_ih" || first.Shape[0] != 3*128 || first.Shape[1] != 240 || last.Name != "out.b" {
		t.Fatalf("order: first %s %v, last %s", first.Name, first.Shape, last.Name)
	}
	q := InitParams[float32](cfg, 1)
	for i := range p.Data {
		if p.Data[i] != q.Data[i] {
			t.Fatal("InitParams not deterministic")
		}
	}
	t.Logf("default config: %d parameters", len(p.Data))
}

func TestAdam(t *testing.T) {
	const tol = 1e-12
	cfg := AdamConfig{Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, WeightDecay: 0.1}
	a := NewAdam[float64](2, cfg)
	p := []float64{1, -2}
	grads := [][]float64{{0.5, -1}, {-0.25, 3}}
	const lr = 0.01
	// Reference: textbook AdamW, written out per element.
	want := append([]float64(nil), p...)
	m, v := make([]float64, 2), make([]float64, 2)
	for s, g := range grads {
		a.Update(p, g, lr)
		for i := range want {
			m[i] = 0.9*m[i] + 0.1*g[i]
			v[i] = 0.99*v[i] + 0.01*g[i]*g[i]
			mh := m[i] / (1 - math.Pow(0.9, float64(s+1)))
			vh := v[i] / (1 - math.Pow(0.99, float64(s+1)))
			want[i] = want[i]*(1-lr*0.1) - lr*mh/(math.Sqrt(vh)+1e-8)
		}
	}
	for i := range p {
		if math.Abs(p[i]-want[i]) > 1e-9 {
			t.Errorf("param %d: %.15g, want %.15g", i, p[i], want[i])
		}
	}
	// The parallel update is element-wise, so identical for any split.
	big := 3*4096 + 7
	pa, pb, gr := make([]float64, big), make([]float64, big), make([]float64, big)
	for i := range gr {
		pa[i], gr[i] = math.Sin(float64(i)), math.Cos(float64(3*i))
	}
	copy(pb, pa)
	a1, a3 := NewAdam[float64](big, cfg), NewAdam[float64](big, cfg)
	for range 2 {
		a1.Update(pa, gr, lr)
		a3.UpdateParallel(pb, gr, lr, 3)
	}
	for i := range pa {
		if pa[i] != pb[i] {
			t.Fatalf("parallel update differs at %d", i)
		}
	}
	if a.Step != 2 || math.Abs(a.M[0]-m[0]) > tol || math.Abs(a.V[1]-v[1]) > tol {
		t.Errorf("state step %d m %v v %v", a.Step, a.M, a.V)
	}
}

func TestClipGradNorm(t *testing.T) {
	const tol = 1e-12
	tests := []struct {
		g        []float64
		max      float64
		wantNorm float64
		wantOut  []float64
	}{
		{[]float64{3, 4}, 1, 5, []float64{0.6, 0.8}},
		{[]float64{3, 4}, 10, 5, []float64{3, 4}},
		{[]float64{3, 4}, 0, 5, []float64{3, 4}},
	}
	for _, tc := range tests {
		n := ClipGradNorm(tc.g, tc.max)
		if math.Abs(n-tc.wantNorm) > tol {
			t.Errorf("norm %g, want %g", n, tc.wantNorm)
		}
		for i := range tc.g {
			if math.Abs(tc.g[i]-tc.wantOut[i]) > tol {
				t.Errorf("max %g: clipped %v, want %v", tc.max, tc.g, tc.wantOut)
			}
		}
	}
}

func TestSchedule(t *testing.T) {
	const tol = 1e-12
	tests := []struct {
		s    Schedule
		step int
		want float64
	}{
		{Schedule{Peak: 1, Warmup: 10, Decay: "inv_sqrt"}, 5, 0.5},
		{Schedule{Peak: 1, Warmup: 10, Decay: "inv_sqrt"}, 10, 1},
		{Schedule{Peak: 1, Warmup: 10, Decay: "inv_sqrt"}, 40, 0.5},
		{Schedule{Peak: 1, Warmup: 10, Decay: "cosine", Total: 110, Final: 0.1}, 60, 0.55},
		{Schedule{Peak: 1, Warmup: 10, Decay: "cosine", Total: 110, Final: 0.1}, 500, 0.1},
		{Schedule{Peak: 2, Decay: "constant"}, 7, 2},
	}
	for _, tc := range tests {
		if err := tc.s.Validate(); err != nil {
			t.Fatal(err)
		}
		if got := tc.s.LR(tc.step); math.Abs(got-tc.want) > tol {
			t.Errorf("%+v step %d: %g, want %g", tc.s, tc.step, got, tc.want)
		}
	}
	if (Schedule{Peak: 1, Decay: "linear"}).Validate() == nil {
		t.Error("unknown decay accepted")
	}
}

func TestSpecAugment(t *testing.T) {
	const frames, mel = 50, 10
	s := SpecAugment{FreqMasks: 2, FreqWidth: 3, TimeMasks: 2, TimeWidth: 8, TimeRatio: 0.1}
	apply := func(seed uint64) []float32 {
		f := make([]float32, frames*mel)
		for i := range f {
			f[i] = 1
		}
		s.Apply(f, frames, mel, rand.New(rand.NewPCG(seed, 1)))
		return f
	}
	a, b := apply(3), apply(3)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("not deterministic for a seed")
		}
	}
	// Zeros must form whole columns (frequency) or whole rows (time), within
	// the width limits: at most 2*3 columns and 2*min(8, 5) rows.
	rowZero, colZero := make([]bool, frames), make([]bool, mel)
	var zeroRows, zeroCols int
	for tt := range rowZero {
		rowZero[tt] = true
		for k := 0; k < mel; k++ {
			rowZero[tt] = rowZero[tt] && a[tt*mel+k] == 0
		}
		if rowZero[tt] {
			zeroRows++
		}
	}
	for k := range colZero {
		colZero[k] = true
		for tt := 0; tt < frames; tt++ {
			colZero[k] = colZero[k] && a[tt*mel+k] == 0
		}
		if colZero[k] {
			zeroCols++
		}
	}
	if zeroRows > 10 || zeroCols > 6 {
		t.Fatalf("%d masked frames, %d masked bins", zeroRows, zeroCols)
	}
	for tt := 0; tt < frames; tt++ {
		for k := 0; k < mel; k++ {
			if a[tt*mel+k] == 0 && !rowZero[tt] && !colZero[k] {
				t.Fatalf("stray zero at frame %d bin %d", tt, k)
			}
		}
	}
	masked := 0
	for seed := uint64(0); seed < 20; seed++ {
		for _, v := range apply(seed) {
			if v == 0 {
				masked++
			}
		}
	}
	if masked == 0 {
		t.Fatal("20 seeds masked nothing")
	}
}

func TestDropoutStatistics(t *testing.T) {
	const n, p = 100000, 0.25
	const tol = 0.01
	x := make([]float64, n)
	for i := range x {
		x[i] = 1
	}
	y, mask := make([]float64, n), make([]float64, n)
	dropoutForward(y, mask, x, p, rand.New(rand.NewPCG(1, 2)))
	var zeros int
	var mean float64
	for _, v := range y {
		if v == 0 {
			zeros++
		}
		mean += v / n
	}
	if math.Abs(float64(zeros)/n-p) > tol || math.Abs(mean-1) > tol {
		t.Fatalf("dropped %.3f (want %g), mean %.3f (want 1)", float64(zeros)/n, p, mean)
	}
}

func TestParamsFromData(t *testing.T) {
	cfg := smallConfig()
	p := InitParams[float32](cfg, 9)
	data := append([]float32(nil), p.Data...)
	q, err := ParamsFromData(cfg, data)
	if err != nil {
		t.Fatal(err)
	}
	if &q.Data[0] != &data[0] || q.OutB[len(q.OutB)-1] != p.OutB[len(p.OutB)-1] {
		t.Fatal("not a view of data in tensor order")
	}
	if _, err := ParamsFromData(cfg, data[1:]); err == nil {
		t.Fatal("short data accepted")
	}
}

// TestSpecAugmentMasksPerSecond checks that TimeMasksPerSec scales the
// number of time masks with the length: a 20-s utterance with 1 mask a
// second and masks exactly 10 frames wide loses 20 spans' worth of
// frames, not the 2 of TimeMasks alone.
func TestSpecAugmentMasksPerSecond(t *testing.T) {
	const frames, mel = 2000, 2
	masked := func(s SpecAugment) int {
		f := make([]float32, frames*mel)
		for i := range f {
			f[i] = 1
		}
		n := 0
		for seed := range uint64(20) {
			for i := range f {
				f[i] = 1
			}
			s.Apply(f, frames, mel, rand.New(rand.NewPCG(seed, 7)))
			for tt := 0; tt < frames; tt++ {
				if f[tt*mel] == 0 {
					n++
				}
			}
		}
		return n
	}
	two := masked(SpecAugment{TimeMasks: 2, TimeWidth: 10})
	perSec := masked(SpecAugment{TimeMasks: 2, TimeWidth: 10, TimeMasksPerSec: 1})
	// 20 draws of 2 masks of mean width 5: about 200 frames; of 20 masks:
	// about 2,000 less overlaps.
	if two > 300 || perSec < 1500 {
		t.Fatalf("masked frames over 20 draws: %d with 2 masks, %d with 1 a second", two, perSec)
	}
	if got := masked(SpecAugment{TimeMasks: 2, TimeWidth: 10, TimeMasksPerSec: 0.05}); got != two {
		t.Fatalf("1 mask per 20 s must leave the 2 masks alone: %d frames, want %d", got, two)
	}
}
