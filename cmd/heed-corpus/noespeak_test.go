//go:build !espeak

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestNoEspeakMessage(t *testing.T) {
	err := run(context.Background(), []string{"-out", filepath.Join(t.TempDir(), "c")}, &bytes.Buffer{}, &bytes.Buffer{})
	want := "built without espeak-ng support; rebuild with: go build -tags espeak ./cmd/heed-corpus"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}
