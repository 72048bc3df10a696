#!/usr/bin/env bash
# extract-mirror.sh GITDIR OUTDIR [PATH-PREFIX...]
#
# Writes the files of a bare git repository's HEAD into OUTDIR. `git
# archive` refuses snapshots whose largest blobs are absent (the
# speechocean762 snapshot lacks two score JSON files); this skips the blobs
# that are missing and says how many. With PATH-PREFIX arguments only paths
# under them are written. The work is done by extract-mirror.py, through
# one `git cat-file --batch` (about 170 files a second here, where one git
# process a file wrote 13).
exec python3 "$(dirname "$0")/extract-mirror.py" "$@"
