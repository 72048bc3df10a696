#!/usr/bin/env bash
# extract-mirror.sh GITDIR OUTDIR [PATH-PREFIX...]
#
# Writes the files of a bare git repository's HEAD into OUTDIR, one blob at a
# time. `git archive` refuses snapshots whose largest blobs are absent (the
# speechocean762 snapshot lacks two score JSON files); this skips the blobs
# that are missing and says how many. With PATH-PREFIX arguments only paths
# under them are written.
set -euo pipefail
git_dir=$1 out=$2; shift 2
mkdir -p "$out"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
git --git-dir="$git_dir" ls-tree -r HEAD | while read -r mode type sha path; do
  [ "$type" = blob ] || continue
  if [ $# -gt 0 ]; then
    keep=0
    for p in "$@"; do case $path in "$p"*) keep=1 ;; esac; done
    [ $keep = 1 ] || continue
  fi
  echo "$sha $path"
done > "$tmp"
missing=0
while read -r sha path; do
  mkdir -p "$out/$(dirname "$path")"
  if ! git --git-dir="$git_dir" cat-file blob "$sha" > "$out/$path" 2>/dev/null; then
    rm -f "$out/$path"; missing=$((missing+1))
  fi
done < "$tmp"
echo "extract-mirror: $(wc -l < "$tmp") files listed, $missing absent from the snapshot" >&2
