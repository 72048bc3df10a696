package kern

import "math"

// Tanh sets dst[i] = tanh(x[i]). dst and x may be the same slice.
func Tanh[F Float](dst, x []F) {
	checkLen("Tanh dst", len(dst), len(x))
	for i, v := range x {
		dst[i] = F(math.Tanh(float64(v)))
	}
}

// Sigmoid sets dst[i] = 1/(1+exp(-x[i])). dst and x may be the same slice.
func Sigmoid[F Float](dst, x []F) {
	checkLen("Sigmoid dst", len(dst), len(x))
	for i, v := range x {
		dst[i] = F(1 / (1 + math.Exp(-float64(v))))
	}
}

// Exp sets dst[i] = exp(x[i]). dst and x may be the same slice.
func Exp[F Float](dst, x []F) {
	checkLen("Exp dst", len(dst), len(x))
	for i, v := range x {
		dst[i] = F(math.Exp(float64(v)))
	}
}
