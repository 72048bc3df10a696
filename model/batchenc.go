package model

import (
	"math/rand/v2"
	"os"

	"github.com/heed-asr/heed/internal/kern"
)

// Batched training runs several utterances through the network together, so
// that each recurrent step is one matrix product over the utterances still
// running instead of one matrix-vector product per utterance. The equations
// are those of the per-utterance layers (gru.go, encoder.go, decoder.go);
// only the memory layout differs.

// seqBatch lays out sequences of non-increasing lengths Lens time-major,
// keeping only the sequences still running: step t holds one row for each
// sequence b < Act[t] (those with Lens[b] > t), at rows Off[t]+b. The rows
// of one step are contiguous, and a product over them is one matrix
// product.
type seqBatch struct {
	Lens []int
	Act  []int // (steps) sequences running at step t
	Off  []int // (steps+1) first row of step t; Off[steps] is the row count
}

// init lays out lens, which must be non-increasing.
func (s *seqBatch) init(lens []int) {
	s.Lens = append(s.Lens[:0], lens...)
	steps := 0
	if len(lens) > 0 {
		steps = lens[0]
	}
	s.Act = grow(s.Act, steps)
	s.Off = grow(s.Off, steps+1)
	s.Off[0] = 0
	n := len(lens)
	for t := 0; t < steps; t++ {
		for n > 0 && lens[n-1] <= t {
			n--
		}
		s.Act[t] = n
		s.Off[t+1] = s.Off[t] + n
	}
}

func (s *seqBatch) steps() int { return len(s.Act) }
func (s *seqBatch) rows() int  { return s.Off[len(s.Act)] }

// scatterSeq copies the rows of sequence b, x (Lens[b], w), into the
// time-major rows y (rows, w).
func scatterSeq[F kern.Float](s *seqBatch, y, x []F, b, w int) {
	for t := 0; t < s.Lens[b]; t++ {
		r := s.Off[t] + b
		copy(y[r*w:(r+1)*w], x[t*w:(t+1)*w])
	}
}

// gatherSeq copies the rows of sequence b out of y (rows, w) into
// x (Lens[b], w).
func gatherSeq[F kern.Float](s *seqBatch, x, y []F, b, w int) {
	for t := 0; t < s.Lens[b]; t++ {
		r := s.Off[t] + b
		copy(x[t*w:(t+1)*w], y[r*w:(r+1)*w])
	}
}

// gruPacked holds a GRU's recurrent weight W_hh (3H, H) packed for the
// step products of the forward pass (h·W_hhᵀ) and of the backward pass
// (dgh·W_hh).
type gruPacked[F kern.Float] struct {
	fwd, bwd kern.Packed[F]
	// ih16 and hh16, when not nil, hold W_ih and W_hh rounded to bfloat16
	// for inference (encoderBF16): both products of the forward pass then
	// run on kern.MatMulBF16.
	ih16, hh16 *kern.PackedBF16
}

// encoderBF16 says whether the batched encoder's inference (BatchEncoder:
// the alignment of long audio) runs its products in bfloat16, where the CPU
// has AVX512_BF16 and HEED_BF16 is not "0": twice the multiply-adds of
// float32 per instruction. Rounding every encoder product's operands so
// moved recognition by at most 0.04 CER points and alignment not at all on
// the dev sets (bench/SPEED.md, eleventh pass).
var encoderBF16 = kern.HaveBF16() && os.Getenv("HEED_BF16") != "0"

// packBF16 packs the direction's weights for bfloat16 inference, once:
// from their binary16 copies hw when it is not nil (a frozen network's,
// whose float32 matrices are then never widened), else from p's float32
// matrices.
func (q *gruPacked[F]) packBF16(p *GRUParams[F], hw *gruHalf) {
	if q.ih16 != nil {
		return
	}
	q.ih16, q.hh16 = new(kern.PackedBF16), new(kern.PackedBF16)
	if hw != nil {
		q.ih16.PackHalf(hw.wih)
		q.hh16.PackHalf(hw.whh)
		return
	}
	q.ih16.PackNT(any(p.WIh).([]float32), 3*p.H, p.In)
	q.hh16.PackNT(any(p.WHh).([]float32), 3*p.H, p.H)
}

