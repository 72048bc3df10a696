#!/usr/bin/env python3
"""Writes testdata/bad/wav/: hostile WAV files, each 0.1 s or less.

Run from the repository root: python3 testdata/bad/make_wav.py
The base is a canonical 44-byte-header, 16 kHz mono s16 file holding a
0.1 s 440 Hz tone at half scale; each header case changes one field of it.
"""
import math, struct, os

D = "testdata/bad/wav"
RATE, N = 16000, 1600


def pcm16(samples):
    return b"".join(struct.pack("<h", max(-32768, min(32767, int(round(s * 32767))))) for s in samples)


def wav(data, tag=1, ch=1, rate=RATE, bits=16, byterate=None, align=None,
        riff=b"RIFF", riffsize=None, wave=b"WAVE", fmtid=b"fmt ", fmtsize=16,
        dataid=b"data", datasize=None):
    if align is None:
        align = (ch * bits // 8) & 0xFFFF
    if byterate is None:
        byterate = (rate * align) & 0xFFFFFFFF
    fmt = struct.pack("<HHIIHH", tag, ch, rate, byterate, align, bits)
    body = wave + fmtid + struct.pack("<I", fmtsize) + fmt + dataid
    body += struct.pack("<I", len(data) if datasize is None else datasize) + data
    return riff + struct.pack("<I", len(body) if riffsize is None else riffsize) + body


tone = [0.5 * math.sin(2 * math.pi * 440 * i / RATE) for i in range(N)]
base = wav(pcm16(tone))
cases = {
    # Each header field wrong in turn.
    "riff_magic": wav(pcm16(tone), riff=b"RIFX"),
    "riff_size_0": wav(pcm16(tone), riffsize=0),
    "riff_size_huge": wav(pcm16(tone), riffsize=0xFFFFFFF0),
    "wave_form": wav(pcm16(tone), wave=b"AVI "),
    "fmt_id": wav(pcm16(tone), fmtid=b"fmX "),
    "fmt_size_huge": wav(pcm16(tone), fmtsize=0x7FFFFFFF),
    "fmt_size_short": wav(pcm16(tone), fmtsize=8),
    "format_tag": wav(pcm16(tone), tag=0x2222),
    "channels_0": wav(pcm16(tone), ch=0),
    "channels_65535": wav(pcm16(tone), ch=65535),
    "rate_0": wav(pcm16(tone), rate=0),
    "rate_huge": wav(pcm16(tone), rate=0xFFFFFFFF),
    "byte_rate_wrong": wav(pcm16(tone), byterate=1),
    "block_align_wrong": wav(pcm16(tone), align=7),
    "bits_0": wav(pcm16(tone), bits=0),
    "bits_13": wav(pcm16(tone), bits=13),
    "data_id": wav(pcm16(tone), dataid=b"dada"),
    # Lying sizes.
    "data_size_huge": wav(pcm16(tone), datasize=0x7FFFFFF0),
    "data_size_odd": wav(pcm16(tone), datasize=3199),
    "data_size_small": wav(pcm16(tone), datasize=100),
    # Truncated at each chunk boundary (and inside a frame).
    "cut_4": base[:4],
    "cut_8": base[:8],
    "cut_12": base[:12],
    "cut_20": base[:20],
    "cut_36": base[:36],
    "cut_44": base[:44],
    "cut_45": base[:45],
    # Content.
    "one_sample": wav(pcm16([0.25])),
    "silence": wav(pcm16([0.0] * (RATE // 2))),
    "dc": wav(pcm16([0.5] * (RATE // 2))),
    "clipping": wav(pcm16([(1.0 if (i // 20) % 2 else -1.0) for i in range(RATE // 2)])),
    "float_nan_inf": wav(b"".join(struct.pack("<f", v) for v in [float("nan"), float("inf"), float("-inf"), 0.5] * 400),
                         tag=3, bits=32),
    "float_huge": wav(b"".join(struct.pack("<f", v) for v in [1e30, -1e30] * 800), tag=3, bits=32),
}
os.makedirs(D, exist_ok=True)
for name, b in cases.items():
    with open(os.path.join(D, name + ".wav"), "wb") as f:
        f.write(b)
