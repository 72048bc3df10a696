# alignab.py OLD_HEED NEW_HEED AUDIO TEXT [ROUNDS]: CPU time (user + system,
# getrusage of the children) of one `heed align` process per run, the two
# binaries interleaved round after round on one core (GOMAXPROCS=1), start-up
# included; prints the median, mean and least per binary. Copy freshly linked
# binaries first (cp): on this VM a binary just written by the linker ran up
# to 15% slower than a copy of it.
#
#   python3 bench/alignab.py /tmp/heed-old /tmp/heed-new testdata/hello.wav hello.txt 30
import resource, subprocess, sys

old, new, wav, txt = sys.argv[1:5]
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 30
bins = {'old': old, 'new': new}
cpu = {k: [] for k in bins}
env = {'GOMAXPROCS': '1', 'PATH': '/usr/bin:/bin'}
for _ in range(rounds):
    for k, b in bins.items():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([b, 'align', '--format', 'tsv', '-o', '/dev/null', wav, txt],
                       env=env, check=True, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[k].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
for k, v in cpu.items():
    v.sort()
    print('%s  median %.2f ms  mean %.2f ms  least %.2f ms  (%d runs)' % (
        k, 1000 * v[len(v) // 2], 1000 * sum(v) / len(v), 1000 * v[0], len(v)))
