package model

import "github.com/heed-asr/heed/internal/kern"

// convForward computes the location features of frames lo..hi from the
// previous attention weights a (T) with nf filters filt (nf, K), K odd, same
// (zero) padding:
//
//	f[j-lo][k] = Σ_w filt[k][w] · a[j + w - K/2]
//
// f is (hi-lo+1, nf).
func convForward[F kern.Float](f, a, filt []F, T, lo, hi, nf, K int) {
	half := K / 2
	// Frame t adds a[t] times the reversed filters, filtR[r][k] =
	// filt[k][K-1-r], to rows t-half..t+half of f, which lie next to each
	// other: one axpy per frame instead of a scalar sum per row and filter.
	var buf [512]F
	filtR := buf[:0]
	if nf*K > len(buf) {
		filtR = make([]F, 0, nf*K)
	}
	filtR = filtR[:nf*K]
	for r := 0; r < K; r++ {
		for k := 0; k < nf; k++ {
			filtR[r*nf+k] = filt[k*K+K-1-r]
		}
	}
	clear(f[:(hi-lo+1)*nf])
	for t := max(0, lo-half); t <= min(T-1, hi+half); t++ {
		v := a[t]
		if v == 0 {
			continue
		}
		j0, j1 := max(lo, t-half), min(hi, t+half) // rows reached
		g := filtR[(j0-(t-half))*nf : (j1-(t-half)+1)*nf]
		kern.Axpy(f[(j0-lo)*nf:(j1-lo+1)*nf], v, g)
	}
}

// convBackward back-propagates df (hi-lo+1, nf) through convForward, adding
// into dfilt (nf, K) and, when da is not nil, into da (T).
func convBackward[F kern.Float](dfilt, da, df, a, filt []F, T, lo, hi, nf, K int) {
	half := K / 2
	for j := lo; j <= hi; j++ {
		row := df[(j-lo)*nf : (j-lo+1)*nf]
		w0, w1 := max(0, half-j), min(K, T-j+half)
		for k := 0; k < nf; k++ {
			g := row[k]
			if g == 0 {
				continue
			}
			dk := dfilt[k*K : k*K+K]
			fk := filt[k*K : k*K+K]
			for w := w0; w < w1; w++ {
				dk[w] += g * a[j+w-half]
				if da != nil {
					da[j+w-half] += g * fk[w]
				}
			}
		}
	}
}
