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
// # MP3 and FLAC files
//
// Decode, ReadFile, Load16k and DecodeInfo tell the format by the first
// bytes, never by the file name: "RIFF" is WAV, "fLaC" is FLAC, and an
// MPEG audio frame sync (11 set bits) or an ID3v2 tag is MP3 (ID3v2 tags,
// "ID3" and a 28-bit syncsafe size, are skipped, and FLAC may follow them
// too). Both give the same Clip as a WAV: channels averaged to mono, at
// the file's own rate, resampled by Load16k as a WAV is.
//
// MP3 (Info.Container and Encoding "mp3", BitsPerSample 0): MPEG-1 and
// MPEG-2 Layer III, mono or stereo, 16000..48000 Hz, decoded by
// github.com/hajimehoshi/go-mp3. It gives 16-bit stereo (mono duplicated),
// averaged here and divided by 32768. This package hands it whole frames
// of the first frame's MPEG version and rate: anything else between them
// is skipped with a warning, ID3v1 and ID3v2 tags silently. A Xing or Info
// tag in the first frame is not audio and is dropped; its frame count
// gives DecodeInfo's Frames. go-mp3 trims nothing: its output starts with
// the encoder's delay (576 samples for LAME) and the decoder's own 529.
// Where a LAME tag (written by LAME and ffmpeg) records the encoder delay
// and padding, those and the decoder delay are cut as ffmpeg cuts them,
// so the samples match ffmpeg's in number and time. On the fixtures in
// testdata/audio: offset 0 and the same length; a mono 16 kHz file
// differs from ffmpeg's decode by at most one 16-bit step (RMS 0.69, SNR
// 71 dB), a joint-stereo 44.1 kHz one by at most 45.5 steps (RMS 3.2, SNR
// 55 dB: go-mp3 decodes some joint-stereo frames less exactly). Without a
// LAME tag nothing is cut, as with ffmpeg, and the audio comes
// encoder delay + 529 samples late (1105, 69 ms at 16 kHz, for LAME).
//
// FLAC (Container "flac", Encoding "flac_s16", "flac_s24", ...: flac_sN
// for N bits, BitsPerSample N): 8, 12, 16, 20 or 24 bits, 1..8 channels,
// 8000..192000 Hz, decoded frame by frame by github.com/mewkiz/flac, which
// checks each frame's CRC-8 and CRC-16 (not STREAMINFO's MD5). The
// channels are summed and divided by 2^(N-1) times their number, as for
// WAV, so a FLAC file decodes to exactly the samples of its WAV. Metadata
// blocks other than STREAMINFO are skipped unread; so is an ID3v1 tag at
// the end, and, with a warning, anything after all the samples STREAMINFO
// claims.
//
// Rejected with *UnsupportedError: MPEG-2.5 (8000..12000 Hz), Layer I and
// II, free-format MP3, AAC in ADTS; FLAC of other bit depths or with
// frames that leave their sample size to STREAMINFO (which mewkiz/flac
// cannot decode), rates out of range. Rejected with *FormatError: a
// header cut short (io.ErrUnexpectedEOF: an ID3 tag, the first MP3 frame,
// the FLAC metadata), an ID3 tag with no MP3 frame in the 64 KiB after it
// or a frame sync that is no MPEG header (both wrap ErrNotWAV), a first
// FLAC block other than STREAMINFO, and data the library fails on, a
// panic in it included:
//
//	x.mp3: corrupt MP3 data after 16000 samples: ...
//	x.flac: corrupt FLAC data after 8192 samples: frame.Frame.Parse: CRC-16 checksum mismatch; ...
//
// A file cut short decodes its whole frames with a warning: when a Xing
// tag or STREAMINFO claims more, or the file ends inside a frame. The
// output is allocated from such claims only as far as the file's size
// allows.
//
// A Stream reads both as they arrive, a frame at a time, with the same
// decoder and so the same samples, trimming and warnings as Decode. Data
// that Decode fails on past the header comes out of a Stream as far as it
// decodes, then as the same error.
//
// # Reading
//
//	clip, err := audio.Load16k("talk.wav") // decode + resample to 16 kHz
//	clip, err := audio.ReadFile("-")       // standard input, native rate
//	clip, err := audio.ReadFile("book.mp3") // MP3 and FLAC alike
//	info, err := audio.DecodeInfo(f, "talk.wav") // header only
//
// Stream decodes WAV, MP3 and FLAC as bytes arrive, for pipes and live
// input, with bounded memory; it also reads headerless little-endian PCM:
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
