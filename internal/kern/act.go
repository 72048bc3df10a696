package kern

import "math"

// Tanh sets dst[i] = tanh(x[i]). dst and x may be the same slice.
// It panics if dst is shorter than x.
//
// float32: error < 1 ulp (computed in float64 and rounded once; tested
// maximum 0.51 ulp, absolute error <= 3e-8 on [-20, 20]); |x| >= 9.1
// gives ±1 exactly, tanh(±Inf) = ±1, tanh(-0) = -0, NaN stays NaN.
// float64: math.Tanh.
func Tanh[F Float](dst, x []F) {
	checkLen("Tanh dst", len(dst), len(x))
	if x32, ok := any(x).([]float32); ok {
		active.tanh(any(dst).([]float32)[:len(x32)], x32)
		return
	}
	for i, v := range x {
		dst[i] = F(math.Tanh(float64(v)))
	}
}

// TanhFast sets dst[i] ≈ tanh(x[i]) for float32 with a rational
// approximation evaluated in float32, several times faster than Tanh, for
// sums of many tanh values where an absolute error of a few float32 ulps of
// 1 does not matter (the attention energies of beam search). dst and x may
// be the same slice. It panics if dst is shorter than x.
//
// float32: absolute error <= 5e-7 (tested; Tanh's is 3e-8), |x| >= 7.9
// gives ±(1 - 1e-7 or less), NaN stays NaN. float64: math.Tanh.
func TanhFast[F Float](dst, x []F) {
	checkLen("TanhFast dst", len(dst), len(x))
	if x32, ok := any(x).([]float32); ok {
		active.tanhFast(any(dst).([]float32)[:len(x32)], x32)
		return
	}
	for i, v := range x {
		dst[i] = F(math.Tanh(float64(v)))
	}
}

// TanhDot sets e[j] = Σ_i w[i]·tanh(x[j·n+i] + y[j·n+i] + q[i]) for j < m,
// with n = len(q), added in that order, or without the y term when y is
// nil: the energies of additive attention over m rows of keys x (plus the
// location terms y), for the query q and weights w, in one pass instead of
// sums, a tanh and a product each over the whole (m, n) block. float32
// takes tanh from TanhFast's approximation and sums in float32; float64
// uses math.Tanh. It panics if w is shorter than q, x or a non-nil y
// shorter than m·n, or e shorter than m.
func TanhDot[F Float](e, x, y, q, w []F, m int) {
	n := len(q)
	checkDims("TanhDot", m, n, 1)
	checkLen("TanhDot w", len(w), n)
	checkLen("TanhDot x", len(x), m*n)
	if y != nil {
		checkLen("TanhDot y", len(y), m*n)
	}
	checkLen("TanhDot e", len(e), m)
	if e32, ok := any(e).([]float32); ok {
		active.tanhDot(e32, any(x).([]float32), any(y).([]float32), any(q).([]float32), any(w).([]float32), m)
		return
	}
	for j := range m {
		var s F
		for i, v := range x[j*n : (j+1)*n] {
			if y != nil {
				v += y[j*n+i]
			}
			s += w[i] * F(math.Tanh(float64(v+q[i])))
		}
		e[j] = s
	}
}

// Sigmoid sets dst[i] = 1/(1+exp(-x[i])). dst and x may be the same slice.
// It panics if dst is shorter than x.
//
// float32: error < 1 ulp where the result is a normal float32 (x >= -87.3;
// tested maximum 0.51 ulp); below that the result is a subnormal within
// one subnormal step (1.4e-45) of the true value, or 0. Sigmoid(+Inf) = 1,
// Sigmoid(-Inf) = 0, NaN stays NaN.
// float64: computed with math.Exp.
func Sigmoid[F Float](dst, x []F) {
	checkLen("Sigmoid dst", len(dst), len(x))
	if x32, ok := any(x).([]float32); ok {
		active.sigmoid(any(dst).([]float32)[:len(x32)], x32)
		return
	}
	for i, v := range x {
		dst[i] = F(1 / (1 + math.Exp(-float64(v))))
	}
}

