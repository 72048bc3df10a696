package modelfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type testMeta struct {
	Arch   string `json:"arch"`
	Hidden int    `json:"hidden"`
}

func randTensor(rng *rand.Rand, name string, scale float64, shape ...int) Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	data := make([]float32, n)
	for i := range data {
		data[i] = float32(rng.NormFloat64() * scale)
	}
	return Tensor{Name: name, Shape: shape, Data: data}
}

func sampleTensors() []Tensor {
	rng := rand.New(rand.NewSource(1))
	return []Tensor{
		randTensor(rng, "enc.w", 0.1, 3, 5),
		randTensor(rng, "enc.b", 1, 5),
		{Name: "scalar", Shape: []int{}, Data: []float32{3.25}},
		{Name: "empty", Shape: []int{0, 4}, Data: []float32{}},
		randTensor(rng, "dec.w", 10, 2, 3, 4),
	}
}

func encode(t testing.TB, header any, ts []Tensor, dt DType) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, header, ts, dt); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	const f16RelTol = 0x1p-11
	cases := []struct {
		name     string
		header   any
		wantMeta string
		tensors  []Tensor
		dtype    DType
	}{
		{"f32 struct header", testMeta{"bigru", 256}, `{"arch":"bigru","hidden":256}`, sampleTensors(), F32},
		{"f16 struct header", testMeta{"bigru", 8}, `{"arch":"bigru","hidden":8}`, sampleTensors(), F16},
		{"raw header", json.RawMessage(`{"a":[1,2]}`), `{"a":[1,2]}`, sampleTensors()[:1], F32},
		{"nil header no tensors", nil, `null`, nil, F32},
		{"special values f32", map[string]int{"k": 1}, `{"k":1}`, []Tensor{{Name: "s", Shape: []int{6}, Data: []float32{
			float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), math.MaxFloat32, math.SmallestNonzeroFloat32}}}, F32},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := encode(t, c.header, c.tensors, c.dtype)
			hlen := binary.LittleEndian.Uint32(b[12:])
			if (prefixLen+hlen)%payloadAlign != 0 {
				t.Errorf("payload starts at %d, not %d-aligned", prefixLen+hlen, payloadAlign)
			}
			f, err := ReadBytes(b)
			if err != nil {
				t.Fatalf("ReadBytes: %v", err)
			}
			if f.Version != Version || f.DType != c.dtype {
				t.Errorf("version %d dtype %v, want %d %v", f.Version, f.DType, Version, c.dtype)
			}
			if string(f.Header) != c.wantMeta {
				t.Errorf("header %s, want %s", f.Header, c.wantMeta)
			}
			if len(f.Tensors) != len(c.tensors) {
				t.Fatalf("%d tensors, want %d", len(f.Tensors), len(c.tensors))
			}
			for i, want := range c.tensors {
				got := f.Tensors[i]
				if got.Name != want.Name || !slices.Equal(got.Shape, want.Shape) || len(got.Data) != len(want.Data) {
					t.Fatalf("tensor %d: got %q %v len %d, want %q %v len %d",
						i, got.Name, got.Shape, len(got.Data), want.Name, want.Shape, len(want.Data))
				}
				for j, w := range want.Data {
					g := got.Data[j]
					if c.dtype == F32 {
						if math.Float32bits(g) != math.Float32bits(w) {
							t.Fatalf("%s[%d] = %g, want %g bit-exact", want.Name, j, g, w)
						}
						continue
					}
					if d := math.Abs(float64(g - w)); d > f16RelTol*math.Abs(float64(w)) {
						t.Fatalf("%s[%d] = %g, want %g within %g relative", want.Name, j, g, w, f16RelTol)
					}
				}
			}
			// Read(io.Reader) must agree with ReadBytes.
			f2, err := Read(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if len(f2.Tensors) != len(f.Tensors) || string(f2.Header) != string(f.Header) {
				t.Errorf("Read and ReadBytes disagree")
			}
		})
	}
}

