#!/usr/bin/python3
"""Regenerate the golden fbank features used by heed's features tests.

Run from this directory (testdata/fbank) with Debian's python3 and the
python3-torchaudio package (torchaudio 0.13.1, torch 1.13 at the time the
committed files were made):

    /usr/bin/python3 make_reference.py

Inputs (16 kHz, mono, 16-bit PCM WAV):
  speech.wav  about 3 s of espeak-ng speech, made once with
                espeak-ng -w speech22k.wav "<SPEECH_TEXT>"   (22050 Hz)
                sox speech22k.wav -r 16000 -c 1 -b 16 speech.wav
              and only regenerated here when it is missing (espeak-ng output
              differs between versions, so the committed file is the source).
  noise.wav   1.5 s of deterministic non-speech: white noise, three tones,
              a chirp, digital silence (exercises the log floor) and a
              near-full-scale tone; regenerated when missing (seeded).

Outputs, one per input, <name>.fbank.bin:
  little-endian int32 frames, int32 bins, then frames*bins float32 values,
  row-major (frame, bin): torchaudio.compliance.kaldi.fbank with Kaldi's
  compute-fbank-feats settings used by heed: dither=0, energy_floor=0,
  num_mel_bins=80, window_type='povey', snip_edges=True, 25 ms / 10 ms,
  preemphasis 0.97, low_freq 20, high_freq 0 (Nyquist), use_energy=False,
  computed in float32 as Kaldi and torchaudio normally do.
Plus noise.fbank64.bin, same layout: the same call on a float64 waveform
(torch then runs the FFT in float64; the mel weights stay float32-derived).
noise.wav's quiet high bins next to a full-scale tone are where the float32
FFT's rounding shows (up to ~0.012 in log units), so this file lets the test
check heed's float64 pipeline more tightly.

The waveform fed to kaldi.fbank is the raw int16 values as float32, i.e. the
[-1, 1) samples scaled by 32768, exactly as Kaldi reads 16-bit WAV files.
"""

import os
import struct
import subprocess
import wave

import numpy as np
import torch
import torchaudio.compliance.kaldi as kaldi

SPEECH_TEXT = "The quick brown fox jumps over the lazy dog near the river bank."
RATE = 16000


def make_speech(path):
    tmp = "speech22k.wav"
    subprocess.run(["espeak-ng", "-w", tmp, SPEECH_TEXT], check=True)
    subprocess.run(["sox", tmp, "-r", str(RATE), "-c", "1", "-b", "16", path], check=True)
    os.remove(tmp)


def make_noise(path):
    rng = np.random.default_rng(20240611)
    n = int(1.5 * RATE)
    t = np.arange(n) / RATE
    x = 0.05 * rng.standard_normal(n)
    for f, a in ((440.0, 0.2), (1000.0, 0.1), (5500.0, 0.05)):
        x += a * np.sin(2 * np.pi * f * t)
    # chirp 100 Hz -> 7900 Hz over the whole signal
    x += 0.1 * np.sin(2 * np.pi * (100.0 * t + 0.5 * (7800.0 / t[-1]) * t * t))
    # 0.25 s of digital silence from 0.5 s
    x[int(0.5 * RATE) : int(0.75 * RATE)] = 0.0
    # near full-scale 3 kHz tone in the last 0.25 s
    tail = int(1.25 * RATE)
    x[tail:] = 0.95 * np.sin(2 * np.pi * 3000.0 * t[tail:])
    pcm = np.clip(np.round(x * 32768.0), -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())


def read_pcm16(path):
    with wave.open(path, "rb") as w:
        assert w.getnchannels() == 1, path
        assert w.getsampwidth() == 2, path
        assert w.getframerate() == RATE, path
        data = w.readframes(w.getnframes())
    return np.frombuffer(data, dtype="<i2").astype(np.float32)


def reference(wav_path, out_path, dtype=np.float32):
    samples = read_pcm16(wav_path)  # int16 values, = [-1,1) samples * 32768
    waveform = torch.from_numpy(samples.astype(dtype)).unsqueeze(0)  # (1, n)
    feats = kaldi.fbank(
        waveform,
        dither=0.0,
        energy_floor=0.0,
        num_mel_bins=80,
        frame_length=25.0,
        frame_shift=10.0,
        preemphasis_coefficient=0.97,
        low_freq=20.0,
        high_freq=0.0,
        window_type="povey",
        snip_edges=True,
        remove_dc_offset=True,
        round_to_power_of_two=True,
        use_energy=False,
        sample_frequency=float(RATE),
    )
    arr = feats.numpy().astype("<f4")
    with open(out_path, "wb") as f:
        f.write(struct.pack("<ii", arr.shape[0], arr.shape[1]))
        f.write(arr.tobytes())
    print(f"{wav_path}: {len(samples)} samples -> {out_path}: {arr.shape}")


def main():
    if not os.path.exists("speech.wav"):
        make_speech("speech.wav")
    if not os.path.exists("noise.wav"):
        make_noise("noise.wav")
    for name in ("speech", "noise"):
        reference(name + ".wav", name + ".fbank.bin")
    reference("noise.wav", "noise.fbank64.bin", np.float64)


if __name__ == "__main__":
    main()
