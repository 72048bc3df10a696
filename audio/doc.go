// Package audio reads speech recordings and turns them into what the
// feature extractor wants: mono float32 samples in [-1, 1) at 16000 Hz.
//
// # WAV files
//
// A WAV file is a RIFF chunk stream: the 12-byte header "RIFF" <size>
// "WAVE", then chunks of <4-byte id> <4-byte little-endian size> <body>,
// each odd-sized body followed by one pad byte. Two chunks matter: "fmt "
// (encoding, channels, rate) and "data" (interleaved little-endian
// frames). All others (LIST, fact, cue, bext, JUNK, ...) are skipped
// wherever they appear, before or after fmt and data; a data chunk that
// precedes fmt is buffered. Decoded are:
//
//	format tag                      bits   Info.Encoding
//	1 PCM (unsigned)                8      pcm_u8
//	1 PCM (signed)                  16     pcm_s16le
//	1 PCM (signed)                  24     pcm_s24le
//	1 PCM (signed)                  32     pcm_s32le
//	3 IEEE float                    32     float32
//	3 IEEE float                    64     float64
//	6 A-law (ITU-T G.711)           8      pcm_alaw
//	7 mu-law (ITU-T G.711)          8      pcm_mulaw
//	0xFFFE WAVE_FORMAT_EXTENSIBLE   any of the above, chosen by the
//	                                SubFormat GUID
//
// with 1..8 channels (averaged to mono) at 8000..192000 Hz. Integer
// samples map to [-1, 1) by dividing by 2^(bits-1) (A-law and mu-law
// after expanding to 16-bit PCM as SoX and ffmpeg do); float samples outside
// [-1, 1) are clipped and NaN/Inf set to 0, with a warning.
//
// Rejected with *UnsupportedError (errors.Is(err, errors.ErrUnsupported)):
// ADPCM, MP3/MPEG and other compressed data in a WAV;
// other bit depths (12, 20, ...); more than 8 channels; rates out of
// range; RIFX and RF64. Rejected with *FormatError: input that is not a
// WAV (wraps ErrNotWAV), a header cut short (wraps io.ErrUnexpectedEOF),
// zero channels or rate, inconsistent block alignment. Error strings
// start with the file name:
//
//	x.wav: not a WAV file (no RIFF header)
//	x.wav: truncated header: file ends inside the fmt chunk
//	x.wav: unsupported encoding IMA ADPCM (format tag 0x0011)
//
// Damaged but usable data decodes with a warning in Clip.Warnings: a data
// chunk that claims more bytes than the file holds (a cut recording), or
// a partial last frame. A data size of 0, 0xFFFFFFFF or 0x7FFFF000, as streaming
// writers leave it, means "read to EOF". No buffer is sized from a header
// claim alone, so a lying header cannot cause a large allocation.
//
// # NIST SPHERE files
//
// DecodeSphere and ReadSphereFile read NIST SPHERE files (the TIMIT, AN4
// and other LDC/NIST corpora): an ASCII header, then the samples. The
// header starts with the line "NIST_1A", then the header size in bytes as
// a decimal line ("   1024"), then "name -type value" lines up to
// "end_head", padded to that size; -i is an integer, -r a real and -sN a
// string of N bytes; lines starting with ";" are comments:
//
//	NIST_1A
//	   1024
//	sample_count -i 16000
//	sample_rate -i 16000
//	sample_n_bytes -i 2
//	sample_byte_format -s2 01
//	channel_count -i 1
//	sample_coding -s3 pcm
//	sample_checksum -i 9508
//	end_head
//
// Decoded is uncompressed 16-bit PCM (sample_coding "pcm", or absent), one
// channel, sample_byte_format "01" (little-endian, Info.Encoding
// "pcm_s16le") or "10" (big-endian, "pcm_s16be"), at 8000..192000 Hz.
// sample_rate, sample_count, sample_n_bytes and sample_byte_format are
// required. Rejected with *UnsupportedError: shorten- or wavpack-compressed
// data, mu-law and A-law, other sample sizes, several channels, rates out
// of range. Rejected with *FormatError: input that is not SPHERE (wraps
// ErrNotSphere), a header or data cut short (wraps io.ErrUnexpectedEOF:
// every sample the header claims must be there), malformed or repeated
// header lines, a missing required field, header sizes over 64 KiB and
// sample counts over 2^32. Bytes after the last sample are ignored. A
// sample_checksum (the 16-bit sum of the samples) that does not match
// gives a warning, one that matches with the bytes swapped says so.
//
// # Reading
//
//	clip, err := audio.Load16k("talk.wav") // decode + resample to 16 kHz
//	clip, err := audio.ReadFile("-")       // standard input, native rate
//	info, err := audio.DecodeInfo(f, "talk.wav") // header only
//
// Stream decodes as bytes arrive, for pipes and live input; it also reads
// headerless little-endian PCM:
//
//	s, err := audio.NewStream(os.Stdin, "stdin", audio.StreamOptions{Format: "s16le", Rate: 8000})
//	n, err := s.Read(buf) // mono 16 kHz samples, io.EOF at the end
//
// # Resampling
//
// Resample and Resampler use a Kaiser-windowed sinc low-pass evaluated as a
// precomputed polyphase table (exact phases for ratios up to a 64K-entry
// table, 512 linearly interpolated phases beyond). The cutoff is the lower
// Nyquist frequency; the passband reaches 0.875 of it (7 kHz for a 16 kHz
// output) with under 0.01 dB ripple and the stopband starts at 1.125 of it
// with at least 70 dB attenuation. The filter is centred, so output
// sample n is the signal at time n/to seconds with no delay. 44.1 kHz to
// 16 kHz costs about 96 multiply-adds per output sample.
package audio
