package model

import (
	"math/rand/v2"

	"github.com/heed-asr/heed/internal/kern"
)

// dropoutForward draws a fresh inverted-dropout mask (n) from rng, with
// mask[i] = 0 with probability p and 1/(1-p) otherwise, and sets
// y[i] = x[i]·mask[i]. y and x may alias. The mask depends only on rng's
// state, so a re-seeded rng reproduces it.
func dropoutForward[F kern.Float](y, mask, x []F, p float64, rng *rand.Rand) {
	dropoutMask(mask, p, rng)
	kern.Mul(y[:len(mask)], x, mask)
}

// dropoutMask draws the mask of dropoutForward.
func dropoutMask[F kern.Float](mask []F, p float64, rng *rand.Rand) {
	keep := F(1 / (1 - p))
	for i := range mask {
		if rng.Float64() < p {
			mask[i] = 0
		} else {
			mask[i] = keep
		}
	}
}

// dropoutBackward sets dx[i] = dy[i]·mask[i]. dx and dy may alias.
func dropoutBackward[F kern.Float](dx, dy, mask []F) {
	kern.Mul(dx[:len(mask)], dy, mask)
}
