#!/usr/bin/env bash
# librispeech-copy.sh RESEMBLYZER-GITDIR FBAI-SPEECH-GITDIR OUTDIR
#
# Lays out the LibriSpeech test-other clips that reach us as openslr.org's
# archives unpack them, for heed-corpus -librispeech OUTDIR/LibriSpeech:
#   OUTDIR/LibriSpeech/test-other/SPK/CHAPTER/SPK-CHAPTER-NNNN.flac
#   OUTDIR/LibriSpeech/test-other/SPK/CHAPTER/SPK-CHAPTER.trans.txt
# The audio is the 100 test-other clips (10 speakers, utterances 0000-0009 of
# one chapter each) in github.com/resemble-ai/Resemblyzer audio_data/, which
# holds no transcripts; the transcripts are LibriSpeech's references as
# github.com/facebookresearch/fbai-speech keeps them for all 2,939 test-other
# utterances (is21_deep_bias/ref/test-other.biasing_100.tsv: ID, text in
# lower case, biasing lists), written back in upper case as trans.txt has
# them. A clip without a reference line is an error. DATA.md says more.
set -euo pipefail
res=$1 fbai=$2 out=$3/LibriSpeech/test-other
refs=$(mktemp)
trap 'rm -f "$refs"' EXIT
git --git-dir="$fbai" show HEAD:is21_deep_bias/ref/test-other.biasing_100.tsv | cut -f1,2 >"$refs"
rm -f "$out"/*/*/*.trans.txt.tmp # left by a run that failed
n=0
while read -r mode type sha path; do
  case $path in audio_data/librispeech_test-other/*/*.flac) ;; *) continue ;; esac
  id=$(basename "$path" .flac)
  IFS=- read -r spk ch _ <<<"$id"
  dir=$out/$spk/$ch
  mkdir -p "$dir"
  git --git-dir="$res" cat-file blob "$sha" >"$dir/$id.flac"
  text=$(awk -F'\t' -v id="$id" '$1 == id { print toupper($2); found = 1 } END { exit !found }' "$refs") ||
    { echo "librispeech-copy: $id: no reference line in fbai-speech" >&2; exit 1; }
  printf '%s %s\n' "$id" "$text" >>"$dir/$spk-$ch.trans.txt.tmp"
  n=$((n + 1))
done < <(git --git-dir="$res" ls-tree -r HEAD audio_data/librispeech_test-other)
for t in "$out"/*/*/*.trans.txt.tmp; do LC_ALL=C sort "$t" >"${t%.tmp}" && rm "$t"; done
git --git-dir="$res" show HEAD:audio_data/librispeech_test-other/LICENSE.TXT >"$out/../LICENSE.TXT"
git --git-dir="$res" show HEAD:audio_data/librispeech_test-other/SPEAKERS.TXT >"$out/../SPEAKERS.TXT"
echo "librispeech-copy: $n clips in $out"
