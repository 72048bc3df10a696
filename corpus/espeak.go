//go:build espeak

package corpus

/*
#cgo LDFLAGS: -lespeak-ng
#include <stdlib.h>
#include <espeak-ng/speak_lib.h>

extern int heedEspeakCallback(short *wav, int n, espeak_EVENT *events);
*/
import "C"

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"unsafe"
)

// Espeak synthesizes speech with the espeak-ng C library. The library keeps
// global state, so there is one Espeak per process and its methods
// serialize on a mutex; use several processes to use several cores.
type Espeak struct {
	mu     sync.Mutex
	rate   int            // output sample rate in Hz (22050)
	counts map[string]int // phoneme counts of single words, see phonemeCount
}

var (
	espeakOnce sync.Once
	espeakInst *Espeak
	espeakErr  error

	// espeakRun collects the callback's output for the synthesis in
	// progress; guarded by Espeak.mu.
	espeakRun struct {
		samples []int16
		events  []synthEvent
	}
)

// NewEspeak initializes espeak-ng (once per process) in synchronous mode
// with phoneme events and returns the process's synthesizer.
func NewEspeak() (*Espeak, error) {
	espeakOnce.Do(func() {
		rate := C.espeak_Initialize(C.AUDIO_OUTPUT_SYNCHRONOUS, 500, nil, C.espeakINITIALIZE_PHONEME_EVENTS)
		if rate <= 0 {
			espeakErr = errors.New("corpus: espeak_Initialize failed (is espeak-ng-data installed?)")
			return
		}
		C.espeak_SetSynthCallback((*C.t_espeak_callback)(C.heedEspeakCallback))
		espeakInst = &Espeak{rate: int(rate), counts: make(map[string]int)}
	})
	return espeakInst, espeakErr
}

// SampleRate is the rate in Hz of the samples Synthesize returns.
func (e *Espeak) SampleRate() int { return e.rate }

//export heedEspeakCallback
func heedEspeakCallback(wav *C.short, n C.int, ev *C.espeak_EVENT) C.int {
	if wav != nil && n > 0 {
		espeakRun.samples = append(espeakRun.samples, unsafe.Slice((*int16)(unsafe.Pointer(wav)), int(n))...)
	}
	for p := ev; p != nil && p._type != C.espeakEVENT_LIST_TERMINATED; p = (*C.espeak_EVENT)(unsafe.Add(unsafe.Pointer(p), unsafe.Sizeof(*p))) {
		switch p._type {
		case C.espeakEVENT_WORD:
			espeakRun.events = append(espeakRun.events, synthEvent{phoneme: false, pos: int(p.text_position), length: int(p.length), sample: int(p.sample)})
		case C.espeakEVENT_PHONEME:
			b := (*[8]byte)(unsafe.Pointer(&p.id))
			name := b[:]
			if i := strings.IndexByte(string(name), 0); i >= 0 {
				name = name[:i]
			}
			espeakRun.events = append(espeakRun.events, synthEvent{phoneme: true, pos: int(p.text_position), sample: int(p.sample), name: string(name)})
		}
	}
	return 0
}

// Synthesize speaks text (a spoken-form transcript, see CheckText) with
// voice v. espeak-ng keeps waveform-generator state across calls (the
// phase of its pitch flutter, an automatic gain), so the exact samples
// (lengths vary by a few pitch periods) also depend on what the process
// synthesized before; a fresh process making the same sequence of calls
// gives the same output. It returns the samples in [-1, 1) at SampleRate and the time span
// of every word of text in seconds; see timeWords for how they are found.
func (e *Espeak) Synthesize(text string, v EspeakVoice) (samples []float32, words []Word, err error) {
	if err := CheckText(text); err != nil {
		return nil, nil, fmt.Errorf("corpus: espeak: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	name := C.CString(v.String())
	defer C.free(unsafe.Pointer(name))
	if rc := C.espeak_SetVoiceByName(name); rc != C.EE_OK {
		return nil, nil, fmt.Errorf("corpus: espeak: voice %q not found (error %d)", v.String(), int(rc))
	}
	vol := v.Volume
	if vol == 0 {
		vol = 100
	}
	for _, p := range []struct {
		par C.espeak_PARAMETER
		val int
	}{{C.espeakRATE, v.Rate}, {C.espeakPITCH, v.Pitch}, {C.espeakRANGE, v.Range}, {C.espeakVOLUME, vol}} {
		if rc := C.espeak_SetParameter(p.par, C.int(p.val), 0); rc != C.EE_OK {
			return nil, nil, fmt.Errorf("corpus: espeak: setting parameter %d to %d: error %d", int(p.par), p.val, int(rc))
		}
	}
	fields := strings.Fields(text)
	counts := make([]int, len(fields))
	for i, w := range fields {
		counts[i] = e.phonemeCount(v.Name, w)
	}
	ct := C.CString(text)
	defer C.free(unsafe.Pointer(ct))
	// espeak-ng draws from libc's rand() (breath and noise sources);
	// seeding it from the request keeps that part of the output a function
	// of text and voice.
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%+v", text, v)
	C.srand(C.uint(h.Sum32()))
	espeakRun.samples = espeakRun.samples[:0]
	espeakRun.events = espeakRun.events[:0]
	rc := C.espeak_Synth(unsafe.Pointer(ct), C.size_t(len(text)+1), 0, C.POS_CHARACTER, 0, C.espeakCHARS_UTF8, nil, nil)
	if rc != C.EE_OK {
		return nil, nil, fmt.Errorf("corpus: espeak: espeak_Synth failed for %q (error %d)", text, int(rc))
	}
	if len(espeakRun.samples) == 0 {
		return nil, nil, fmt.Errorf("corpus: espeak: no audio for %q", text)
	}
	samples = make([]float32, len(espeakRun.samples))
	for i, s := range espeakRun.samples {
		samples[i] = float32(s) / 32768
	}
	words, err = timeWords(text, counts, espeakRun.events, samples, e.rate)
	if err != nil {
		return nil, nil, fmt.Errorf("corpus: espeak: %q with %s: %w", text, v, err)
	}
	return samples, words, nil
}

// phonemeCount is the number of phonemes espeak-ng gives word when spoken
// alone in the current voice (named voice), or 0 if it cannot tell. Results
// are cached per voice and word; the caller holds e.mu.
func (e *Espeak) phonemeCount(voice, word string) int {
	key := voice + " " + word
	if n, ok := e.counts[key]; ok {
		return n
	}
	cw := C.CString(word)
	defer C.free(unsafe.Pointer(cw))
	p := unsafe.Pointer(cw)
	n := 0
	for p != nil {
		// Phoneme mode: espeak names, '|' between phonemes.
		ph := C.espeak_TextToPhonemes(&p, C.espeakCHARS_UTF8, C.int('|')<<8)
		if ph == nil {
			break
		}
		for _, tok := range strings.Split(C.GoString(ph), "|") {
			tok = strings.Trim(tok, "',%=_: ")
			if tok != "" {
				n++
			}
		}
	}
	e.counts[key] = n
	return n
}