// TestExactInF16File checks that a tensor marked Exact keeps its float32
// bits in an F16 file while the others are rounded to half precision.
func TestExactInF16File(t *testing.T) {
	exact := []float32{16777215, 1.0000001, -3.3e-9}
	rounded := []float32{1.0000001, 3.14159}
	var buf bytes.Buffer
	err := Write(&buf, nil, []Tensor{
		{Name: "keys", Shape: []int{3}, Data: exact, Exact: true},
		{Name: "w", Shape: []int{2}, Data: rounded},
	}, F16)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if f.DType != F16 {
		t.Errorf("DType = %v, want f16", f.DType)
	}
	for i, v := range f.Tensors[0].Data {
		if v != exact[i] {
			t.Errorf("exact[%d] = %v, want %v", i, v, exact[i])
		}
	}
	if !f.Tensors[0].Exact || f.Tensors[1].Exact {
		t.Errorf("Exact flags = %v, %v; want true, false", f.Tensors[0].Exact, f.Tensors[1].Exact)
	}
	for i, v := range f.Tensors[1].Data {
		if v != F16ToF32(F32ToF16(rounded[i])) {
			t.Errorf("w[%d] = %v, want the half-precision %v", i, v, F16ToF32(F32ToF16(rounded[i])))
		}
	}
}

func TestF16FileSize(t *testing.T) {
	ts := sampleTensors()
	b32, b16 := encode(t, nil, ts, F32), encode(t, nil, ts, F16)
	f, err := ReadBytes(b16)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, x := range f.Tensors {
		n += len(x.Data)
	}
	h32 := int(binary.LittleEndian.Uint32(b32[12:]))
	h16 := int(binary.LittleEndian.Uint32(b16[12:]))
	if got, want := len(b16)-h16, prefixLen+2*n+checksumLen; got != want {
		t.Errorf("f16 file minus header = %d bytes, want %d", got, want)
	}
	if got, want := len(b32)-h32, prefixLen+4*n+checksumLen; got != want {
		t.Errorf("f32 file minus header = %d bytes, want %d", got, want)
	}
}

func TestTensorLookup(t *testing.T) {
	f, err := ReadBytes(encode(t, nil, sampleTensors(), F32))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		tensor  string
		shape   []int
		wantLen int
		wantErr error
	}{
		{"exact shape", "enc.w", []int{3, 5}, 15, nil},
		{"no shape check", "dec.w", nil, 24, nil},
		{"scalar", "scalar", nil, 1, nil},
		{"wrong shape", "enc.w", []int{5, 3}, 0, ErrShape},
		{"wrong rank", "enc.b", []int{5, 1}, 0, ErrShape},
		{"missing", "nope", nil, 0, ErrNoTensor},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := f.Tensor(c.tensor, c.shape...)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			if len(d) != c.wantLen {
				t.Errorf("len = %d, want %d", len(d), c.wantLen)
			}
		})
	}
}

func TestWriteRejects(t *testing.T) {
	cases := []struct {
		name    string
		header  any
		tensors []Tensor
		dtype   DType
	}{
		{"data shorter than shape", nil, []Tensor{{Name: "a", Shape: []int{2, 2}, Data: make([]float32, 3)}}, F32},
		{"negative dim", nil, []Tensor{{Name: "a", Shape: []int{-1}, Data: nil}}, F32},
		{"empty name", nil, []Tensor{{Name: "", Shape: []int{1}, Data: make([]float32, 1)}}, F32},
		{"duplicate", nil, []Tensor{{Name: "a", Shape: []int{1}, Data: make([]float32, 1)}, {Name: "a", Shape: []int{1}, Data: make([]float32, 1)}}, F32},
		{"unmarshalable header", make(chan int), nil, F32},
		{"bad dtype", nil, nil, DType(7)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, c.header, c.tensors, c.dtype); err == nil {
				t.Fatal("Write succeeded, want error")
			}
			if buf.Len() != 0 {
				t.Errorf("Write wrote %d bytes before failing", buf.Len())
			}
		})
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWriteIOError(t *testing.T) {
	full := len(encode(t, nil, sampleTensors(), F32))
	for _, n := range []int{0, 10, full / 2, full - 1} {
		if err := Write(&failWriter{n: n}, nil, sampleTensors(), F32); err == nil {
			t.Errorf("writer failing after %d bytes: Write returned nil", n)
		}
	}
}

