# longaudio.py MINUTES OUT [CORPUS_DIR [MANIFEST]]: glues dev utterances (with 0.3-1 s pauses)
# into OUT.wav, OUT.txt (the transcript) and OUT.jsonl (one utterance with gold
# word times) to measure long-audio transcription and alignment:
#   python3 bench/longaudio.py 60 /tmp/long60 corpus
#   GOMAXPROCS=1 /usr/bin/time -v heed align --format tsv -o /tmp/x.tsv /tmp/long60.wav /tmp/long60.txt
#   heed eval align /tmp/long60.jsonl
# MANIFEST (default CORPUS_DIR/dev.jsonl) picks other utterances, such as the
# dev utterances whose words are all in pocketsphinx's dictionary (bench/run).
import json, wave, random, sys, os
random.seed(1)
minutes = float(sys.argv[1]); out = sys.argv[2]
base = sys.argv[3] if len(sys.argv) > 3 else 'corpus'
manifest = sys.argv[4] if len(sys.argv) > 4 else os.path.join(base, 'dev.jsonl')
utts = [json.loads(l) for l in open(manifest)]
frames = bytearray(); words = []; texts = []; t = 0.0
while t < minutes * 60:
    for u in utts:
        w = wave.open(os.path.join(base, u['audio']))
        assert w.getframerate() == 16000
        data = w.readframes(w.getnframes())
        for x in u['words']:
            words.append({'word': x['word'], 'start': round(t + x['start'], 4), 'end': round(t + x['end'], 4)})
        texts.append(u['text'])
        frames += data; t += w.getnframes() / 16000
        gap = random.uniform(0.3, 1.0); n = int(gap * 16000)
        frames += b'\x00\x00' * n; t += n / 16000
        if t >= minutes * 60: break
w = wave.open(out + '.wav', 'wb'); w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000); w.writeframes(bytes(frames)); w.close()
open(out + '.txt', 'w').write('\n'.join(texts) + '\n')
json.dump({'audio': os.path.abspath(out + '.wav'), 'text': ' '.join(texts), 'words': words, 'source': 'espeak-long', 'duration': t}, open(out + '.jsonl', 'w')); open(out + '.jsonl', 'a').write('\n')
print(out, round(t / 60, 1), 'min', len(words), 'words')
