package beam

import (
	"math/rand"
	"testing"
)

// countDec is a Markov decoder that closes done after steps calls of Step.
type countDec struct {
	markovDec
	n     *int
	steps int
	done  chan struct{}
}

func (d countDec) Step(prev int, logp []float32) Decoder {
	*d.n++
	if *d.n == d.steps {
		close(d.done)
	}
	d.markovDec.Step(prev, logp)
	return d
}

// TestSearchDone checks that a search stops at the first step after
// Options.Done is closed and returns nil.
func TestSearchDone(t *testing.T) {
	const V, beam = 6, 4
	table := randTable(rand.New(rand.NewSource(1)), V, V, 0.2)
	for _, row := range table {
		row[0] = -1e9 // EOS never wins: only MaxLen or Done ends the search
	}
	n := 0
	dec := countDec{markovDec: markovDec{table}, n: &n, steps: 10, done: make(chan struct{})}
	got := Search(dec, nil, 0, V, nil, Options{Beam: beam, MaxLen: 1000, EOS: 0, Done: dec.done})
	if got != nil {
		t.Errorf("Search returned %d hypotheses after Done, want nil", len(got))
	}
	// Done closes during a step; that step finishes (at most Beam calls).
	if n > dec.steps+beam {
		t.Errorf("%d decoder steps, want at most %d after Done", n, dec.steps+beam)
	}
	n = 0
	if got := Search(countDec{markovDec: dec.markovDec, n: &n, steps: -1}, nil, 0, V, nil, Options{Beam: beam, MaxLen: 20, EOS: 0}); len(got) == 0 {
		t.Error("Search without Done returned nothing")
	}
}