// buildRaw assembles a file with an arbitrary JSON header and payload and a
// correct checksum, to test the validation behind the checksum.
func buildRaw(version uint32, hdr string, payload []byte) []byte {
	var b []byte
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint32(b, version)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(hdr)))
	b = append(b, hdr...)
	b = append(b, payload...)
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

func TestReadErrors(t *testing.T) {
	good := encode(t, testMeta{"x", 1}, sampleTensors(), F32)
	withTrailing := append(append([]byte{}, good...), 0)
	badMagic := append([]byte{}, good...)
	badMagic[0] = 'X'
	v2 := append([]byte{}, good...)
	binary.LittleEndian.PutUint32(v2[8:], 2)
	hugeHeader := append([]byte{}, good...)
	binary.LittleEndian.PutUint32(hugeHeader[12:], math.MaxUint32)

	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"magic prefix only", []byte("HEED"), ErrTruncated},
		{"wrong short", []byte("GIF8"), ErrMagic},
		{"bad magic", badMagic, ErrMagic},
		{"version 2", v2, ErrVersion},
		{"huge header length", hugeHeader, ErrHeader},
		{"trailing byte", withTrailing, ErrTrailing},
		{"version 2 raw", buildRaw(2, `{}`, nil), ErrVersion},
		{"not json", buildRaw(1, `{"tensors":`, nil), ErrHeader},
		{"payload claim exceeds data", buildRaw(1, `{"payload_bytes":1099511627776,"tensors":[]}`, nil), ErrTruncated},
		{"negative payload", buildRaw(1, `{"payload_bytes":-4,"tensors":[]}`, nil), ErrHeader},
		{"absurd count", buildRaw(1, `{"payload_bytes":8,"tensors":[{"name":"a","shape":[4611686018427387904],"dtype":"f32","offset":0,"count":4611686018427387904}]}`, make([]byte, 8)), ErrHeader},
		{"absurd shape", buildRaw(1, `{"payload_bytes":8,"tensors":[{"name":"a","shape":[1048576,1048576,1048576,1048576],"dtype":"f32","offset":0,"count":2}]}`, make([]byte, 8)), ErrShape},
		{"count vs shape", buildRaw(1, `{"payload_bytes":8,"tensors":[{"name":"a","shape":[3],"dtype":"f32","offset":0,"count":2}]}`, make([]byte, 8)), ErrShape},
		{"negative dim", buildRaw(1, `{"payload_bytes":8,"tensors":[{"name":"a","shape":[-2,-1],"dtype":"f32","offset":0,"count":2}]}`, make([]byte, 8)), ErrShape},
		{"bad dtype", buildRaw(1, `{"payload_bytes":8,"tensors":[{"name":"a","shape":[2],"dtype":"f64","offset":0,"count":2}]}`, make([]byte, 8)), ErrHeader},
		{"mixed dtype overrun", buildRaw(1, `{"payload_bytes":10,"tensors":[{"name":"a","shape":[2],"dtype":"f32","offset":0,"count":2},{"name":"b","shape":[2],"dtype":"f16","offset":8,"count":2}]}`, make([]byte, 10)), ErrHeader},
		{"gap", buildRaw(1, `{"payload_bytes":12,"tensors":[{"name":"a","shape":[2],"dtype":"f32","offset":4,"count":2}]}`, make([]byte, 12)), ErrHeader},
		{"uncovered payload", buildRaw(1, `{"payload_bytes":12,"tensors":[{"name":"a","shape":[2],"dtype":"f32","offset":0,"count":2}]}`, make([]byte, 12)), ErrHeader},
		{"duplicate name", buildRaw(1, `{"payload_bytes":8,"tensors":[{"name":"a","shape":[1],"dtype":"f32","offset":0,"count":1},{"name":"a","shape":[1],"dtype":"f32","offset":4,"count":1}]}`, make([]byte, 8)), ErrHeader},
		{"empty name", buildRaw(1, `{"payload_bytes":4,"tensors":[{"name":"","shape":[1],"dtype":"f32","offset":0,"count":1}]}`, make([]byte, 4)), ErrHeader},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := ReadBytes(c.in)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if f != nil {
				t.Errorf("got a file with an error")
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Problem == "" {
				t.Errorf("err %T is not a *FormatError with a Problem", err)
			}
		})
	}
	// The hand-built layout must itself be readable when valid.
	if _, err := ReadBytes(buildRaw(1, `{"meta":{},"payload_bytes":8,"tensors":[{"name":"a","shape":[2],"dtype":"f32","offset":0,"count":2}]}`, make([]byte, 8))); err != nil {
		t.Fatalf("valid hand-built file: %v", err)
	}
}