// Exp sets dst[i] = exp(x[i]). dst and x may be the same slice.
// It panics if dst is shorter than x.
//
// float32: error < 1 ulp for results in the normal range (x in
// [-87.3, 88.72]; tested maximum 0.51 ulp); x >= 88.72284 gives +Inf,
// x < -87.34 gives a subnormal within one subnormal step (1.4e-45) of the
// true value, or 0. Exp(-Inf) = 0, NaN stays NaN. float64: math.Exp.
func Exp[F Float](dst, x []F) {
	checkLen("Exp dst", len(dst), len(x))
	if x32, ok := any(x).([]float32); ok {
		active.exp(any(dst).([]float32)[:len(x32)], x32)
		return
	}
	for i, v := range x {
		dst[i] = F(math.Exp(float64(v)))
	}
}

// Log sets dst[i] = ln(x[i]) (natural logarithm). dst and x may be the same
// slice. It panics if dst is shorter than x.
//
// float32: error < 1 ulp (computed in float64 and rounded once; tested
// maximum 0.51 ulp) over all positive inputs including subnormals;
// Log(0) = -Inf, Log(+Inf) = +Inf, Log(x < 0) = NaN, NaN stays NaN.
// float64: math.Log.
func Log[F Float](dst, x []F) {
	checkLen("Log dst", len(dst), len(x))
	if x32, ok := any(x).([]float32); ok {
		d := any(dst).([]float32)[:len(x32)]
		for i, v := range x32 {
			d[i] = log32(v)
		}
		return
	}
	for i, v := range x {
		dst[i] = F(math.Log(float64(v)))
	}
}

// The float32 activations are evaluated in float64 arithmetic and rounded
// once to float32, so the only error beyond the final rounding is the
// approximation error of the polynomials below (< 1e-9 relative).
//
// 2^t is split as t = n + f with n = round(t), |f| <= 1/2. Then
// 2^t = 2^n · (1 + q) with q = 2^f - 1 = f·Q(f). Q is a degree-6
// least-squares fit of (2^f - 1)/f on [-1/2, 1/2] (Chebyshev nodes, relative
// weighting; max relative error 2.4e-10), computed for this package.
// Keeping q separate gives expm1 accuracy for small arguments, which tanh
// needs near 0.
const (
	log2e      = 1.4426950408889634 // 1/ln 2
	roundMagic = 0x1.8p52           // adding it rounds a float64 to an integer
	expQ0      = 0.69314718058462199
	expQ1      = 0.24022650919521701
	expQ2      = 0.055504107054046591
	expQ3      = 0.0096180571220537223
	expQ4      = 0.0013333693237182688
	expQ5      = 0.00015461302641094367
	expQ6      = 1.5246358757285536e-05
)

// exp2Parts returns s = 2^round(t) and q = 2^(t-round(t)) - 1, so that
// 2^t = s·(1+q). t must lie in [-1000, 1000] or be NaN (then q is NaN).
func exp2Parts(t float64) (s, q float64) {
	y := t + roundMagic
	f := t - (y - roundMagic)
	// Estrin's scheme: shorter dependency chains than Horner.
	f2 := f * f
	f4 := f2 * f2
	q = f * ((expQ0 + f*expQ1) + f2*(expQ2+f*expQ3) + f4*((expQ4+f*expQ5)+f2*expQ6))
	// The low bits of y's mantissa hold round(t) in two's complement;
	// adding the bias and shifting them into the exponent field builds 2^n.
	s = math.Float64frombits((math.Float64bits(y) + 1023) << 52)
	return s, q
}

// exp32 returns exp(x) rounded to float32.
func exp32(x float32) float32 {
	t := float64(x) * log2e
	t = min(max(t, -200), 200) // beyond ±200 the float32 result is 0 or +Inf
	if t != t {
		return x
	}
	s, q := exp2Parts(t)
	return float32(s + s*q)
}

// sigmoid32 returns 1/(1+exp(-x)) rounded to float32.
func sigmoid32(x float32) float32 {
	t := -float64(x) * log2e
	t = min(max(t, -200), 200)
	if t != t {
		return x
	}
	s, q := exp2Parts(t)
	return float32(1 / (1 + (s + s*q)))
}

