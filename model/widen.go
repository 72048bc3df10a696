package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/heed-asr/heed/internal/kern"
)

// Widen returns a copy of p whose encoder has encHidden GRU units per
// direction instead of p.Cfg.EncHidden, computing exactly what p computes
// (function-preserving widening, "Net2Net", Chen et al. 2016): the same
// encoder outputs at the old units' new places, CTC posteriors, attention
// and losses. encHidden must be at least p.Cfg.EncHidden; equal gives a
// copy.
//
// With H old and H' new units per direction, every old value keeps its
// value at its new place:
//
//   - a GRU's gate rows r, z, n of unit k move from g·H+k to g·H'+k; its
//     recurrent columns stay at 0..H-1;
//   - every 2H-wide encoder vector becomes 2H' wide, the forward units at
//     0..H-1 and the backward units at H'..H'+H-1, so the columns reading
//     it move likewise: enc.l.d.w_ih (l > 0), ctc.w, att.v, and the
//     encoder-context columns of dec.gru.w_ih (after the E embedding
//     columns) and out.wo (after the D state columns);
//   - tensors whose shape does not involve H are copied as they are.
//
// The new units' incoming weights (their w_ih and w_hh rows, all three
// gates) are drawn uniform in ±scale/sqrt(H'), scale times InitParams' GRU
// bound, so that the units are not dead; their biases are 0. Every weight
// reading a new unit from an old one or from the decoder and CTC head is 0,
// so the new units start silent and learn from the gradient on those
// weights. With rng nil every new value is 0: that widens tensors shaped like
// Params that are not weights, such as Adam's moments (ParamsFromData over
// Adam.M or Adam.V).
func Widen[F kern.Float](p *Params[F], encHidden int, rng *rand.Rand, scale float64) (*Params[F], error) {
	cfg := p.Cfg
	H := cfg.EncHidden
	if encHidden < H {
		return nil, fmt.Errorf("model: cannot widen the encoder from %d to %d units: fewer units cannot compute the same", H, encHidden)
	}
	cfg.EncHidden = encHidden
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	q := NewParams[F](cfg)
	H2 := encHidden

	// Tensors whose shape does not involve H keep theirs.
	qt := q.Tensors()
	for i, t := range p.Tensors() {
		if slices.Equal(t.Shape, qt[i].Shape) {
			copy(qt[i].Data, t.Data)
		}
	}
	if H2 == H {
		return q, nil
	}

	same := func(j int) int { return j }
	gateRow := func(r int) int { return r/H*H2 + r%H }
	encCol := func(j int) int { // column j of an old 2H-wide encoder vector
		if j < H {
			return j
		}
		return j - H + H2
	}
	after := func(n int) func(int) int { // n leading columns, then an encoder vector
		return func(j int) int {
			if j < n {
				return j
			}
			return n + encCol(j-n)
		}
	}

	k := scale / math.Sqrt(float64(H2))
	for l := range p.Enc {
		inCol := encCol
		if l == 0 {
			inCol = same
		}
		for d := range p.Enc[l] {
			g, h := &p.Enc[l][d], &q.Enc[l][d]
			place(h.WIh, g.WIh, 3*H, g.In, h.In, gateRow, inCol)
			place(h.WHh, g.WHh, 3*H, H, H2, gateRow, same)
			place(h.BIh, g.BIh, 3*H, 1, 1, gateRow, same)
			place(h.BHh, g.BHh, 3*H, 1, 1, gateRow, same)
			if rng == nil {
				continue
			}
			for gate := 0; gate < 3; gate++ {
				for u := H; u < H2; u++ {
					r := gate*H2 + u
					uniform(h.WIh[r*h.In:(r+1)*h.In], rng, k)
					uniform(h.WHh[r*H2:(r+1)*H2], rng, k)
				}
			}
		}
	}
	V, E, D, A := cfg.V(), cfg.EmbedDim, cfg.DecHidden, cfg.AttDim
	place(q.CTCW, p.CTCW, V, 2*H, 2*H2, same, encCol)
	place(q.DecGRU.WIh, p.DecGRU.WIh, 3*D, E+2*H, E+2*H2, same, after(E))
	place(q.AttV, p.AttV, A, 2*H, 2*H2, same, encCol)
	place(q.OutWo, p.OutWo, D, D+2*H, D+2*H2, same, after(D))
	return q, nil
}

// place copies src (rows, cols) into dst (?, dstCols), element (r, c) to
// (row(r), col(c)).
func place[F kern.Float](dst, src []F, rows, cols, dstCols int, row, col func(int) int) {
	for r := 0; r < rows; r++ {
		d := row(r) * dstCols
		for c, v := range src[r*cols : (r+1)*cols] {
			dst[d+col(c)] = v
		}
	}
}

// uniform fills dst uniform in ±k.
func uniform[F kern.Float](dst []F, rng *rand.Rand, k float64) {
	for i := range dst {
		dst[i] = F((2*rng.Float64() - 1) * k)
	}
}
