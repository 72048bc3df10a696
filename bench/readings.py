# readings.py HEED MANIFEST [N]: how often heed align picks the reading that
# was spoken, on a manifest with "written" text (heed-corpus -numbers-dev).
# For the first N utterances (default all) it runs HEED align on the audio
# and the written text, rebuilds the spoken text from each word's "spoken"
# (or its written letters) and compares it with the manifest's "text",
# spaces ignored ("per cent" = "percent", "i b m" = "ibm"). Prints the share
# of sentences whose every reading was right, then up to 15 misses.
import json, os, re, subprocess, sys, tempfile
heed, man = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else None
base = os.path.dirname(man)
utts = [json.loads(l) for l in open(man) if l.strip()][:n]
ok, misses = 0, []
with tempfile.NamedTemporaryFile('w', suffix='.txt') as tf:
    for u in utts:
        tf.seek(0); tf.truncate(); tf.write(u['written']); tf.flush()
        r = json.loads(subprocess.run([heed, 'align', os.path.join(base, u['audio']), tf.name],
                                      capture_output=True, text=True, check=True).stdout)
        parts = []
        for w in r['words']:
            parts.append(w.get('spoken') or ' '.join(x.strip("'") for x in re.findall(r"[a-z']+", w['word'].lower())))
        got = ' '.join(' '.join(parts).split())
        if got.replace(' ', '') == u['text'].replace(' ', ''):
            ok += 1
        else:
            misses.append((u['text'], got))
print('%d/%d sentences with every reading as spoken' % (ok, len(utts)))
for said, got in misses[:15]:
    print('said: ', said)
    print('chose:', got)
