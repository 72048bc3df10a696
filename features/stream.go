package features

// Streamer computes filterbank features from audio that arrives in chunks.
// The frames it returns, concatenated over all Frames calls, are bitwise
// identical to Fbank.Compute on the concatenated samples, whatever the chunk
// sizes. It keeps only the samples a future frame still needs: after a
// Frames call fewer than FrameLength samples are held (plus whatever Accept
// adds before the next Frames call).
//
// A Streamer is not safe for concurrent use.
type Streamer struct {
	fb   *Fbank
	buf  []float32 // pending samples; buf[0] is the first sample of the next frame
	skip int       // samples still to drop before the next frame starts (FrameShift > FrameLength only)
}

// NewStreamer returns a Streamer for cfg. It panics if cfg.Validate fails.
func NewStreamer(cfg Config) *Streamer {
	return &Streamer{fb: NewFbank(cfg)}
}

// Config returns the configuration s was built with.
func (s *Streamer) Config() Config { return s.fb.cfg }

// Accept queues samples (mono, in [-1, 1), at Config.SampleRate). They are
// copied; the caller may reuse the slice. No features are computed until
// Frames is called.
func (s *Streamer) Accept(samples []float32) {
	if s.skip > 0 {
		k := min(s.skip, len(samples))
		s.skip -= k
		samples = samples[k:]
	}
	s.buf = append(s.buf, samples...)
}

// Frames appends to dst the features (row-major, frames × NumMel) of every
// frame that has become complete since the previous Frames call, and returns
// the extended slice and the number of frames appended (possibly 0). It then
// drops the samples no later frame needs.
func (s *Streamer) Frames(dst []float32) ([]float32, int) {
	dst, n := s.fb.Compute(dst, s.buf)
	if n == 0 {
		return dst, 0
	}
	used := n * s.fb.cfg.FrameShift
	if used >= len(s.buf) {
		s.skip = used - len(s.buf)
		s.buf = s.buf[:0]
	} else {
		s.buf = s.buf[:copy(s.buf, s.buf[used:])]
	}
	return dst, n
}

// Pending returns the number of samples held for frames not yet computed.
func (s *Streamer) Pending() int { return len(s.buf) }

// Reset discards all pending samples so the next Accept starts a new
// stream. Buffers are kept for reuse.
func (s *Streamer) Reset() {
	s.buf = s.buf[:0]
	s.skip = 0
}
