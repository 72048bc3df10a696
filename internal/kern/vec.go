package kern

// Dot returns Σ a[i]·b[i] over i < len(a). It panics if b is shorter than
// a. float32 uses several partial sums (AVX2+FMA where available), so its
// rounding differs slightly from a sequential sum; float64 sums in order.
func Dot[F Float](a, b []F) F {
	checkLen("Dot b", len(b), len(a))
	if a32, ok := any(a).([]float32); ok {
		return F(active.dot(a32, any(b).([]float32)[:len(a32)]))
	}
	var s F
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// Axpy sets dst[i] += alpha·x[i] for i < len(dst). It panics if x is
// shorter than dst. float32 uses fused multiply-adds where available.
func Axpy[F Float](dst []F, alpha F, x []F) {
	checkLen("Axpy x", len(x), len(dst))
	if d32, ok := any(dst).([]float32); ok {
		active.axpy(d32, float32(alpha), any(x).([]float32)[:len(d32)])
		return
	}
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] += alpha * v
	}
}

// Add sets dst[i] = a[i] + b[i] for i < len(dst). dst may be a or b.
// It panics if a or b is shorter than dst.
func Add[F Float](dst, a, b []F) {
	checkLen("Add a", len(a), len(dst))
	checkLen("Add b", len(b), len(dst))
	if d32, ok := any(dst).([]float32); ok {
		active.add(d32, any(a).([]float32), any(b).([]float32))
		return
	}
	addRef(dst, a, b)
}

// Mul sets dst[i] = a[i]·b[i] (element-wise) for i < len(dst). dst may be
// a or b. It panics if a or b is shorter than dst.
func Mul[F Float](dst, a, b []F) {
	checkLen("Mul a", len(a), len(dst))
	checkLen("Mul b", len(b), len(dst))
	if d32, ok := any(dst).([]float32); ok {
		active.mul(d32, any(a).([]float32), any(b).([]float32))
		return
	}
	mulRef(dst, a, b)
}

// Scale sets dst[i] = alpha·x[i] for i < len(dst). dst may be x (in-place
// scaling). It panics if x is shorter than dst.
func Scale[F Float](dst []F, alpha F, x []F) {
	checkLen("Scale x", len(x), len(dst))
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = alpha * v
	}
}
