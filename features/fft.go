package features

import "math"

// RealFFT computes the discrete Fourier transform of real frames of one
// length N (a power of two, at least 2) as one complex transform of N/2
// points on tables made once: the bit-reversal permutation, the twiddles
// of every butterfly size, and those that split the half-length result.
// Its methods are safe for concurrent use; each caller brings its own
// scratch.
//
// With z[m] = x[2m] + i·x[2m+1] (m < M = N/2) and Z its M-point transform,
// the even and odd samples have the transforms E[k] = (Z[k] + conj(Z[M-k]))/2
// and O[k] = (Z[k] - conj(Z[M-k]))/(2i), and X[k] = E[k] + exp(-2πik/N)·O[k]
// for k < M (indices mod M).
type RealFFT struct {
	rev   []int        // (M) position of z[m] after the bit-reversal permutation
	tw    []complex128 // twiddles exp(-2πik/size) of sizes 2, 4, ..., M: size/2 each, in that order
	split []complex128 // (M) exp(-2πik/N)
}

// NewRealFFT returns the tables of the n-point real transform. It panics
// unless n is a power of two of at least 2.
func NewRealFFT(n int) *RealFFT {
	if n < 2 || n&(n-1) != 0 {
		panic("features: NewRealFFT size is not a power of two")
	}
	m := n / 2
	p := &RealFFT{rev: make([]int, m), split: make([]complex128, m)}
	for i, j := 1, 0; i < m; i++ {
		bit := m >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j |= bit
		p.rev[i] = j
	}
	for size := 2; size <= m; size <<= 1 {
		for k := range size / 2 {
			sin, cos := math.Sincos(-2 * math.Pi * float64(k) / float64(size))
			p.tw = append(p.tw, complex(cos, sin))
		}
	}
	for k := range p.split {
		sin, cos := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		p.split[k] = complex(cos, sin)
	}
	return p
}

// Power sets pw[k] = |X[k]|² for k < len(pw) (at most N/2), X the transform
// of the frame x (N values); z (N/2) is scratch.
func (p *RealFFT) Power(pw, x []float64, z []complex128) {
	p.half(x, z)
	m := len(z)
	for k := range pw {
		xr, xi := p.bin(z, k, m)
		pw[k] = xr*xr + xi*xi
	}
}

// Magnitude sets s[k-lo] = |X[k]| for lo <= k < lo+len(s) (at most N/2), X
// the transform of the frame x (N values), and returns the sum of their
// squares; z (N/2) is scratch.
func (p *RealFFT) Magnitude(s []float64, lo int, x []float64, z []complex128) float64 {
	p.half(x, z)
	m := len(z)
	power := 0.0
	for i := range s {
		xr, xi := p.bin(z, lo+i, m)
		s[i] = math.Hypot(xr, xi)
		power += s[i] * s[i]
	}
	return power
}

// half leaves Z, the M-point transform of z[m] = x[2m] + i·x[2m+1], in z.
func (p *RealFFT) half(x []float64, z []complex128) {
	m := len(p.rev)
	z, x = z[:m], x[:2*m]
	for j, r := range p.rev {
		z[r] = complex(x[2*j], x[2*j+1])
	}
	tw := p.tw
	for size := 2; size <= m; size <<= 1 {
		half := size / 2
		w := tw[:half]
		for start := 0; start < m; start += size {
			lo, hi := z[start:start+half], z[start+half:start+size]
			for k, wk := range w {
				a, b := lo[k], wk*hi[k]
				lo[k], hi[k] = a+b, a-b
			}
		}
		tw = tw[half:]
	}
}

// bin returns the real and imaginary parts of X[k] from Z in z (M points).
func (p *RealFFT) bin(z []complex128, k, m int) (xr, xi float64) {
	a, b := z[k], z[(m-k)&(m-1)]
	// e = (a + conj(b))/2, o = (a - conj(b))/(2i)
	er, ei := 0.5*(real(a)+real(b)), 0.5*(imag(a)-imag(b))
	or, oi := 0.5*(imag(a)+imag(b)), -0.5*(real(a)-real(b))
	wr, wi := real(p.split[k]), imag(p.split[k])
	return er + wr*or - wi*oi, ei + wr*oi + wi*or
}
