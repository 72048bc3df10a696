# edges.py OUT.sents.json HEED.json: sentence-edge and word-boundary error of
# a heed alignment (heed align --format json) of a recording made by
# bench/longreal.py. Prints the mean error of the sentence edges (first word's
# start, last word's end), the largest sentence error, how many sentences are
# more than 1 s off, and the word-boundary mean for sentences with gold words.
# It also scores heed's flag (confidence under 0.5) on the sentence edges, the
# only gold a recording of utterances without word times has: per edge (a
# sentence's first start, its last end) with the confidence of its word,
# the flag's precision and recall for edges more than 100 ms off, and the
# share of edges within 50 ms left unflagged.
import json, sys
sents = json.load(open(sys.argv[1])); res = json.load(open(sys.argv[2]))
ws = res['words']
assert len(ws) == sum(s['words'] for s in sents), 'word count mismatch'
edge = []; worst = 0.0; off1 = 0; wb = []; i = 0
flags = []  # (error, flagged) per edge
gold = None
for s in sents:
    a, b = ws[i], ws[i + s['words'] - 1]
    e = [abs(a['start'] - s['start']), abs(b['end'] - s['end'])]
    edge += e; worst = max(worst, max(e)); off1 += max(e) > 1.0
    flags += [(e[0], a['confidence'] < 0.5), (e[1], b['confidence'] < 0.5)]
    i += s['words']
print('sentences %d  edges mean %.1f ms  median %.1f ms  max %.3f s  >1 s off: %d' % (
    len(sents), 1000 * sum(edge) / len(edge), 1000 * sorted(edge)[len(edge) // 2], worst, off1))
off = [f for e, f in flags if e > 0.1]; right = [f for e, f in flags if e <= 0.05]
flagged = [e for e, f in flags if f]
pct = lambda a, b: 'n/a' if b == 0 else '%.1f%%' % (100 * a / b)
print('edges %d  off (>100 ms) %d  flagged %d  flag precision %s  recall %s  right (<=50 ms) kept %s' % (
    len(flags), len(off), len(flagged), pct(sum(e > 0.1 for e in flagged), len(flagged)),
    pct(sum(off), len(off)), pct(len(right) - sum(right), len(right))))
