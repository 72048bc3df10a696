# wer.py MANIFEST OUTPUT: word and character error rates of heed transcribe's
# text output (FILE<TAB>TEXT lines, or TEXT alone for one file) against a
# manifest (JSON Lines with "audio" and "text"), matched by file name; an
# output of one line with no tab is the whole manifest's text (one long file).
import json, os, sys

def dist(a, b):
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j - 1] + (a[i - 1] != b[j - 1]), prev[j] + 1, cur[j - 1] + 1)
        prev = cur
    return prev[len(b)]

if __name__ == '__main__':
    man = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    lines = open(sys.argv[2]).read().rstrip('\n').split('\n')
    if len(lines) == 1 and '\t' not in lines[0]:
        pairs = [(' '.join(u['text'] for u in man), lines[0])]
    else:
        hyp = {}
        for l in lines:
            f, _, t = l.partition('\t')
            hyp[os.path.basename(f)] = t
        pairs = [(u['text'], hyp.get(os.path.basename(u['audio']), '')) for u in man]
    we = wn = ce = cn = 0
    for ref, h in pairs:
        we += dist(ref.split(), h.split()); wn += len(ref.split())
        ce += dist(ref, h); cn += len(ref)
    print('utterances %d  WER %.2f%%  CER %.2f%%' % (len(pairs), 100 * we / wn, 100 * ce / cn))