func (q *gruPacked[F]) pack(w []F, out, in int) {
	q.ih16, q.hh16 = nil, nil // float32 products from here on
	q.fwd.PackNT(w, out, in)
	q.bwd.PackNN(w, out, in)
}

// gruBatchCache holds one GRU direction over a seqBatch; rows as in the
// seqBatch. With infer set (inference, no backward pass) RZN, Ghn and
// Hprev hold one step's rows only, reused at every step.
type gruBatchCache[F kern.Float] struct {
	infer bool
	X     []F // (rows, In) input, borrowed
	Gx    []F // (rows, 3H) W_ih x + b_ih
	RZN   []F // (rows, 3H) gate activations
	Ghn   []F // (rows, H) W_hn h + b_hn
	Hprev []F // (rows, H) state entering the step

	gh, pre  []F // (B, 3H), (3H) scratch
	dGx, dGh []F // (rows, 3H) backward scratch
	carry    []F // (B, H) gradient at the state entering the next step
	dh       []F // (B, H) gradient at the current step's output
}

// gruBatchForward runs one GRU direction over the sequences of x
// (rows, In), each from a zero state; with reverse each sequence runs from
// its last frame down to 0. q holds p.WHh packed. The output of row r goes
// to y[r*ldy : r*ldy+H], this direction's columns of the layer output.
func gruBatchForward[F kern.Float](c *gruBatchCache[F], p *GRUParams[F], q *gruPacked[F], x, y []F, ldy int, sb *seqBatch, reverse bool) {
	H, in, R, S, B := p.H, p.In, sb.rows(), sb.steps(), len(sb.Lens)
	c.X = x[:R*in]
	c.Gx = grow(c.Gx, R*3*H)
	kept := R // rows whose gate state is kept for the backward pass
	if c.infer {
		kept = B
	}
	c.RZN = grow(c.RZN, kept*3*H)
	c.Ghn = grow(c.Ghn, kept*H)
	c.Hprev = grow(c.Hprev, kept*H)
	c.gh = grow(c.gh, B*3*H)
	c.pre = grow(c.pre, 3*H)
	if q.ih16 != nil {
		kern.MatMulBF16(any(c.Gx).([]float32), any(c.X).([]float32), q.ih16, R, false)
		addRows(c.Gx, p.BIh, R, 3*H)
	} else {
		linearForward(c.Gx, c.X, p.WIh, p.BIh, R, in, 3*H)
	}
	for s := 0; s < S; s++ {
		t, tp := s, s-1 // this step and the one before it in running order
		if reverse {
			t, tp = S-1-s, S-s
		}
		n, o := sb.Act[t], sb.Off[t]
		k := o // first row of this step's kept state
		if c.infer {
			k = 0
		}
		hp := c.Hprev[k*H : (k+n)*H]
		np := 0 // sequences that ran the step before; the others start at 0
		if tp >= 0 && tp < S {
			np = min(n, sb.Act[tp])
			for b, r := 0, sb.Off[tp]; b < np; b, r = b+1, r+1 {
				copy(hp[b*H:(b+1)*H], y[r*ldy:r*ldy+H])
			}
		}
		clear(hp[np*H:])
		gh := c.gh[:n*3*H]
		if q.hh16 != nil {
			kern.MatMulBF16(any(gh).([]float32), any(hp).([]float32), q.hh16, n, false)
		} else {
			kern.MatMulPacked(gh, hp, &q.fwd, n, false)
		}
		addRows(gh, p.BHh, n, 3*H)
		for b := 0; b < n; b++ {
			r, kb := o+b, k+b
			gruCellForward(y[r*ldy:r*ldy+H], c.RZN[kb*3*H:(kb+1)*3*H], c.Ghn[kb*H:(kb+1)*H], c.pre,
				c.Gx[r*3*H:(r+1)*3*H], gh[b*3*H:(b+1)*3*H], hp[b*H:(b+1)*H], H)
		}
	}
}