// TestEveryPrefixTruncated cuts a small file at every length.
func TestEveryPrefixTruncated(t *testing.T) {
	for _, dt := range []DType{F32, F16} {
		b := encode(t, testMeta{"x", 2}, sampleTensors()[:3], dt)
		for n := 0; n < len(b); n++ {
			_, err := ReadBytes(b[:n])
			if !errors.Is(err, ErrTruncated) {
				t.Fatalf("%v: prefix of %d/%d bytes: err = %v, want ErrTruncated", dt, n, len(b), err)
			}
		}
	}
}

// TestEveryByteFlipped flips each byte of a small file in turn.
func TestEveryByteFlipped(t *testing.T) {
	b := encode(t, testMeta{"x", 2}, sampleTensors()[:3], F16)
	hlen := int(binary.LittleEndian.Uint32(b[12:]))
	for i := range b {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			c := append([]byte{}, b...)
			c[i] ^= mask
			f, err := ReadBytes(c)
			if err == nil {
				t.Fatalf("byte %d ^ %#x: no error", i, mask)
			}
			if f != nil {
				t.Fatalf("byte %d: file returned with error", i)
			}
			// Outside the fixed prefix and header, only the checksum
			// can notice a change.
			if i >= prefixLen+hlen && !errors.Is(err, ErrChecksum) {
				t.Fatalf("byte %d (payload/trailer) ^ %#x: err = %v, want ErrChecksum", i, mask, err)
			}
			if i < len(Magic) && !errors.Is(err, ErrMagic) {
				t.Fatalf("byte %d (magic): err = %v, want ErrMagic", i, err)
			}
		}
	}
}

