package model

import "github.com/heed-asr/heed/internal/kern"

// linearForward computes y (m, out) = x (m, in) · wᵀ + b with w (out, in) and
// b (out); b may be nil.
func linearForward[F kern.Float](y, x, w, b []F, m, in, out int) {
	kern.MatMulNT(y, x, w, m, in, out, false)
	if b != nil {
		addRows(y, b, m, out)
	}
}

// linearBackward adds the gradients of linearForward given dy (m, out):
// dx (m, in) += dy·w when dx is not nil, dw (out, in) += dyᵀ·x, and
// db (out) += Σ_rows dy when db is not nil.
func linearBackward[F kern.Float](dx, dw, db, dy, x, w []F, m, in, out int) {
	if dx != nil {
		kern.MatMulNN(dx, dy, w, m, out, in, true)
	}
	kern.MatMulTN(dw, dy, x, out, m, in, true)
	if db != nil {
		sumRows(db, dy, m, out)
	}
}
