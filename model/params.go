package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/heed-asr/heed/internal/kern"
)

// GRUParams are the views of one GRU (one direction of an encoder layer, or
// the decoder GRU). Gate rows are ordered reset, update, new as in PyTorch.
type GRUParams[F kern.Float] struct {
	In, H int // input size and hidden units
	WIh   []F // (3*H, In)
	WHh   []F // (3*H, H)
	BIh   []F // (3*H)
	BHh   []F // (3*H)
}

// Tensor is one named parameter tensor: a view into Params.Data.
type Tensor[F kern.Float] struct {
	Name  string // e.g. "enc.0.f.w_ih"
	Shape []int  // row-major dimensions, e.g. [384, 240]
	Data  []F    // view of prod(Shape) elements
}

// Params holds every weight of the network in one flat slice with named
// views. Gradients and optimizer moments use the same type and layout.
//
// Tensor order (this is the model-file order), for layer l = 0..EncLayers-1
// and direction d = f (forward), b (backward):
//
//	enc.l.d.w_ih (3H, In_l)  In_0 = Stack*NumMel, In_l = 2H
//	enc.l.d.w_hh (3H, H)
//	enc.l.d.b_ih (3H)
//	enc.l.d.b_hh (3H)
//	ctc.w (V, 2H), ctc.b (V)
//	dec.embed (V, E)
//	dec.gru.w_ih (3D, E+2H), dec.gru.w_hh (3D, D), dec.gru.b_ih (3D), dec.gru.b_hh (3D)
//	att.w (A, D)    query projection W
//	att.v (A, 2H)   key projection V
//	att.u (A, F)    location projection U
//	att.b (A)       energy bias b
//	att.vec (A)     energy vector w
//	att.conv (F, K) location convolution filters
//	out.wo (D, D+2H), out.bo (D), out.w (V, D), out.b (V)
type Params[F kern.Float] struct {
	Cfg  Config
	Data []F // all parameters, in tensor order

	Enc  [][2]GRUParams[F] // per layer: [forward, backward]
	CTCW []F               // (V, 2H)
	CTCB []F               // (V)

	Embed  []F          // (V, E)
	DecGRU GRUParams[F] // In = E+2H, H = D

	AttW    []F // (A, D)
	AttV    []F // (A, 2H)
	AttU    []F // (A, F)
	AttB    []F // (A)
	AttVec  []F // (A)
	AttConv []F // (F, K)

	OutWo []F // (D, D+2H)
	OutBo []F // (D)
	OutW  []F // (V, D)
	OutB  []F // (V)

	tensors []Tensor[F]
}

// NumParams returns the number of scalar parameters of cfg, without
// allocating them. It panics if cfg is invalid (call Validate first).
func NumParams(cfg Config) int {
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	n := 0
	for _, t := range TensorShapes(cfg) {
		n += prod(t.Shape)
	}
	return n
}

// NewParams allocates zeroed parameters for cfg and points the views into
// one flat slice. It panics if cfg is invalid (call Validate first).
func NewParams[F kern.Float](cfg Config) *Params[F] {
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	return newParams[F](cfg, nil)
}

// ParamsFromData points the views of cfg's parameters into data, which must
// hold exactly NumParams(cfg) values in tensor order (as read from a model
// file). data is used, not copied.
func ParamsFromData[F kern.Float](cfg Config, data []F) (*Params[F], error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if n := NumParams(cfg); len(data) != n {
		return nil, fmt.Errorf("model: %d parameter values, config needs %d", len(data), n)
	}
	return newParams(cfg, data), nil
}

// TensorShapes returns the names and shapes of cfg's tensors in file order
// (Data nil) without allocating them, so that a model file's tensors can be
// checked against its config before anything is sized from it. cfg must
// have passed Validate.
func TensorShapes(cfg Config) []Tensor[float32] {
	specs := (&Params[float32]{Cfg: cfg}).layout()
	ts := make([]Tensor[float32], len(specs))
	for i, s := range specs {
		ts[i] = Tensor[float32]{Name: s.name, Shape: s.shape}
	}
	return ts
}

// paramSpec is one tensor of the layout and the view it fills.
type paramSpec[F kern.Float] struct {
	name  string
	shape []int
	dst   *[]F
}