// TestLazy checks OpenBytes, OpenTrusted and OpenFile: the same tensors as
// ReadBytes, converted on request, the same errors, and that only
// OpenTrusted leaves the SHA-256 out.
func TestLazy(t *testing.T) {
	ts := sampleTensors()
	for _, dt := range []DType{F32, F16} {
		b := encode(t, testMeta{"x", 1}, ts, dt)
		f, err := ReadBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "m.heed")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fromFile, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, open := range []func([]byte) (*Lazy, error){OpenBytes, OpenTrusted} {
			l, err := open(b)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range []*Lazy{l, fromFile} {
				if string(l.Header) != string(f.Header) || l.DType != f.DType || len(l.Tensors()) != len(ts) {
					t.Fatalf("%v: header %s %v %d tensors, want %s %v %d", dt, l.Header, l.DType, len(l.Tensors()), f.Header, f.DType, len(ts))
				}
				for i, info := range l.Tensors() {
					want := f.Tensors[i]
					if info.Name != want.Name || !slices.Equal(info.Shape, want.Shape) {
						t.Fatalf("tensor %d: %q %v, want %q %v", i, info.Name, info.Shape, want.Name, want.Shape)
					}
					got, err := l.Tensor(info.Name, info.Shape...)
					if err != nil || !slices.Equal(got, want.Data) {
						t.Fatalf("%v %q: %v %v, want %v", dt, info.Name, got, err, want.Data)
					}
					into := make([]float32, len(want.Data))
					if err := l.TensorInto(into, info.Name); err != nil || !slices.Equal(into, want.Data) {
						t.Fatalf("%v %q into: %v %v, want %v", dt, info.Name, into, err, want.Data)
					}
				}
				if err := l.TensorInto(make([]float32, 2), "enc.b"); !errors.Is(err, ErrShape) {
					t.Errorf("TensorInto a short slice: %v, want ErrShape", err)
				}
				if _, err := l.Tensor("enc.b", 4); !errors.Is(err, ErrShape) {
					t.Errorf("wrong shape: %v, want ErrShape", err)
				}
				if _, err := l.Tensor("nope"); !errors.Is(err, ErrNoTensor) {
					t.Errorf("missing tensor: %v, want ErrNoTensor", err)
				}
			}
		}
		// A flipped payload byte: refused by OpenBytes, OpenFile and
		// ReadBytes, accepted (by design) by OpenTrusted.
		c := append([]byte{}, b...)
		c[len(c)-checksumLen-1] ^= 0x10
		if _, err := OpenBytes(c); !errors.Is(err, ErrChecksum) {
			t.Errorf("OpenBytes of a corrupt payload: %v, want ErrChecksum", err)
		}
		os.WriteFile(path, c, 0o644)
		if _, err := OpenFile(path); !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), path) {
			t.Errorf("OpenFile of a corrupt payload: %v, want ErrChecksum naming the file", err)
		}
		if _, err := OpenTrusted(c); err != nil {
			t.Errorf("OpenTrusted checks the SHA-256: %v", err)
		}
		// Structure is still checked without the checksum.
		if _, err := OpenTrusted(c[:len(c)-1]); !errors.Is(err, ErrTruncated) {
			t.Errorf("OpenTrusted of a truncated file: %v, want ErrTruncated", err)
		}
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.heed")
	if err := WriteFile(path, testMeta{"v1", 1}, sampleTensors(), F32); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Header) != `{"arch":"v1","hidden":1}` {
		t.Errorf("header %s", f.Header)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("stat: %v, mode %v", err, st.Mode())
	}
	before, _ := os.ReadFile(path)

	failures := []struct {
		name    string
		header  any
		tensors []Tensor
	}{
		{"bad tensor", testMeta{"v2", 2}, []Tensor{{Name: "a", Shape: []int{3}, Data: nil}}},
		{"bad header", make(chan int), sampleTensors()},
	}
	for _, c := range failures {
		t.Run(c.name, func(t *testing.T) {
			if err := WriteFile(path, c.header, c.tensors, F32); err == nil {
				t.Fatal("WriteFile succeeded, want error")
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Error("failed WriteFile changed the existing file")
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("directory holds %v, want only model.heed", names)
			}
		})
	}

	t.Run("replace", func(t *testing.T) {
		if err := WriteFile(path, testMeta{"v3", 3}, nil, F16); err != nil {
			t.Fatal(err)
		}
		f, err := ReadFile(path)
		if err != nil || string(f.Header) != `{"arch":"v3","hidden":3}` {
			t.Fatalf("after replace: %v %s", err, f.Header)
		}
	})
	t.Run("missing dir", func(t *testing.T) {
		if err := WriteFile(filepath.Join(dir, "no", "such", "m.heed"), nil, nil, F32); err == nil {
			t.Fatal("want error")
		}
	})
	t.Run("read missing", func(t *testing.T) {
		if _, err := ReadFile(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("err = %v, want ErrNotExist", err)
		}
	})
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestReadIOError(t *testing.T) {
	_, err := Read(io.MultiReader(strings.NewReader(Magic), errReader{}))
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("err = %v, want the reader's error", err)
	}
}