// gruBatchBackward back-propagates dy, the gradient at the outputs y of
// gruBatchForward (same layout), adding into the gradient views g and into
// dx (rows, In) when dx is not nil.
func gruBatchBackward[F kern.Float](c *gruBatchCache[F], p, g *GRUParams[F], q *gruPacked[F], dx, dy []F, ldy int, sb *seqBatch, reverse bool) {
	H, in, R, S, B := p.H, p.In, sb.rows(), sb.steps(), len(sb.Lens)
	c.dGx = grow(c.dGx, R*3*H)
	c.dGh = grow(c.dGh, R*3*H)
	c.carry = growZero(c.carry, B*H)
	c.dh = grow(c.dh, B*H)
	for s := S - 1; s >= 0; s-- {
		t := s
		if reverse {
			t = S - 1 - s
		}
		// Rows of carry beyond the sequences that ran the step after this
		// one (in running order) are zero: nothing wrote them yet.
		n, o := sb.Act[t], sb.Off[t]
		dh, carry := c.dh[:n*H], c.carry[:n*H]
		for b, r := 0, o; b < n; b, r = b+1, r+1 {
			copy(dh[b*H:(b+1)*H], dy[r*ldy:r*ldy+H])
		}
		addTo(dh, carry)
		clear(carry)
		for b := 0; b < n; b++ {
			r := o + b
			gruCellBackward(c.dGx[r*3*H:(r+1)*3*H], c.dGh[r*3*H:(r+1)*3*H], carry[b*H:(b+1)*H], dh[b*H:(b+1)*H],
				c.RZN[r*3*H:(r+1)*3*H], c.Ghn[r*H:(r+1)*H], c.Hprev[r*H:(r+1)*H], H)
		}
		// carry += dgh·W_hh.
		kern.MatMulPacked(carry, c.dGh[o*3*H:(o+n)*3*H], &q.bwd, n, true)
	}
	linearBackward(nil, g.WHh, g.BHh, c.dGh, c.Hprev, p.WHh, R, H, 3*H)
	linearBackward(dx, g.WIh, g.BIh, c.dGx, c.X, p.WIh, R, in, 3*H)
}

// biGRUBatch holds one bidirectional encoder layer over a seqBatch.
type biGRUBatch[F kern.Float] struct {
	Dir [2]gruBatchCache[F]
	Y   []F // (rows, 2H) [forward; backward] outputs
}

func biGRUBatchForward[F kern.Float](c *biGRUBatch[F], p *[2]GRUParams[F], q *[2]gruPacked[F], x []F, sb *seqBatch) {
	H, R := p[0].H, sb.rows()
	c.Y = grow(c.Y, R*2*H)
	gruBatchForward(&c.Dir[0], &p[0], &q[0], x, c.Y, 2*H, sb, false)
	gruBatchForward(&c.Dir[1], &p[1], &q[1], x, c.Y[H:], 2*H, sb, true)
}

// biGRUBatchBackward back-propagates dY (rows, 2H), adding into g and into
// dx (rows, In) when dx is not nil.
func biGRUBatchBackward[F kern.Float](c *biGRUBatch[F], p, g *[2]GRUParams[F], q *[2]gruPacked[F], dx, dY []F, sb *seqBatch) {
	H := p[0].H
	gruBatchBackward(&c.Dir[0], &p[0], &g[0], &q[0], dx, dY, 2*H, sb, false)
	gruBatchBackward(&c.Dir[1], &p[1], &g[1], &q[1], dx, dY[H:], 2*H, sb, true)
}

// encBatch holds the encoder over a batch of utterances, rows laid out by
// sb (utterances by non-increasing encoder frames).
type encBatch[F kern.Float] struct {
	infer   bool // inference only (BatchEncoder): no backward pass will read the gate state
	sb      seqBatch
	L       int // layers
	X0      []F // (rows, Stack*NumMel)
	Layers  []biGRUBatch[F]
	Masks   [][]F // (rows, 2H) dropout mask after layer l, as in encCache
	In      [][]F // (rows, 2H)
	rec     [][2]gruPacked[F]
	packs   [][2]gruPacked[F] // the network's bfloat16 packs (Net.bf16Packs) for inference, or nil
	dropout bool
	dY, dIn []F
}

