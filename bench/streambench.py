# streambench.py [--n N] [--hours H] [--beam B] HEED CORPUS OUT: heed stream through a real pipe.
#
# Glues the first N utterances of CORPUS/dev.jsonl with pauses of 0.8-1.6 s
# into OUT.wav and feeds it at real-time pace (20 ms writes) through a pipe to
#   HEED stream --input s16le --rate 16000
# timestamping every line as it arrives. It reports:
#   - final latency: arrival of an utterance's final line after the end of its
#     speech (the gold time of its last word), p50/p95;
#   - partial cadence: audio seconds between the lines of one utterance, and
#     partial lag: arrival of a partial after the audio it covers was written;
#   - CER of the finals and of offline `HEED transcribe OUT.wav` against the
#     gold text, and of the finals against the offline transcript.
# With --hours H (e.g. 2) it then pipes H hours (the recording repeated) at
# full speed under /usr/bin/time -v and reports the peak RSS, the RSS sampled
# along the way and the speed as a multiple of real time.
#   python3 bench/streambench.py --n 40 --hours 2 ./heed corpus /tmp/sb
# (--beam B for both runs, --hours-beam B for the full-speed run only).
import argparse, json, os, random, subprocess, sys, threading, time, wave
from wer import dist

ap = argparse.ArgumentParser()
ap.add_argument('--n', type=int, default=40)
ap.add_argument('--hours', type=float, default=0)
ap.add_argument('--beam', type=int, default=0)
ap.add_argument('--hours-beam', type=int, default=0)
ap.add_argument('heed'); ap.add_argument('corpus'); ap.add_argument('out')
a = ap.parse_args()
random.seed(1)
sys.stdout.reconfigure(line_buffering=True)

def cer(hyp, ref):
    return 100 * dist(hyp, ref) / max(1, len(ref))

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float('nan')

# 1. The recording.
utts = [json.loads(l) for l in open(os.path.join(a.corpus, 'dev.jsonl'))][:a.n]
pcm = bytearray(); ends = []; refs = []; t = 0.5
pcm += b'\0\0' * 8000
for u in utts:
    w = wave.open(os.path.join(a.corpus, u['audio'])); assert w.getframerate() == 16000
    data = w.readframes(w.getnframes())
    ends.append(t + u['words'][-1]['end']); refs.append(u['text'])
    pcm += data; t += w.getnframes() / 16000
    n = int(random.uniform(0.8, 1.6) * 16000); pcm += b'\0\0' * n; t += n / 16000
w = wave.open(a.out + '.wav', 'wb'); w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000); w.writeframes(bytes(pcm)); w.close()
ref = ' '.join(refs)
beam = ['--beam', str(a.beam)] if a.beam else []
print('recording: %d utterances, %.1f s' % (len(utts), len(pcm) / 32000))

# 2. Real-time pace through a pipe.
p = subprocess.Popen([a.heed, 'stream', '--input', 's16le', '--rate', '16000'] + beam,
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
lines = []
def reader():
    for l in p.stdout:
        lines.append((time.monotonic(), json.loads(l)))
th = threading.Thread(target=reader); th.start()
chunk = 640  # 20 ms
t0 = time.monotonic()
for i in range(0, len(pcm), chunk):
    d = t0 + i / 32000 - time.monotonic()
    if d > 0:
        time.sleep(d)
    p.stdin.write(pcm[i:i + chunk])
p.stdin.close(); p.wait(); th.join()

finals = [(at, l) for at, l in lines if l['type'] == 'final']
lat = []
for e in ends:  # the final whose span holds the end of this utterance's speech
    got = [at for at, l in finals if l['start'] <= e <= l['end'] + 0.3]
    if got:
        lat.append(got[0] - (t0 + e))
gaps, lag = [], []
prev = {}
for at, l in lines:
    if l['start'] in prev:
        gaps.append(l['end'] - prev[l['start']])
    prev[l['start']] = l['end']
    if l['type'] == 'partial':
        lag.append(at - (t0 + l['end']))
print('finals: %d for %d utterances' % (len(finals), len(ends)))
print('final latency after end of speech: p50 %.0f ms, p95 %.0f ms, max %.0f ms' % (1000 * pct(lat, 50), 1000 * pct(lat, 95), 1000 * max(lat)))
print('partials: %d; audio between lines of an utterance: p50 %.0f ms, p95 %.0f ms, max %.0f ms' % (len(lag), 1000 * pct(gaps, 50), 1000 * pct(gaps, 95), 1000 * max(gaps)))
print('partial lag behind the audio written: p50 %.0f ms, p95 %.0f ms, max %.0f ms' % (1000 * pct(lag, 50), 1000 * pct(lag, 95), 1000 * max(lag)))

# 3. Finals against offline transcription of the same audio.
stream_text = ' '.join(l['text'] for _, l in finals if l['text'])
off = subprocess.run([a.heed, 'transcribe'] + beam + [a.out + '.wav'], capture_output=True, text=True, check=True).stdout.strip()
print('CER vs gold: stream finals %.2f%%, offline transcribe %.2f%%; finals vs offline %.2f%%' % (cer(stream_text, ref), cer(off, ref), cer(stream_text, off)))

# 4. Hours at full speed.
if a.hours > 0:
    total = int(a.hours * 3600 * 32000)
    hbeam = ['--beam', str(a.hours_beam)] if a.hours_beam else beam
    p = subprocess.Popen(['/usr/bin/time', '-v', a.heed, 'stream', '--input', 's16le', '--rate', '16000'] + hbeam,
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, bufsize=0)
    rss = []
    def sample():
        pid = None
        while p.poll() is None:
            try:
                kids = open('/proc/%d/task/%d/children' % (p.pid, p.pid)).read().split()
                for line in open('/proc/%s/status' % kids[0]):
                    if line.startswith('VmRSS'):
                        rss.append(int(line.split()[1]) // 1024)
            except (OSError, IndexError):
                pass
            time.sleep(2)
    st = threading.Thread(target=sample); st.start()
    t1 = time.monotonic(); sent = 0
    while sent < total:
        n = min(len(pcm), total - sent)
        p.stdin.write(pcm[:n]); sent += n
    p.stdin.close()
    err = p.stderr.read().decode(); p.wait(); st.join()
    wall = time.monotonic() - t1
    peak = [l for l in err.splitlines() if 'Maximum resident' in l]
    q = [rss[int(f * (len(rss) - 1))] for f in (0.1, 0.25, 0.5, 0.75, 1.0)] if rss else []
    print('%.1f h at full speed: %.0f s wall, %.1fx real time; %s; RSS (MB) at 10/25/50/75/100%% of the run: %s' %
          (a.hours, wall, a.hours * 3600 / wall, peak[0].strip() if peak else '?', q))
