package model

import (
	"fmt"
	"strings"
)

// EOS is token 0: the end of a transcript, the decoder's start token, and the
// CTC blank (it never occurs in CTC targets).
const EOS = 0

// VocabSize is the number of output tokens: <eos>, space, apostrophe, a..z.
const VocabSize = 29

// DefaultVocab returns the fixed alphabet: index 0 "<eos>", 1 " ", 2 "'",
// 3..28 "a".."z".
func DefaultVocab() []string {
	v := make([]string, 0, VocabSize)
	v = append(v, "<eos>", " ", "'")
	for c := 'a'; c <= 'z'; c++ {
		v = append(v, string(c))
	}
	return v
}

// tokenOf maps a rune to its token id, or -1.
func tokenOf(r rune) int {
	switch {
	case r == ' ':
		return 1
	case r == '\'':
		return 2
	case r >= 'a' && r <= 'z':
		return 3 + int(r-'a')
	}
	return -1
}

// Encode maps a transcript to token ids (no <eos> appended). The text must
// use only the alphabet: lower-case a..z, space and apostrophe.
func Encode(text string) ([]int, error) {
	ids := make([]int, 0, len(text))
	col := 0
	for _, r := range text {
		id := tokenOf(r)
		if id < 0 {
			return nil, fmt.Errorf("model: character %q at rune %d of %q is outside the alphabet (a-z, space, apostrophe)", r, col, text)
		}
		ids = append(ids, id)
		col++
	}
	return ids, nil
}

// Decode maps token ids to text, skipping <eos>. It panics on an id outside
// [0, VocabSize).
func Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		switch {
		case id == EOS:
		case id == 1:
			b.WriteByte(' ')
		case id == 2:
			b.WriteByte('\'')
		case id >= 3 && id < VocabSize:
			b.WriteByte(byte('a' + id - 3))
		default:
			panic(fmt.Sprintf("model: Decode id %d out of range", id))
		}
	}
	return b.String()
}