// encoderBatchForward stacks and encodes the utterances feats[b]
// (frames[b], NumMel), ordered by non-increasing encoder frames. When
// train is set and cfg.Dropout > 0, utterance b draws its dropout masks from
// rngs[b], layer by layer, exactly as encoderForward would. The output is
// c.Out() (rows, 2H).
func encoderBatchForward[F kern.Float](c *encBatch[F], p *Params[F], feats [][]F, frames []int, rngs []*rand.Rand, train bool) {
	cfg := &p.Cfg
	L, in0, H2 := cfg.EncLayers, cfg.InputDim(), cfg.EncDim()
	lens := make([]int, len(frames))
	for b, f := range frames {
		lens[b] = cfg.EncFrames(f)
	}
	c.sb.init(lens)
	sb := &c.sb
	R := sb.rows()
	c.X0 = grow(c.X0, R*in0)
	M, K := cfg.NumMel, cfg.Stack
	for b := range feats {
		// stackForward, row by row into the time-major layout.
		for t := 0; t < lens[b]; t++ {
			row := c.X0[(sb.Off[t]+b)*in0:]
			for k := 0; k < K; k++ {
				src := min(K*t+k, frames[b]-1)
				copy(row[k*M:(k+1)*M], feats[b][src*M:(src+1)*M])
			}
		}
	}
	if len(c.Layers) < L {
		c.Layers = make([]biGRUBatch[F], L)
		c.Masks = make([][]F, L)
		c.In = make([][]F, L)
		c.rec = make([][2]gruPacked[F], L)
	}
	c.L = L
	c.dropout = train && cfg.Dropout > 0
	x := c.X0
	for l := 0; l < L; l++ {
		for d := range 2 {
			gp := &p.Enc[l][d]
			if c.packs != nil && c.infer {
				c.rec[l][d].ih16, c.rec[l][d].hh16 = c.packs[l][d].ih16, c.packs[l][d].hh16
			} else if _, f32 := any(gp.WHh).([]float32); f32 && c.infer && encoderBF16 {
				c.rec[l][d].packBF16(gp, nil)
			} else {
				c.rec[l][d].pack(gp.WHh, 3*gp.H, gp.H)
			}
		}
		c.Layers[l].Dir[0].infer, c.Layers[l].Dir[1].infer = c.infer, c.infer
		biGRUBatchForward(&c.Layers[l], &p.Enc[l], &c.rec[l], x, sb)
		x = c.Layers[l].Y
		if l < L-1 && c.dropout {
			c.Masks[l] = grow(c.Masks[l], R*H2)
			c.In[l] = grow(c.In[l], R*H2)
			for b := range feats {
				// Drawn in the order of dropoutMask over the sequence.
				for t := 0; t < lens[b]; t++ {
					r := sb.Off[t] + b
					dropoutMask(c.Masks[l][r*H2:(r+1)*H2], cfg.Dropout, rngs[b])
				}
			}
			kern.Mul(c.In[l], x[:R*H2], c.Masks[l])
			x = c.In[l]
		}
	}
}

// Out returns the encoder output (rows, 2H).
func (c *encBatch[F]) Out() []F { return c.Layers[c.L-1].Y }

// encoderBatchBackward back-propagates dOut (rows, 2H) through
// encoderBatchForward, adding into g.
func encoderBatchBackward[F kern.Float](c *encBatch[F], p, g *Params[F], dOut []F) {
	cfg := &p.Cfg
	L, n := cfg.EncLayers, c.sb.rows()*cfg.EncDim()
	c.dY = grow(c.dY, n)
	copy(c.dY, dOut[:n])
	for l := L - 1; l >= 0; l-- {
		if l == 0 {
			biGRUBatchBackward(&c.Layers[0], &p.Enc[0], &g.Enc[0], &c.rec[0], nil, c.dY, &c.sb)
			break
		}
		c.dIn = growZero(c.dIn, n)
		biGRUBatchBackward(&c.Layers[l], &p.Enc[l], &g.Enc[l], &c.rec[l], c.dIn, c.dY, &c.sb)
		if c.dropout {
			dropoutBackward(c.dY, c.dIn, c.Masks[l-1])
		} else {
			copy(c.dY, c.dIn)
		}
	}
}
