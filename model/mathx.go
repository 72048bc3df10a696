package model

import (
	"math"

	"github.com/heed-asr/heed/internal/kern"
)

// grow returns s resliced to n elements, reallocating when its capacity is
// too small. The contents are not preserved or cleared.
func grow[F any](s []F, n int) []F {
	if cap(s) < n {
		return make([]F, n)
	}
	return s[:n]
}

// growZero is grow followed by clear.
func growZero[F any](s []F, n int) []F {
	s = grow(s, n)
	clear(s)
	return s
}

// addTo sets dst[i] += x[i].
func addTo[F kern.Float](dst, x []F) {
	kern.Add(dst, dst, x)
}

// addRows adds vector b (n) to each of the m rows of y (m, n).
func addRows[F kern.Float](y, b []F, m, n int) {
	for i := 0; i < m; i++ {
		row := y[i*n : i*n+n]
		kern.Add(row, row, b[:n])
	}
}

// sumRows adds the column sums of dy (m, n) to db (n).
func sumRows[F kern.Float](db, dy []F, m, n int) {
	db = db[:n]
	for i := 0; i < m; i++ {
		kern.Add(db, db, dy[i*n:i*n+n])
	}
}

// dot returns Σ a[i]·b[i] accumulated in float64.
func dot[F kern.Float](a, b []F) float64 {
	b = b[:len(a)]
	var s float64
	for i, v := range a {
		s += float64(v) * float64(b[i])
	}
	return s
}

// logSoftmax sets dst = x - logsumexp(x) (one row). dst and x may alias.
func logSoftmax[F kern.Float](dst, x []F) {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	var s float64
	for _, v := range x {
		s += math.Exp(float64(v) - m)
	}
	lse := m + math.Log(s)
	for i, v := range x {
		dst[i] = F(float64(v) - lse)
	}
}

// logSoftmaxBackward sets dx = dy - softmax·Σdy for one row, where logp is
// the forward output. dx and dy may alias.
func logSoftmaxBackward[F kern.Float](dx, dy, logp []F) {
	var s float64
	for _, v := range dy {
		s += float64(v)
	}
	for i, lp := range logp {
		dx[i] = F(float64(dy[i]) - math.Exp(float64(lp))*s)
	}
}

// softmax sets dst = softmax(x) (one row). dst and x may alias.
func softmax[F kern.Float](dst, x []F) {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	var s float64
	for i, v := range x {
		e := math.Exp(float64(v) - m)
		dst[i] = F(e)
		s += e
	}
	inv := 1 / s
	for i := range dst[:len(x)] {
		dst[i] = F(float64(dst[i]) * inv)
	}
}

// softmaxBackward sets dx = y ⊙ (dy - Σ y·dy) for one row with forward
// output y. dx and dy may alias.
func softmaxBackward[F kern.Float](dx, dy, y []F) {
	s := dot(y, dy)
	for i, v := range y {
		dx[i] = F(float64(v) * (float64(dy[i]) - s))
	}
}

// argmax returns the index of the largest element (the first on ties).
func argmax[F kern.Float](x []F) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// median returns the median position of a non-negative weight vector that
// sums to about 1: the smallest j with Σ_{k≤j} a[k] ≥ 0.5 (len(a)-1 if the
// sum never reaches it).
func median[F kern.Float](a []F) int {
	var s float64
	for j, v := range a {
		s += float64(v)
		if s >= 0.5 {
			return j
		}
	}
	return len(a) - 1
}
