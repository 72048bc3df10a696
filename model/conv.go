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
	for j := lo; j <= hi; j++ {
		row := f[(j-lo)*nf : (j-lo+1)*nf]
		w0, w1 := max(0, half-j), min(K, T-j+half) // taps that stay inside [0, T)
		for k := 0; k < nf; k++ {
			fk := filt[k*K : k*K+K]
			var s F
			for w := w0; w < w1; w++ {
				s += fk[w] * a[j+w-half]
			}
			row[k] = s
		}
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
