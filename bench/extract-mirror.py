#!/usr/bin/env python3
"""extract-mirror.py GITDIR OUTDIR [PATH-PREFIX...]

Writes the files of a bare git repository's HEAD into OUTDIR through one
`git cat-file --batch` process (one git process for every file was the
slow part), skipping blobs absent from the snapshot and saying how many.
With PATH-PREFIX arguments only paths under them are written."""
import os, subprocess, sys

def main():
    if len(sys.argv) < 3:
        sys.exit("usage: extract-mirror.py GITDIR OUTDIR [PATH-PREFIX...]")
    git_dir, out, prefixes = sys.argv[1], sys.argv[2], sys.argv[3:]
    tree = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", "HEAD"],
                          check=True, capture_output=True).stdout
    todo = []
    for entry in tree.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        _, typ, sha = meta.split()
        path = path.decode()
        if typ != b"blob" or (prefixes and not any(path.startswith(p) for p in prefixes)):
            continue
        todo.append((sha.decode(), path))
    cat = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    # Feed the names from a thread-free loop: one request, one answer.
    missing = 0
    for sha, path in todo:
        cat.stdin.write(sha.encode() + b"\n")
        cat.stdin.flush()
        head = cat.stdout.readline().split()
        if len(head) != 3:  # "<sha> missing"
            missing += 1
            continue
        size = int(head[2])
        data = cat.stdout.read(size)
        cat.stdout.read(1)  # the newline after the content
        dst = os.path.join(out, path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)
    cat.stdin.close()
    cat.wait()
    print(f"extract-mirror: {len(todo)} files listed, {missing} absent from the snapshot", file=sys.stderr)

main()
