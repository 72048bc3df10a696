# adapt.py [--heed BIN] [--min-minutes M] [--max-minutes M] [--blend B] MANIFEST...
# Measures heed adapt per speaker: each speaker's utterances (manifest order)
# are split alternately, the even ones (0, 2, ...) to adapt on and the odd
# ones to test on; the base model and the adapted one are scored on the test
# half with heed eval asr (defaults). --max-minutes caps the adaptation
# speech (the first even utterances up to it); --blend is heed adapt's
# (default 1: the adapted weights as trained); speakers with less than
# --min-minutes of it are left out. Prints per speaker, then pooled, CER/WER
# before and after. Needs one heed adapt run per speaker (about a minute for
# 12 minutes of speech on 2 cores).
#   python3 bench/adapt.py vctk/vctk_dev.jsonl
import collections, json, os, subprocess, sys, tempfile

args = sys.argv[1:]
def opt(name, default):
    if name in args:
        i = args.index(name); v = args[i + 1]; del args[i:i + 2]; return type(default)(v)
    return default
heed = opt('--heed', 'heed'); min_min = opt('--min-minutes', 0.0); max_min = opt('--max-minutes', 1e9)
blend = opt('--blend', 1.0)
by = collections.OrderedDict()
for m in args:
    d = os.path.dirname(os.path.abspath(m))
    for l in open(m):
        u = json.loads(l)
        if not os.path.isabs(u['audio']):
            u['audio'] = os.path.join(d, u['audio'])
        by.setdefault(u.get('speaker', ''), []).append(u)

def score(model, path):
    cmd = [heed, 'eval', 'asr', '--json', path] + (['--model', model] if model else [])
    r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()[0])
    return round(r['cer'] * r['chars']), r['chars'], round(r['wer'] * r['words']), r['words']

tot = [0] * 8
with tempfile.TemporaryDirectory() as tmp:
    print('speaker\tadapt_min\ttest_utts\tCER_before\tCER_after\tWER_before\tWER_after')
    for spk, us in by.items():
        fit, test, mins = [], us[1::2], 0.0
        for u in us[0::2]:
            if mins + u['duration'] / 60 > max_min:
                break
            fit.append(u); mins += u['duration'] / 60
        if mins < min_min or not test:
            continue
        a, b, m = (os.path.join(tmp, x) for x in ('fit.jsonl', 'test.jsonl', 'model.heed'))
        for p, xs in ((a, fit), (b, test)):
            with open(p, 'w') as f:
                f.writelines(json.dumps(x) + '\n' for x in xs)
        subprocess.run([heed, 'adapt', '--hold', '0', '--force', '--blend', str(blend), '--out', m, a], check=True, capture_output=True)
        s0, s1 = score(None, b), score(m, b)
        for i, v in enumerate(s0 + s1):
            tot[i] += v
        print('%s\t%.1f\t%d\t%.1f\t%.1f\t%.1f\t%.1f' % (spk, mins, len(test), 100 * s0[0] / s0[1], 100 * s1[0] / s1[1], 100 * s0[2] / s0[3], 100 * s1[2] / s1[3]), flush=True)
print('pooled\t\t\t%.1f\t%.1f\t%.1f\t%.1f' % (100 * tot[0] / tot[1], 100 * tot[4] / tot[5], 100 * tot[2] / tot[3], 100 * tot[6] / tot[7]))
