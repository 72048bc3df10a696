# longreal.py OUT MINUTES MANIFEST... [--snr DB] [--music P] [--pitch CENTS] [--seed N] [--gold speech|loud]
# Glues the utterances of one or more manifests (in order, repeated until
# MINUTES) into one long recording to test long-audio alignment the hard way:
# pauses of 0.3-3 s, music (synthetic chords, 1-4 s) between a share P of the
# sentences, noise at DB SNR over everything and, with --pitch, the whole
# recording pitch-shifted by CENTS (sox pitch: timing kept, recognition much
# worse, so text cannot be placed by what the model recognises).
# Writes OUT.wav, OUT.txt (one sentence a line), OUT.jsonl (one utterance with
# gold word times, for heed eval align) and OUT.sents.json (word count and gold
# edges per sentence, for bench/edges.py). Gold edges of a sentence are its
# first word's start and its last word's end; a manifest line without "words"
# contributes the edges of the speech in its clip (speech_edges): the first
# and last 5 ms frame of the clip's sustained speech, widened over the quiet
# sounds next to it (a fricative, a weak onset, a decaying vowel). With
# --gold loud, the gold of before: the first and last loud 10 ms frame, which
# a click or lip smack in the clip's silence can be, and which misses quiet
# onsets and decays (see bench/README.md). With --gold speech80, speech_edges
# of the clip high-passed at 80 Hz (4th-order Butterworth, both directions):
# the thumps below 60 Hz that some LibriVox microphones pick up (breath on the
# capsule, a desk) are not speech, and the plain gold counts them.
#   python3 bench/longreal.py /tmp/lr 5 corpus/dev.jsonl --snr 10 --music 0.2
#   heed align -o /tmp/lr.json /tmp/lr.wav /tmp/lr.txt
#   python3 bench/edges.py /tmp/lr.sents.json /tmp/lr.json
import json, os, random, subprocess, sys, tempfile, wave
import numpy as np

args = sys.argv[1:]
def opt(name, default):
    if name in args:
        i = args.index(name); v = args[i + 1]; del args[i:i + 2]; return type(default)(v)
    return default
snr = opt('--snr', 1000.0); music = opt('--music', 0.0); pitch = opt('--pitch', 0)
seed = opt('--seed', 1); goldkind = opt('--gold', 'speech')
out, minutes, manifests = args[0], float(args[1]), args[2:]
rng = random.Random(seed); nrng = np.random.default_rng(seed)
R = 16000

def load(path):
    w = wave.open(path)
    assert w.getframerate() == R and w.getnchannels() == 1 and w.getsampwidth() == 2, path
    return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768

def loud_edges(x):
    hop = R // 100
    n = len(x) // hop
    if n == 0:
        return 0.0, len(x) / R
    e = 10 * np.log10(np.mean(x[:n * hop].reshape(n, hop) ** 2, axis=1) + 1e-10)
    thr = max(np.percentile(e, 95) - 35, np.percentile(e, 5) + 10)
    loud = np.nonzero(e > thr)[0]
    if len(loud) == 0:
        return 0.0, len(x) / R
    return loud[0] * hop / R, (loud[-1] + 1) * hop / R