// tanh32 returns tanh(x) rounded to float32, as expm1(2|x|)/(expm1(2|x|)+2)
// with the sign of x.
func tanh32(x float32) float32 {
	ax := math.Abs(float64(x))
	t := min(2*log2e*ax, 64) // tanh(22) rounds to 1 in float64
	if t != t {
		return x
	}
	s, q := exp2Parts(t)
	em1 := s*q + (s - 1)
	return float32(math.Copysign(em1/(em1+2), float64(x)))
}

// tanhFast32: tanh(x) ≈ x·P(x²)/Q(x²) with x clamped to ±tfClamp, P of
// degree 6 and Q of degree 3 (the coefficients of Eigen's float tanh,
// generic_fast_tanh_float), evaluated in float32 with fused multiply-adds
// as in tanhFastAsm.
const (
	tfClamp = 7.90531110763549805
	tfA1    = 4.89352455891786e-03
	tfA3    = 6.37261928875436e-04
	tfA5    = 1.48572235717979e-05
	tfA7    = 5.12229709037114e-08
	tfA9    = -8.60467152213735e-11
	tfA11   = 2.00018790482477e-13
	tfA13   = -2.76076847742355e-16
	tfB0    = 4.89352518554385e-03
	tfB2    = 2.26843463243900e-03
	tfB4    = 1.18534705686654e-04
	tfB6    = 1.19825839466702e-06
)

// fma32 returns a·b + c rounded once to float32 (a·b is exact in float64,
// so only the sum rounds twice, which the tests' tolerance covers).
func fma32(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }

func tanhFast32(x float32) float32 {
	if x != x {
		return x
	}
	x = min(max(x, -tfClamp), tfClamp)
	x2 := x * x
	p := fma32(tfA13, x2, tfA11)
	p = fma32(p, x2, tfA9)
	p = fma32(p, x2, tfA7)
	p = fma32(p, x2, tfA5)
	p = fma32(p, x2, tfA3)
	p = fma32(p, x2, tfA1)
	p *= x
	q := fma32(tfB6, x2, tfB4)
	q = fma32(q, x2, tfB2)
	q = fma32(q, x2, tfB0)
	return p / q
}

func tanhDotGo(e, x, y, q, w []float32, m int) {
	n := len(q)
	w = w[:n]
	for j := range m {
		var s float32
		for i, v := range x[j*n : (j+1)*n] {
			if y != nil {
				v += y[j*n+i]
			}
			s += w[i] * tanhFast32(v+q[i])
		}
		e[j] = s
	}
}

func tanhFastGo(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = tanhFast32(v)
	}
}

// Log: x = 2^e·m with m in [√½, √2), ln m = 2·atanh(u), u = (m-1)/(m+1),
// |u| <= 0.1716, and atanh(u)/u = R(u²) with R a degree-3 least-squares fit
// on [0, 0.1716²] (max error 7e-10), computed for this package.
const (
	logR0 = 0.99999999931145267
	logR1 = 0.33333407927182729
	logR2 = 0.19987401836259142
	logR3 = 0.14962726249121677
)

// log32 returns ln(x) rounded to float32.
func log32(x float32) float32 {
	switch {
	case x != x || x < 0:
		return float32(math.NaN())
	case x == 0:
		return float32(math.Inf(-1))
	case math.IsInf(float64(x), 1):
		return x
	}
	b := math.Float32bits(x)
	e := int(b>>23) - 127
	if b>>23 == 0 { // subnormal: scale into the normal range
		b = math.Float32bits(x * (1 << 23))
		e = int(b>>23) - 127 - 23
	}
	m := float64(math.Float32frombits(b&0x007fffff | 0x3f800000)) // [1, 2)
	if m > math.Sqrt2 {
		m /= 2
		e++
	}
	u := (m - 1) / (m + 1)
	z := u * u
	return float32(float64(e)*math.Ln2 + 2*u*(logR0+z*(logR1+z*(logR2+z*logR3))))
}

func expGo(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = exp32(v)
	}
}

func sigmoidGo(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = sigmoid32(v)
	}
}

func tanhGo(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = tanh32(v)
	}
}
