#!/usr/bin/env python3
# music.py: music and other non-speech that must give no words (issue 12),
# and speech over music that must still be transcribed.
#
#   python3 bench/music.py build [--out DIR] [--corpus DIR] [--real DIR]
#   python3 bench/music.py measure [--out DIR] [--stream N] HEED...
#
# build (as root it installs what it needs from Debian; no other network)
# renders real music and synthesises more into DIR (default
# /work/data/music), all 16 kHz mono 16-bit WAV:
#   short/  3-20 s clips: one from each MIDI file of openttd-openmsx and
#           planetblupi-music-midi (rendered by timidity with freepats),
#           one from each Ogg track of pathological and drascula-music, and
#           sox-synthesised tones, chords, arpeggios, drum-like noise bursts
#           and music under noise;
#   long/   three recordings of 1, 3 and 6 minutes glued from rendered and
#           Ogg tracks;
#   speech_clean.jsonl, speech_music.jsonl: 40 utterances from each of
#           corpus/dev.jsonl (espeak-ng), real/kathleen_dev.jsonl and
#           real/so762_dev.jsonl, as they are and with music under them at
#           10 dB SNR (music power a tenth of the speech's active level:
#           the 10 ms frames within 30 dB of the loudest).
# Everything is seeded: the same packages give the same files. Licences of
# the music are in DATA.md (test use only; nothing is committed).
#
# measure runs each HEED binary (nice 19, one job) on the set and prints per
# binary: clips of short/ and long/ that gave any word and the words they
# gave (heed transcribe --format json), finals with text from heed stream on
# the first N short clips (default 12), and CER/WER of heed eval asr on the
# speech with and without music.
import json, math, os, random, shutil, subprocess, sys, wave
from array import array

R = 16000
args = sys.argv[1:]


def opt(name, default):
    if name in args:
        i = args.index(name)
        v = args[i + 1]
        del args[i:i + 2]
        return type(default)(v)
    return default


OUT = opt('--out', '/work/data/music')
CORPUS = opt('--corpus', '/work/data/corpus')
REAL = opt('--real', '/work/data/real')
NSTREAM = opt('--stream', 12)
NICE = ['nice', '-n', '19']
SOURCES = [('openmsx', '/usr/share/games/openttd/baseset/openmsx'),  # MIDI
           ('blupi', 'debs/x/usr/share/planetblupi/music'),  # MIDI
           ('pathological', 'debs/x/usr/share/games/pathological/music'),  # Ogg
           ('drascula', 'debs/x/usr/share/scummvm/drascula/audio')]  # Ogg


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def read(path):
    w = wave.open(path)
    assert w.getframerate() == R and w.getnchannels() == 1 and w.getsampwidth() == 2, path
    a = array('h')
    a.frombytes(w.readframes(w.getnframes()))
    return a


def write(path, a):
    w = wave.open(path, 'wb')
    w.setnchannels(1)
    w.setsampwidth(2)
    w.setframerate(R)
    w.writeframes(a.tobytes())
    w.close()


def active_power(a):
    """Mean power of the 10 ms frames within 30 dB of the loudest."""
    hop = R // 100
    pw = [sum(v * v for v in a[i:i + hop]) / hop for i in range(0, len(a) - hop + 1, hop)]
    if not pw:
        return 0.0
    top = max(pw)
    act = [p for p in pw if p >= top / 1000]
    return sum(act) / len(act)


def install():
    need = [p for p in ('timidity', 'freepats', 'openttd-openmsx', 'sox')
            if subprocess.run(['dpkg', '-s', p], capture_output=True).returncode != 0]
    if need:
        run(['apt-get', 'install', '-y', '--no-install-recommends'] + need)
    debs = os.path.join(OUT, 'debs')
    os.makedirs(debs, exist_ok=True)
    for p in ('pathological', 'planetblupi-music-midi', 'drascula-music'):
        if not any(f.startswith(p + '_') for f in os.listdir(debs)):
            run(['apt-get', 'download', p], cwd=debs)
    for f in sorted(os.listdir(debs)):
        if f.endswith('.deb'):
            run(['dpkg', '-x', f, 'x'], cwd=debs)


def render():
    """Renders every MIDI and Ogg track to tracks/NAME.wav; returns the paths."""
    tracks = os.path.join(OUT, 'tracks')
    os.makedirs(tracks, exist_ok=True)
    out = []
    for name, d in SOURCES:
        d = d if d.startswith('/') else os.path.join(OUT, d)
        for f in sorted(os.listdir(d)):
            src = os.path.join(d, f)
            dst = os.path.join(tracks, name + '_' + os.path.splitext(f)[0] + '.wav')
            if not os.path.exists(dst):
                if f.endswith('.mid'):
                    run(NICE + ['timidity', '-c', '/etc/timidity/freepats.cfg', '-Ow', '-s', str(R),
                                '--output-mono', '-o', dst + '.tmp.wav', src], capture_output=True)
                    run(NICE + ['sox', dst + '.tmp.wav', '-b', '16', dst, 'norm', '-3'])
                    os.remove(dst + '.tmp.wav')
                elif f.endswith('.ogg'):
                    run(NICE + ['sox', src, '-r', str(R), '-c', '1', '-b', '16', dst, 'norm', '-3'])
                else:
                    continue
            out.append(dst)
    return out