def speech_edges(x):
    """Start and end (s) of the speech in a clip, from its own levels.

    Levels of 5 ms frames, smoothed over 15 ms, in the whole band and above
    2 kHz (where fricatives lie); the floor of each is its 5th percentile
    (clips may be trimmed close to the speech: a higher percentile would lie
    in the speech). Speech is the first and last run of at least 50 ms (gaps
    of up to 20 ms bridged) whose frames are loud: over max(95th percentile
    - 35 dB, floor + 15 dB). Clicks and lip smacks are shorter and do not
    count. Each edge is then widened, across gaps of up to 20 ms, over the
    frames more than 10 dB over the floor in the whole
    band or above 2 kHz, by at most 200 ms: the quiet start of a fricative,
    a weak onset, a vowel's decay, a release."""
    hop = R // 200
    n = len(x) // hop
    if n < 20:
        return 0.0, len(x) / R
    fr = x[:n * hop].reshape(n, hop)
    sp = np.abs(np.fft.rfft(fr * np.hanning(hop), axis=1)) ** 2
    smooth = lambda p: 10 * np.log10(np.convolve(p, np.ones(3) / 3, 'same') + 1e-10)
    lv = smooth(np.mean(fr ** 2, axis=1)); hb = smooth(np.mean(sp[:, hop * 2000 // R:], axis=1))
    floor, hfloor = np.percentile(lv, 5), np.percentile(hb, 5)
    thr = max(np.percentile(lv, 95) - 35, floor + 15)
    loud = lv > thr
    for i in range(1, n):  # bridge gaps of up to 4 frames
        if not loud[i] and loud[i - 1]:
            j = i
            while j < n and not loud[j] and j - i < 5:
                j += 1
            if j < n and j - i <= 4 and loud[j]:
                loud[i:j] = True
    runs = []; i = 0
    while i < n:
        if loud[i]:
            j = i
            while j < n and loud[j]:
                j += 1
            if j - i >= 10:
                runs.append((i, j))
            i = j
        else:
            i += 1
    if not runs:
        return 0.0, len(x) / R
    live = (lv > floor + 10) | (hb > hfloor + 10)
    def widen(f, step):  # to the last live frame within 200 ms, across gaps of up to 20 ms
        g = f
        for k in range(1, 41):
            h = f + k * step
            if not 0 <= h < n or h not in range(g - 5, g + 6):
                break
            if live[h]:
                g = h
        return g
    a, b = widen(runs[0][0], -1), widen(runs[-1][1] - 1, 1)
    return a * hop / R, (b + 1) * hop / R

def highpass80(x):
    from scipy.signal import butter, sosfiltfilt
    return sosfiltfilt(butter(4, 80, 'highpass', fs=R, output='sos'), x).astype(np.float32)

def chords(sec):
    n = int(sec * R); t = np.arange(n) / R; y = np.zeros(n, np.float32)
    notes = [220, 261.6, 329.6, 392, 440, 523.3]
    step = int(0.4 * R)
    for s in range(0, n, step):
        seg = slice(s, min(n, s + step)); tt = t[seg] - t[s]
        for f in rng.sample(notes, 3):
            for h in (1, 2, 3):
                y[seg] += np.sin(2 * np.pi * f * h * tt) / h * np.exp(-3 * tt)
    return 0.05 * y

utts = []
for m in manifests:
    d = os.path.dirname(os.path.abspath(m))
    for l in open(m):
        u = json.loads(l)
        if not os.path.isabs(u['audio']):
            u['audio'] = os.path.join(d, u['audio'])
        utts.append(u)
parts = []; words = []; sents = []; texts = []; t = 0.0
def add(x):
    global t
    parts.append(x); t += len(x) / R
add(np.zeros(int(rng.uniform(0.3, 1.0) * R), np.float32))
while t < minutes * 60:
    for u in utts:
        x = load(u['audio']); t0 = t
        if u.get('words'):
            ws = [{'word': w['word'], 'start': round(t0 + w['start'], 4), 'end': round(t0 + w['end'], 4)} for w in u['words']]
        else:
            a, b = {'loud': loud_edges, 'speech': speech_edges, 'speech80': lambda x: speech_edges(highpass80(x))}[goldkind](x)
            toks = u['text'].split()
            ws = [{'word': w, 'start': round(t0 + a, 4), 'end': round(t0 + b, 4)} for w in toks]
        words += ws; texts.append(u['text'])
        sents.append({'words': len(ws), 'start': ws[0]['start'], 'end': ws[-1]['end'], 'text': u['text'], 'has_words': bool(u.get('words'))})
        add(x)
        if rng.random() < music:
            add(np.zeros(int(rng.uniform(0.2, 0.5) * R), np.float32))
            add(chords(rng.uniform(1, 4)))
        add(np.zeros(int(rng.uniform(0.3, 3.0) * R), np.float32))
        if t >= minutes * 60:
            break
y = np.concatenate(parts)
if snr < 1000:
    p = np.mean(y[np.abs(y) > 1e-4] ** 2)
    y = y + nrng.standard_normal(len(y)).astype(np.float32) * np.sqrt(p / 10 ** (snr / 10))
y = np.clip(y, -1, 1)
def write(path, y):
    w = wave.open(path, 'wb'); w.setnchannels(1); w.setsampwidth(2); w.setframerate(R)
    w.writeframes((y * 32767).astype(np.int16).tobytes()); w.close()
if pitch:
    tmp = out + '.tmp.wav'; write(tmp, y)
    subprocess.run(['sox', tmp, out + '.wav', 'pitch', str(pitch)], check=True); os.remove(tmp)
else:
    write(out + '.wav', y)
open(out + '.txt', 'w').write('\n'.join(texts) + '\n')
with open(out + '.jsonl', 'w') as f:
    f.write(json.dumps({'audio': os.path.abspath(out + '.wav'), 'text': ' '.join(texts), 'words': words, 'source': 'long', 'duration': t}) + '\n')
json.dump(sents, open(out + '.sents.json', 'w'))
print(out, round(t / 60, 1), 'min', len(sents), 'sentences', len(words), 'words')
