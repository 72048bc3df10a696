#!/usr/bin/env python3
"""psasr.py: pocketsphinx's recognition error on heed manifests, for the
side-by-side rows of the model card (heed's own come from `heed eval asr`).

Usage: bench/psasr.py [-limit N] [-jobs J] MANIFEST...

Each utterance (the first N of each manifest, 0: all; the audio must be
16 kHz mono WAV, as heed-corpus writes it) is decoded by
pocketsphinx_continuous (Debian packages pocketsphinx and
pocketsphinx-en-us, the default US English acoustic model, dictionary and
3-gram LM), one process per file, J at a time. The hypothesis is lowercased
and cut to a-z, apostrophe and space (digits never come out of the default
LM); CER and WER are edit distances summed over the manifest and divided by
the reference length, as `heed eval asr` computes them. Prints one line per
manifest and source.
"""
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys


def edit(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def decode(path):
    out = subprocess.run(["pocketsphinx_continuous", "-infile", path, "-logfn", "/dev/null"],
                         capture_output=True, text=True, timeout=600).stdout
    hyp = " ".join(line.strip() for line in out.splitlines() if line.strip())
    hyp = re.sub(r"\(\d+\)", "", hyp.lower())
    hyp = re.sub(r"[^a-z' ]+", " ", hyp)
    return " ".join(hyp.split())


def main(argv):
    limit, jobs, files = 0, 2, []
    i = 0
    while i < len(argv):
        if argv[i] in ("-limit", "--limit"):
            limit = int(argv[i + 1]); i += 2
        elif argv[i] in ("-jobs", "--jobs"):
            jobs = int(argv[i + 1]); i += 2
        elif argv[i] in ("-h", "--help"):
            print(__doc__); return 0
        else:
            files.append(argv[i]); i += 1
    if not files:
        print(__doc__, file=sys.stderr); return 2
    for man in files:
        base = os.path.dirname(os.path.abspath(man))
        utts = [json.loads(l) for l in open(man) if l.strip()]
        if limit > 0:
            utts = utts[:limit]
        paths = [u["audio"] if os.path.isabs(u["audio"]) else os.path.join(base, u["audio"]) for u in utts]
        with cf.ThreadPoolExecutor(jobs) as ex:
            hyps = list(ex.map(decode, paths))
        by = {}
        for u, h in zip(utts, hyps):
            s = by.setdefault(u.get("source", ""), [0, 0, 0, 0, 0])
            s[0] += edit(u["text"], h); s[1] += len(u["text"])
            s[2] += edit(u["text"].split(), h.split()); s[3] += len(u["text"].split()); s[4] += 1
        for src, s in sorted(by.items()):
            print(f"{os.path.basename(man)}\t{src}\tpocketsphinx\tutts {s[4]}\tCER {100*s[0]/max(1,s[1]):.2f}%\tWER {100*s[2]/max(1,s[3]):.2f}%", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