NOTES = ['C3', 'D3', 'E3', 'F3', 'G3', 'A3', 'B3', 'C4', 'D4', 'E4', 'F4', 'G4', 'A4', 'B4', 'C5', 'E5', 'G5']


def synth(path, chain):
    run(NICE + ['sox', '-n', '-r', str(R), '-b', '16', '-c', '1', path] + chain)


def synthesised(short, rng):
    """sox-made music: tones, chords, arpeggios, drums, music under noise."""
    def note(kind, n, d):
        return ['synth', '%.3f' % d, kind, n, 'fade', '0', '%.3f' % d, '%.3f' % (d * 0.8), ':']

    def chord(kind, ns, d):
        c = ['synth', '%.3f' % d]
        for n in ns:
            c += [kind, n]
        return c + ['fade', '0', '%.3f' % d, '%.3f' % (d * 0.7), ':']

    made = []
    for i in range(4):  # steady and slowly changing tones
        d = rng.uniform(4, 15)
        f = rng.choice(['sine', 'triangle', 'square'])
        p = os.path.join(short, 'synth_tone%d.wav' % i)
        synth(p, ['synth', '%.1f' % d, f, '%d-%d' % (rng.randint(200, 500), rng.randint(200, 900)), 'tremolo', str(rng.choice([3, 5, 6])), '40', 'vol', '0.3'])
        made.append(p)
    for i in range(5):  # chord progressions with decays
        c = []
        beat = rng.uniform(0.4, 1.2)
        for k in range(int(rng.uniform(4, 16) / beat)):
            root = rng.randrange(len(NOTES) - 5)
            c += chord(rng.choice(['pluck', 'pluck', 'sine']), [NOTES[root], NOTES[root + 2], NOTES[root + 4]], beat)
        p = os.path.join(short, 'synth_chords%d.wav' % i)
        synth(p, c[:-1] + ['vol', '0.4'])
        made.append(p)
    for i in range(5):  # arpeggios and melodies
        c = []
        step = rng.choice([0.12, 0.18, 0.25, 0.33])
        n = int(rng.uniform(4, 18) / step)
        for k in range(n):
            c += note(rng.choice(['pluck', 'pluck', 'sine', 'square']), rng.choice(NOTES), step)
        p = os.path.join(short, 'synth_arp%d.wav' % i)
        synth(p, c[:-1] + ['vol', '0.4'])
        made.append(p)
    for i in range(4):  # drum-like bursts: kick, snare, hat
        c = []
        beat = rng.choice([0.25, 0.3, 0.375, 0.5])
        for k in range(int(rng.uniform(5, 15) / beat)):
            kind = rng.choice(['kick', 'snare', 'hat', 'hat', 'rest'])
            if kind == 'kick':
                c += ['synth', '%.3f' % beat, 'sine', '120-40', 'fade', '0', '%.3f' % beat, '%.3f' % (beat - 0.02), ':']
            elif kind == 'snare':
                c += ['synth', '%.3f' % beat, 'whitenoise', 'fade', '0', '%.3f' % beat, '%.3f' % (beat - 0.01), ':']
            elif kind == 'hat':
                c += ['synth', '%.3f' % beat, 'whitenoise', 'highpass', '6000', 'fade', '0', '0.06', '0.05', 'pad', '0', '%.3f' % (beat - 0.06), ':']
            else:
                c += ['synth', '%.3f' % beat, 'sine', '1', 'vol', '0', ':']
        p = os.path.join(short, 'synth_drums%d.wav' % i)
        synth(p, c[:-1] + ['vol', '0.5'])
        made.append(p)
    for i, src in enumerate([m for m in made if 'chords' in m or 'arp' in m][:5]):  # under noise
        p = os.path.join(short, 'synth_noisy%d.wav' % i)
        d = wave.open(src).getnframes() / R
        run(NICE + ['sox', '-m', src, '|sox -n -r %d -b 16 -c 1 -p synth %.3f %s vol %.2f' % (R, d, rng.choice(['pinknoise', 'whitenoise', 'brownnoise']), rng.uniform(0.02, 0.1)), '-b', '16', p])
        made.append(p)
    return made


def cut(src, dst, start, dur):
    a = read(src)
    s = int(start * R)
    write(dst, a[s:s + int(dur * R)])


