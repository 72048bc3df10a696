package modelfile

import (
	"bytes"
	"crypto/sha256"
	"math"
	"slices"
	"testing"
)

// FuzzRead feeds arbitrary bytes to ReadBytes. The seed corpus in
// testdata/fuzz/FuzzRead holds valid f32 and f16 files and damaged copies
// (made by the package's own Write). ReadBytes must not panic, and whatever
// it accepts must be self-consistent and survive a Write/ReadBytes round
// trip. Each input is tried as is and with its last 32 bytes replaced by a
// correct SHA-256, so that mutations reach the validation behind the
// checksum.
func FuzzRead(f *testing.F) {
	f.Add(encode(f, testMeta{"seed", 1}, sampleTensors()[:3], F32))
	f.Add(encode(f, nil, nil, F16))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAccepted(t, b)
		if len(b) >= checksumLen {
			fixed := append([]byte{}, b...)
			body := fixed[:len(fixed)-checksumLen]
			sum := sha256.Sum256(body)
			copy(fixed[len(body):], sum[:])
			checkAccepted(t, fixed)
		}
	})
}

// checkAccepted reads b and, if it is accepted, checks the result.
func checkAccepted(t *testing.T, b []byte) {
	t.Helper()
	file, err := ReadBytes(b)
	lazy, lerr := OpenBytes(b)
	if (err == nil) != (lerr == nil) || (err != nil && err.Error() != lerr.Error()) {
		t.Fatalf("ReadBytes error %v, OpenBytes error %v", err, lerr)
	}
	if _, terr := OpenTrusted(b); err == nil && terr != nil {
		t.Fatalf("OpenTrusted refuses what ReadBytes accepts: %v", terr)
	}
	if err == nil {
		for i, info := range lazy.Tensors() {
			d, err := lazy.Tensor(info.Name, info.Shape...)
			if err != nil || !slices.EqualFunc(d, file.Tensors[i].Data, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
				t.Fatalf("lazy tensor %q differs from ReadBytes' (%v)", info.Name, err)
			}
		}
	}
	if err != nil {
		if file != nil {
			t.Fatal("file and error both returned")
		}
		return
	}
	for _, ts := range file.Tensors {
		n, err := elemCount(ts.Shape, math.MaxInt64)
		if err != nil || n != int64(len(ts.Data)) {
			t.Fatalf("tensor %q: shape %v with %d values", ts.Name, ts.Shape, len(ts.Data))
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, file.Header, file.Tensors, file.DType); err != nil {
		t.Fatalf("re-Write of an accepted file: %v", err)
	}
	again, err := ReadBytes(buf.Bytes())
	if err != nil {
		t.Fatalf("re-read: %v", err)
	}
	if len(again.Tensors) != len(file.Tensors) {
		t.Fatalf("re-read %d tensors, want %d", len(again.Tensors), len(file.Tensors))
	}
	for i, ts := range file.Tensors {
		got := again.Tensors[i]
		if got.Name != ts.Name || !slices.Equal(got.Shape, ts.Shape) {
			t.Fatalf("tensor %d: %q %v, want %q %v", i, got.Name, got.Shape, ts.Name, ts.Shape)
		}
		for j, v := range ts.Data {
			w := got.Data[j]
			if math.Float32bits(v) != math.Float32bits(w) && !(math.IsNaN(float64(v)) && math.IsNaN(float64(w))) {
				t.Fatalf("%s[%d]: %g became %g", ts.Name, j, v, w)
			}
		}
	}
}
