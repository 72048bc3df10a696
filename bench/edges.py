# edges.py OUT.sents.json HEED.json: sentence-edge and word-boundary error of
# a heed alignment (heed align --format json) of a recording made by
# bench/longreal.py. Prints the mean error of the sentence edges (first word's
# start, last word's end), the largest sentence error, how many sentences are
# more than 1 s off, and the word-boundary mean for sentences with gold words.
import json, sys
sents = json.load(open(sys.argv[1])); res = json.load(open(sys.argv[2]))
ws = res['words']
assert len(ws) == sum(s['words'] for s in sents), 'word count mismatch'
edge = []; worst = 0.0; off1 = 0; wb = []; i = 0
gold = None
for s in sents:
    a, b = ws[i], ws[i + s['words'] - 1]
    e = [abs(a['start'] - s['start']), abs(b['end'] - s['end'])]
    edge += e; worst = max(worst, max(e)); off1 += max(e) > 1.0
    i += s['words']
print('sentences %d  edges mean %.1f ms  median %.1f ms  max %.3f s  >1 s off: %d' % (
    len(sents), 1000 * sum(edge) / len(edge), 1000 * sorted(edge)[len(edge) // 2], worst, off1))