func BenchmarkReadBytes(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	ts := []Tensor{randTensor(rng, "w", 1, 512, 1024), randTensor(rng, "u", 1, 256, 1024)}
	for _, dt := range []DType{F32, F16} {
		data := encode(b, nil, ts, dt)
		b.Run(dt.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if _, err := ReadBytes(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkWrite(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	ts := []Tensor{randTensor(rng, "w", 1, 512, 1024)}
	for _, dt := range []DType{F32, F16} {
		b.Run(dt.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(4 * 512 * 1024)
			for i := 0; i < b.N; i++ {
				if err := Write(io.Discard, nil, ts, dt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFloat16: Float16 gives the stored binary16 bits that Tensor widens,
// from aligned and misaligned data, and nil for tensors stored as f32.
func TestFloat16(t *testing.T) {
	var buf bytes.Buffer
	w := []float32{1.0000001, 3.14159, -2, 0, 65504, 1e-7}
	err := Write(&buf, nil, []Tensor{
		{Name: "keys", Shape: []int{3}, Data: []float32{1, 2, 3}, Exact: true},
		{Name: "w", Shape: []int{6}, Data: w},
	}, F16)
	if err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	shifted := append([]byte{0}, b...)[1:] // the same bytes at an odd address
	for _, data := range [][]byte{b, shifted} {
		l, err := OpenTrusted(data)
		if err != nil {
			t.Fatal(err)
		}
		got := l.Float16("w")
		want, _ := l.Tensor("w")
		if len(got) != len(w) {
			t.Fatalf("Float16(w) has %d values, want %d", len(got), len(w))
		}
		for i, h := range got {
			if F16ToF32(h) != want[i] || h != F32ToF16(w[i]) {
				t.Errorf("w[%d]: bits %#04x (%g), Tensor %g", i, h, F16ToF32(h), want[i])
			}
		}
		if l.Float16("keys") != nil || l.Float16("nope") != nil {
			t.Error("Float16 of an f32 or missing tensor is not nil")
		}
	}
}

// TestLazySpan checks that Span returns the bytes of exactly the tensors
// kept: one float32 tensor's span decodes to its values, a float16 one's
// has two bytes a value, all of them reach from the first tensor to the
// end of the last, and none gives nil.
func TestLazySpan(t *testing.T) {
	ts := sampleTensors()
	for _, dt := range []DType{F32, F16} {
		l, err := OpenBytes(encode(t, testMeta{"x", 1}, ts, dt))
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, x := range ts {
			span := l.Span(func(name string) bool { return name == x.Name })
			size := 4
			if l.sizes[l.index[x.Name]] == 2 {
				size = 2
			}
			if len(span) != size*len(x.Data) {
				t.Fatalf("%v %q: span of %d bytes, want %d", dt, x.Name, len(span), size*len(x.Data))
			}
			if size == 4 {
				for i, v := range x.Data {
					if got := math.Float32frombits(binary.LittleEndian.Uint32(span[4*i:])); got != v {
						t.Fatalf("%q[%d]: span reads %v, want %v", x.Name, i, got, v)
					}
				}
			}
			total += len(span)
		}
		all := l.Span(func(string) bool { return true })
		if len(all) < total || &all[0] != &l.payload[l.entries[0].Offset] {
			t.Errorf("%v: span of all tensors has %d bytes, want at least %d from the first tensor", dt, len(all), total)
		}
		if s := l.Span(func(string) bool { return false }); s != nil {
			t.Errorf("%v: span of no tensor has %d bytes, want nil", dt, len(s))
		}
	}
}
