# blank.py: text whose audio is missing. It copies a recording made by
# bench/longreal.py with the speech of some sentences replaced by faint
# noise (about -80 dBFS), their text kept, or scores heed's alignment of
# such a copy: how many words of the blanked sentences heed flagged
# (confidence under 0.5), and the sentence-edge error of the others.
#   python3 bench/blank.py make /tmp/lrk3 /tmp/lrkx 10 25 40
#   heed align -o /tmp/lrkx.json /tmp/lrkx.wav /tmp/lrkx.txt
#   python3 bench/blank.py score /tmp/lrkx /tmp/lrkx.json
import json, shutil, sys, wave
import numpy as np

def make(src, dst, ks):
    w = wave.open(src + '.wav')
    params = w.getparams()
    y = np.frombuffer(w.readframes(w.getnframes()), np.int16).copy()
    sents = json.load(open(src + '.sents.json'))
    rng = np.random.default_rng(1)
    for k in ks:
        s = sents[k]
        a, b = int((s['start'] - 0.05) * params.framerate), int((s['end'] + 0.05) * params.framerate)
        y[a:b] = (rng.standard_normal(b - a) * 3).astype(np.int16)
        sents[k]['blanked'] = True
    o = wave.open(dst + '.wav', 'wb')
    o.setparams(params)
    o.writeframes(y.tobytes())
    o.close()
    shutil.copy(src + '.txt', dst + '.txt')
    json.dump(sents, open(dst + '.sents.json', 'w'))

def score(base, path):
    sents = json.load(open(base + '.sents.json'))
    ws = json.load(open(path))['words']
    i, flagged, blanked, edges = 0, 0, 0, []
    for s in sents:
        sw = ws[i:i + s['words']]
        if s.get('blanked'):
            blanked += len(sw)
            flagged += sum(w['confidence'] < 0.5 for w in sw)
        else:
            edges += [abs(sw[0]['start'] - s['start']), abs(sw[-1]['end'] - s['end'])]
        i += s['words']
    print('blanked words %d, flagged %d (%.1f%%); other sentences: edges mean %.1f ms' % (
        blanked, flagged, 100 * flagged / max(1, blanked), 1000 * sum(edges) / max(1, len(edges))))

if sys.argv[1] == 'make':
    make(sys.argv[2], sys.argv[3], [int(k) for k in sys.argv[4:]])
else:
    score(sys.argv[2], sys.argv[3])