def build():
    install()
    rng = random.Random(12)
    tracks = render()
    short, long_ = os.path.join(OUT, 'short'), os.path.join(OUT, 'long')
    for d in (short, long_):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    for t in tracks:
        n = wave.open(t).getnframes() / R
        dur = min(rng.uniform(3, 20), n - 1)
        if dur < 3:
            continue
        start = rng.uniform(min(2, n - dur), n - dur)
        cut(t, os.path.join(short, os.path.basename(t)), start, dur)
    synthesised(short, rng)
    order = tracks[:]
    rng.shuffle(order)
    k = 0
    for minutes in (1, 3, 6):
        a = array('h')
        while len(a) < minutes * 60 * R:
            a.extend(read(order[k % len(order)]))
            k += 1
        write(os.path.join(long_, 'long_%dmin.wav' % minutes), a[:minutes * 60 * R])
    # Speech with and without music under it.
    mixdir = os.path.join(OUT, 'speech_music')
    shutil.rmtree(mixdir, ignore_errors=True)
    os.makedirs(mixdir)
    clean, mixed = [], []
    for m in (os.path.join(CORPUS, 'dev.jsonl'), os.path.join(REAL, 'kathleen_dev.jsonl'), os.path.join(REAL, 'so762_dev.jsonl')):
        lines = [json.loads(l) for l in open(m) if l.strip()]
        for u in rng.sample(lines, 40):
            path = u['audio'] if os.path.isabs(u['audio']) else os.path.join(os.path.dirname(m), u['audio'])
            sp = read(path)
            t = rng.choice(tracks)
            mus = read(t)
            off = rng.randrange(max(1, len(mus) - len(sp)))
            mus = mus[off:off + len(sp)]
            mus.extend([0] * (len(sp) - len(mus)))
            gain = math.sqrt(active_power(sp) / 10 / max(active_power(mus), 1e-9))
            mix = array('h', (max(-32768, min(32767, int(round(s + gain * v)))) for s, v in zip(sp, mus)))
            name = os.path.join(mixdir, '%s_%s' % (u.get('source', 'x'), os.path.basename(path)))
            write(name, mix)
            c = dict(u, audio=os.path.abspath(path))
            c.pop('words', None)
            clean.append(c)
            mixed.append(dict(c, audio=name, aug='music10db', source=c.get('source', 'x')))
    for name, us in (('speech_clean.jsonl', clean), ('speech_music.jsonl', mixed)):
        with open(os.path.join(OUT, name), 'w') as f:
            for u in us:
                f.write(json.dumps(u) + '\n')
    print('built %s: %d short, 3 long, %d speech clips' % (OUT, len(os.listdir(short)), len(clean)))


def words_of(heed, paths):
    """Runs heed transcribe --format json and returns {file: words}."""
    p = subprocess.run(NICE + [heed, 'transcribe', '--format', 'json', '--jobs', '1'] + paths,
                       capture_output=True, text=True, check=True)
    out = {}
    for l in p.stdout.splitlines():
        o = json.loads(l)
        n = len(o.get('words') or [])
        assert n == len(o['text'].split()), o  # the text and the word list agree
        out[o['file']] = o['text']
    return out


def measure():
    short = sorted(os.path.join(OUT, 'short', f) for f in os.listdir(os.path.join(OUT, 'short')))
    long_ = sorted(os.path.join(OUT, 'long', f) for f in os.listdir(os.path.join(OUT, 'long')))
    for heed in args:
        print('== %s' % heed)
        for name, paths in (('short', short), ('long', long_)):
            got = words_of(heed, paths)
            bad = {os.path.basename(f): t for f, t in got.items() if t}
            print('transcribe %s: %d clips, %.1f min; %d gave words (%d words): %s' % (
                name, len(paths), sum(wave.open(p).getnframes() for p in paths) / R / 60, len(bad),
                sum(len(t.split()) for t in bad.values()), json.dumps(bad)[:2000]))
        nf, texts = 0, []
        for p in short[:NSTREAM]:
            with open(p, 'rb') as f:
                s = subprocess.run(NICE + [heed, 'stream', '--format', 'text'], stdin=f, capture_output=True, text=True, check=True)
            for l in s.stdout.splitlines():
                parts = l.split('\t')
                if len(parts) == 3 and parts[2].strip():
                    nf += 1
                    texts.append(os.path.basename(p) + ': ' + parts[2])
        print('stream: %d short clips; %d finals with text: %s' % (min(NSTREAM, len(short)), nf, json.dumps(texts)[:1000]))
        e = subprocess.run(NICE + [heed, 'eval', 'asr', '--jobs', '1', os.path.join(OUT, 'speech_clean.jsonl'),
                                   os.path.join(OUT, 'speech_music.jsonl')], capture_output=True, text=True, check=True)
        print(e.stdout.strip())
        sys.stdout.flush()


if __name__ == '__main__':
    if not args or args[0] not in ('build', 'measure'):
        sys.exit('usage: music.py build [--out DIR] [--corpus DIR] [--real DIR] | measure [--out DIR] [--stream N] HEED...')
    cmd = args.pop(0)
    build() if cmd == 'build' else measure()
