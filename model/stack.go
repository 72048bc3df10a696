package model

import "github.com/heed-asr/heed/internal/kern"

// stackForward stacks groups of stack consecutive input frames into one
// encoder frame: x (ceil(frames/stack), stack*numMel) from feats
// (frames, numMel). Row t holds frames stack*t .. stack*t+stack-1; frames past
// the end repeat the last frame.
func stackForward[F kern.Float](x, feats []F, frames, numMel, stack int) {
	T := (frames + stack - 1) / stack
	for t := 0; t < T; t++ {
		for k := 0; k < stack; k++ {
			src := min(stack*t+k, frames-1)
			copy(x[(t*stack+k)*numMel:(t*stack+k+1)*numMel], feats[src*numMel:(src+1)*numMel])
		}
	}
}

// stackBackward adds the gradient dx (ceil(frames/stack), stack*numMel) of
// stackForward into dfeats (frames, numMel).
func stackBackward[F kern.Float](dfeats, dx []F, frames, numMel, stack int) {
	T := (frames + stack - 1) / stack
	for t := 0; t < T; t++ {
		for k := 0; k < stack; k++ {
			src := min(stack*t+k, frames-1)
			addTo(dfeats[src*numMel:(src+1)*numMel], dx[(t*stack+k)*numMel:(t*stack+k+1)*numMel])
		}
	}
}