// layout lists p.Cfg's tensors in file order, with the views they fill, and
// sets p.Enc and the GRU sizes.
func (p *Params[F]) layout() []paramSpec[F] {
	cfg := p.Cfg
	H, E, D, A, V := cfg.EncHidden, cfg.EmbedDim, cfg.DecHidden, cfg.AttDim, cfg.V()
	Fl, K := cfg.ConvFilters, cfg.ConvWidth
	var specs []paramSpec[F]
	add := func(name string, dst *[]F, shape ...int) {
		specs = append(specs, paramSpec[F]{name, shape, dst})
	}
	p.Enc = make([][2]GRUParams[F], cfg.EncLayers)
	addGRU := func(prefix string, g *GRUParams[F], in, h int) {
		g.In, g.H = in, h
		add(prefix+".w_ih", &g.WIh, 3*h, in)
		add(prefix+".w_hh", &g.WHh, 3*h, h)
		add(prefix+".b_ih", &g.BIh, 3*h)
		add(prefix+".b_hh", &g.BHh, 3*h)
	}
	for l := range p.Enc {
		in := 2 * H
		if l == 0 {
			in = cfg.InputDim()
		}
		addGRU(fmt.Sprintf("enc.%d.f", l), &p.Enc[l][0], in, H)
		addGRU(fmt.Sprintf("enc.%d.b", l), &p.Enc[l][1], in, H)
	}
	add("ctc.w", &p.CTCW, V, 2*H)
	add("ctc.b", &p.CTCB, V)
	add("dec.embed", &p.Embed, V, E)
	addGRU("dec.gru", &p.DecGRU, E+2*H, D)
	add("att.w", &p.AttW, A, D)
	add("att.v", &p.AttV, A, 2*H)
	add("att.u", &p.AttU, A, Fl)
	add("att.b", &p.AttB, A)
	add("att.vec", &p.AttVec, A)
	add("att.conv", &p.AttConv, Fl, K)
	add("out.wo", &p.OutWo, D, D+2*H)
	add("out.bo", &p.OutBo, D)
	add("out.w", &p.OutW, V, D)
	add("out.b", &p.OutB, V)
	return specs
}

// newParams lays out cfg's tensors over data, or over a new zeroed slice when
// data is nil.
func newParams[F kern.Float](cfg Config, data []F) *Params[F] {
	p := &Params[F]{Cfg: cfg}
	specs := p.layout()
	total := 0
	for _, s := range specs {
		total += prod(s.shape)
	}
	if data == nil {
		data = make([]F, total)
	}
	p.Data = data[:total:total]
	off := 0
	for _, s := range specs {
		n := prod(s.shape)
		*s.dst = p.Data[off : off+n : off+n]
		p.tensors = append(p.tensors, Tensor[F]{Name: s.name, Shape: s.shape, Data: *s.dst})
		off += n
	}
	return p
}

func prod(s []int) int {
	n := 1
	for _, v := range s {
		n *= v
	}
	return n
}

// Tensors lists the named tensors in file order; each Data is a view into
// p.Data.
func (p *Params[F]) Tensors() []Tensor[F] { return p.tensors }

// Zero clears every parameter (used to reset gradient buffers).
func (p *Params[F]) Zero() { clear(p.Data) }

// InitParams returns freshly initialised parameters for cfg, deterministic
// for a seed: GRU weights uniform in ±1/sqrt(H) (PyTorch's GRU init), other
// matrices Xavier-uniform ±sqrt(6/(in+out)), the embedding uniform in
// ±sqrt(3) (unit variance), convolution filters uniform in ±1/sqrt(K), and
// every bias zero. It panics if cfg is invalid.
func InitParams[F kern.Float](cfg Config, seed uint64) *Params[F] {
	p := NewParams[F](cfg)
	rng := rand.New(rand.NewPCG(seed, 0x6865656420696e69))
	uni := func(dst []F, k float64) {
		for i := range dst {
			dst[i] = F((2*rng.Float64() - 1) * k)
		}
	}
	xavier := func(dst []F, out, in int) { uni(dst, math.Sqrt(6/float64(in+out))) }
	gru := func(g *GRUParams[F]) {
		k := 1 / math.Sqrt(float64(g.H))
		uni(g.WIh, k)
		uni(g.WHh, k)
	}
	H, E, D, A, V := cfg.EncHidden, cfg.EmbedDim, cfg.DecHidden, cfg.AttDim, cfg.V()
	for l := range p.Enc {
		gru(&p.Enc[l][0])
		gru(&p.Enc[l][1])
	}
	xavier(p.CTCW, V, 2*H)
	uni(p.Embed, math.Sqrt(3))
	gru(&p.DecGRU)
	xavier(p.AttW, A, D)
	xavier(p.AttV, A, 2*H)
	xavier(p.AttU, A, cfg.ConvFilters)
	xavier(p.AttVec, 1, A)
	uni(p.AttConv, 1/math.Sqrt(float64(cfg.ConvWidth)))
	xavier(p.OutWo, D, D+2*H)
	xavier(p.OutW, V, D)
	_ = E
	return p
}

// CopyFrom copies q's values into p; the layouts must match.
func (p *Params[F]) CopyFrom(q *Params[F]) {
	if len(p.Data) != len(q.Data) {
		panic("model: CopyFrom layout mismatch")
	}
	copy(p.Data, q.Data)
}

// ConvertParams returns p's values converted to element type G.
func ConvertParams[G, F kern.Float](p *Params[F]) *Params[G] {
	q := NewParams[G](p.Cfg)
	for i, v := range p.Data {
		q.Data[i] = G(v)
	}
	return q
}
