# loose.py HEED MANIFEST N [RATE]: loose transcripts. For the first N
# utterances of MANIFEST (with gold word times) it deletes, inserts or
# replaces a share RATE (default 0.1) of the words (insertions and
# replacements drawn from the other utterances' words), aligns each with
# `HEED align --format json` and reports: the boundary error of the words
# that were spoken and kept (mean, share within 50 ms, beside the same
# utterances' clean transcripts), and how the words that were not spoken
# (inserted or replacing) are marked: share with status other than
# "aligned", and their mean confidence.
#   python3 bench/loose.py heed corpus/dev.jsonl 100
import json, os, random, subprocess, sys, tempfile
heed, man, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rate = float(sys.argv[4]) if len(sys.argv) > 4 else 0.1
rng = random.Random(1)
d = os.path.dirname(os.path.abspath(man))
utts = [json.loads(l) for l in open(man)][:n]
vocab = [w['word'] for u in utts for w in u['words']]
tmp = tempfile.mkdtemp()
def align(audio, text):
    p = os.path.join(tmp, 't.txt'); open(p, 'w').write(text)
    r = subprocess.run([heed, 'align', '--format', 'json', audio, p], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr)
    return json.loads(r.stdout)['words'], r.stderr
clean, loose, extra = [], [], []
skipped = 0
near = {'deleted': [], 'unspoken': [], 'neither': []}
for u in utts:
    audio = u['audio'] if os.path.isabs(u['audio']) else os.path.join(d, u['audio'])
    gold = u['words']
    toks = []  # (word, gold index or None)
    for i, w in enumerate(gold):
        x = rng.random()
        if x < rate / 3:
            continue  # deleted
        elif x < 2 * rate / 3:
            toks.append((rng.choice(vocab), None))  # replaced
        else:
            toks.append((w['word'], i))
            if x > 1 - rate / 3:
                toks.append((rng.choice(vocab), None))  # inserted after
    if not toks:
        skipped += 1  # every word deleted: nothing to align
        continue
    ws, _ = align(audio, ' '.join(w['word'] for w in gold))
    for w, g in zip(ws, gold):
        clean += [abs(w['start'] - g['start']), abs(w['end'] - g['end'])]
    ws, _ = align(audio, ' '.join(t[0] for t in toks))
    for w, (_, gi) in zip(ws, toks):
        if gi is None:
            extra.append((w['status'], w['confidence']))
        else:
            g = gold[gi]
            e = [abs(w['start'] - g['start']), abs(w['end'] - g['end'])]
            loose += e
            # What lies next to the word in the loose text: a spoken word
            # missing from it (its gold neighbour deleted), a word not
            # spoken, or neither.
            k = toks.index((w['word'], gi))
            nb = [toks[j][1] for j in (k - 1, k + 1) if 0 <= j < len(toks)]
            if any(x is None for x in nb):
                near['unspoken'] += e
            elif (gi > 0 and (k == 0 or toks[k - 1][1] != gi - 1)) or (gi + 1 < len(gold) and (k + 1 == len(toks) or toks[k + 1][1] != gi + 1)):
                near['deleted'] += e
            else:
                near['neither'] += e
def summ(e):
    return 'mean %.1f ms, within 50 ms %.1f%%' % (1000 * sum(e) / len(e), 100 * sum(x <= 0.05 for x in e) / len(e))
print('utterances %d, rate %.2f, %d skipped (every word deleted)' % (len(utts), rate, skipped))
print('clean transcript: ' + summ(clean))
print('loose, spoken words: ' + summ(loose))
for k, e in near.items():
    if e:
        print('loose, spoken words next to %s: %d edges, %s' % (
            {'deleted': 'a deleted word', 'unspoken': 'a word not spoken', 'neither': 'neither'}[k], len(e), summ(e)))
print('loose, words not spoken: %d, flagged (not aligned) %.1f%%, mean confidence %.2f' % (
    len(extra), 100 * sum(s != 'aligned' for s, _ in extra) / max(1, len(extra)), sum(c for _, c in extra) / max(1, len(extra))))
