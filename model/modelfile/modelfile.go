// Package modelfile reads and writes heed's binary model container: a small
// JSON header followed by named float tensors and a SHA-256 trailer.
//
// # Layout
//
// All integers are little-endian. Offsets are in bytes from the start of the
// file; H is the header length and P the payload length.
//
//	offset      size  field
//	0           8     magic "HEEDMDL\x00"
//	8           4     uint32 format version, currently 1
//	12          4     uint32 H, the JSON header length in bytes
//	16          H     JSON header (UTF-8), padded with trailing spaces so
//	                  that the payload starts at a multiple of 8
//	16+H        P     payload: the tensors' elements, back to back, in
//	                  header order, each element little-endian f32 or f16
//	16+H+P      32    SHA-256 of bytes [0, 16+H+P), i.e. of everything
//	                  before it (magic, version, header length, header and
//	                  payload)
//
// The JSON header is an object with three keys:
//
//	{
//	  "meta": <the caller's header value, any JSON>,
//	  "payload_bytes": P,
//	  "tensors": [
//	    {"name": "enc.w", "shape": [2, 3], "dtype": "f32",
//	     "offset": 0, "count": 6},
//	    ...
//	  ]
//	}
//
// offset is the tensor's first byte relative to the payload start and count
// its number of elements (the product of shape; 1 for shape []). Tensors
// tile the payload exactly: the first starts at 0, each starts where the
// previous one ends, and the last ends at P. dtype is "f32" (4 bytes per
// element, IEEE 754 binary32) or "f16" (2 bytes, IEEE 754 binary16), per
// tensor: an F16 file keeps tensors marked Tensor.Exact (values that must
// survive bit for bit) in f32.
//
// # Precision
//
// F32 storage is bit-exact. F16 storage rounds each value to the nearest
// binary16 value, ties to even: normal values (magnitude 2⁻¹⁴ ≈ 6.1e-5 up
// to 65504) keep a relative error of at most 2⁻¹¹ ≈ 4.9e-4, smaller values
// become subnormals with an absolute error of at most 2⁻²⁵ ≈ 3.0e-8 (so
// values below 2⁻²⁵ become ±0), magnitudes of 65520 and above become ±Inf,
// and NaN stays NaN.
//
// # Verification
//
// Reading checks, in order: magic (ErrMagic), version (ErrVersion), that
// the header and the declared payload fit in the data (ErrTruncated; bytes
// after the checksum are ErrTrailing), the SHA-256 (ErrChecksum), and the
// tensor table (ErrHeader for bad JSON, dtypes, offsets or duplicate names,
// ErrShape when a count does not match its shape). Sizes claimed by the
// header are compared with the actual data length before anything is
// allocated for them. Every error is a *FormatError that wraps one of the
// sentinels, so errors.Is works.
package modelfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// Magic is the 8-byte file signature.
const Magic = "HEEDMDL\x00"

// Version is the format version that Write produces and Read accepts.
const Version = 1

const (
	prefixLen    = 16 // magic + version + header length
	checksumLen  = sha256.Size
	payloadAlign = 8
	// maxHeaderLen bounds the JSON header so that a corrupt length field
	// cannot make the reader parse an absurd amount of text.
	maxHeaderLen = 1 << 30
)

// DType is the on-disk element type of the tensors in a file.
type DType int

const (
	// F32 stores IEEE 754 binary32 values, 4 bytes each, bit-exact.
	F32 DType = iota
	// F16 stores IEEE 754 binary16 values, 2 bytes each, rounded to
	// nearest even (see the package doc for the precision).
	F16
)

// String returns the dtype's header spelling, "f32" or "f16".
func (d DType) String() string {
	switch d {
	case F32:
		return "f32"
	case F16:
		return "f16"
	}
	return fmt.Sprintf("DType(%d)", int(d))
}

// size returns the bytes per element.
func (d DType) size() int {
	if d == F16 {
		return 2
	}
	return 4
}

func parseDType(s string) (DType, bool) {
	switch s {
	case "f32":
		return F32, true
	case "f16":
		return F16, true
	}
	return 0, false
}

// Sentinel errors wrapped by *FormatError; test with errors.Is.
var (
	ErrMagic     = errors.New("not a heed model file (bad magic)")
	ErrVersion   = errors.New("unsupported format version")
	ErrTruncated = errors.New("file truncated")
	ErrTrailing  = errors.New("unexpected bytes after checksum")
	ErrChecksum  = errors.New("checksum mismatch")
	ErrHeader    = errors.New("malformed header")
	ErrShape     = errors.New("tensor shape mismatch")
	ErrNoTensor  = errors.New("no such tensor")
)

// FormatError reports a model file that cannot be used. Err is one of the
// package's sentinel errors; Problem says what exactly was wrong.
type FormatError struct {
	Problem string
	Err     error
}

func (e *FormatError) Error() string {
	return "modelfile: " + e.Err.Error() + ": " + e.Problem
}

// Unwrap returns the sentinel error.
func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(sentinel error, format string, args ...any) error {
	return &FormatError{Problem: fmt.Sprintf(format, args...), Err: sentinel}
}

// Tensor is a named dense array in row-major order.
type Tensor struct {
	Name  string
	Shape []int     // dimensions, outermost first; [] is a scalar
	Data  []float32 // len = product of Shape
	// Exact stores the tensor as f32 even in an F16 file, for values that
	// must survive bit for bit.
	Exact bool
}

// File is a loaded model file.
type File struct {
	Version int             // format version of the file
	Header  json.RawMessage // the caller's header value as written
	DType   DType           // F16 if any tensor was stored as f16, else F32
	Tensors []Tensor        // in file order; Data slices share one allocation
}

// Tensor returns the data of the tensor called name. When shape is given it
// must equal the stored shape exactly, otherwise the error wraps ErrShape;
// with no shape arguments the shape is not checked. A missing tensor gives an
// error wrapping ErrNoTensor. The returned slice aliases f's storage.
func (f *File) Tensor(name string, shape ...int) ([]float32, error) {
	for i := range f.Tensors {
		t := &f.Tensors[i]
		if t.Name != name {
			continue
		}
		if len(shape) > 0 && !slices.Equal(shape, t.Shape) {
			return nil, formatErr(ErrShape, "tensor %q has shape %v, want %v", name, t.Shape, shape)
		}
		return t.Data, nil
	}
	return nil, formatErr(ErrNoTensor, "tensor %q", name)
}

// tensorEntry is one row of the header's tensor table.
type tensorEntry struct {
	Name   string `json:"name"`
	Shape  []int  `json:"shape"`
	DType  string `json:"dtype"`
	Offset int64  `json:"offset"`
	Count  int64  `json:"count"`
}

// header is the JSON document between the fixed prefix and the payload.
type header struct {
	Meta         json.RawMessage `json:"meta"`
	PayloadBytes int64           `json:"payload_bytes"`
	Tensors      []tensorEntry   `json:"tensors"`
}

// elemCount returns the product of shape, or an error if a dimension is
// negative or the product exceeds limit.
func elemCount(shape []int, limit int64) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d", d)
		}
		if d == 0 {
			n = 0
			continue
		}
		if n > limit/int64(d) {
			return 0, fmt.Errorf("shape %v has more than %d elements", shape, limit)
		}
		n *= int64(d)
	}
	return n, nil
}

// Write encodes header and tensors in the format described in the package
// doc, storing every tensor as dtype (F32 for tensors marked Exact). header is marshalled with
// encoding/json (a json.RawMessage is stored as is; nil becomes null).
// Tensors must have unique, non-empty names and len(Data) equal to the
// product of Shape; otherwise Write returns an error before writing anything.
func Write(w io.Writer, header any, tensors []Tensor, dtype DType) error {
	if dtype != F32 && dtype != F16 {
		return fmt.Errorf("modelfile: write: unknown dtype %v", dtype)
	}
	meta, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("modelfile: write: marshal header: %w", err)
	}
	h, err := buildHeader(meta, tensors, dtype)
	if err != nil {
		return fmt.Errorf("modelfile: write: %w", err)
	}
	js, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("modelfile: write: marshal tensor table: %w", err)
	}
	if pad := (prefixLen + len(js)) % payloadAlign; pad != 0 {
		js = append(js, bytes.Repeat([]byte{' '}, payloadAlign-pad)...)
	}
	if len(js) > maxHeaderLen {
		return fmt.Errorf("modelfile: write: header is %d bytes, limit %d", len(js), maxHeaderLen)
	}

	sum := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, sum), 1<<16)
	var prefix [prefixLen]byte
	copy(prefix[:], Magic)
	binary.LittleEndian.PutUint32(prefix[8:], Version)
	binary.LittleEndian.PutUint32(prefix[12:], uint32(len(js)))
	bw.Write(prefix[:])
	bw.Write(js)
	// Encode in chunks; bufio.Writer remembers the first write error.
	chunk := make([]byte, 0, 1<<15)
	for _, t := range tensors {
		f16 := dtype == F16 && !t.Exact
		for _, v := range t.Data {
			if f16 {
				chunk = binary.LittleEndian.AppendUint16(chunk, F32ToF16(v))
			} else {
				chunk = binary.LittleEndian.AppendUint32(chunk, math.Float32bits(v))
			}
			if len(chunk) == cap(chunk) {
				bw.Write(chunk)
				chunk = chunk[:0]
			}
		}
	}
	bw.Write(chunk)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("modelfile: write: %w", err)
	}
	if _, err := w.Write(sum.Sum(nil)); err != nil {
		return fmt.Errorf("modelfile: write checksum: %w", err)
	}
	return nil
}

// buildHeader validates tensors and lays out the tensor table.
func buildHeader(meta []byte, tensors []Tensor, dtype DType) (*header, error) {
	h := &header{Meta: meta, Tensors: make([]tensorEntry, 0, len(tensors))}
	seen := make(map[string]bool, len(tensors))
	var off int64
	for i, t := range tensors {
		if t.Name == "" {
			return nil, fmt.Errorf("tensor %d has an empty name", i)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("duplicate tensor name %q", t.Name)
		}
		seen[t.Name] = true
		n, err := elemCount(t.Shape, math.MaxInt64/8)
		if err != nil {
			return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		if n != int64(len(t.Data)) {
			return nil, fmt.Errorf("tensor %q: shape %v needs %d values, have %d", t.Name, t.Shape, n, len(t.Data))
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		dt := dtype
		if t.Exact {
			dt = F32
		}
		h.Tensors = append(h.Tensors, tensorEntry{
			Name: t.Name, Shape: shape, DType: dt.String(), Offset: off, Count: n,
		})
		off += n * int64(dt.size())
	}
	h.PayloadBytes = off
	return h, nil
}

// WriteFile writes the model to path atomically: it writes a temporary file
// in the same directory, syncs it, and renames it over path. On any error the
// temporary file is removed and an existing file at path is left untouched.
// The new file gets mode 0644.
func WriteFile(path string, header any, tensors []Tensor, dtype DType) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if err = Write(tmp, header, tensors, dtype); err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("modelfile: write %s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("modelfile: write %s: close: %w", path, err)
	}
	if err = os.Rename(tmpName, path); err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	// Make the rename durable. Some file systems cannot sync a directory;
	// the data itself is already on disk, so that is not an error.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Read reads a whole model file from r and verifies it (see ReadBytes).
// An I/O error from r is returned wrapped, not as a *FormatError.
func Read(r io.Reader) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("modelfile: read: %w", err)
	}
	return ReadBytes(b)
}

// ReadFile reads and verifies the model file at path.
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("modelfile: %w", err)
	}
	f, err := ReadBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// OpenFile reads the model file at path and checks it as OpenBytes does.
func OpenFile(path string) (*Lazy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("modelfile: %w", err)
	}
	l, err := OpenBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// ReadBytes decodes and verifies a model file held in memory, for example
// one embedded with go:embed. The returned tensors do not alias b. All
// tensors share a single []float32 allocation, in file order.
func ReadBytes(b []byte) (*File, error) {
	l, err := open(b, true)
	if err != nil {
		return nil, err
	}
	f := &File{Version: l.Version, Header: l.Header, DType: l.DType, Tensors: make([]Tensor, len(l.entries))}
	data := make([]float32, l.total)
	var at int64
	for i, e := range l.entries {
		d := data[at : at+e.Count : at+e.Count]
		l.decode(d, i)
		f.Tensors[i] = Tensor{Name: e.Name, Shape: e.Shape, Data: d, Exact: l.sizes[i] == 4 && l.DType == F16}
		at += e.Count
	}
	return f, nil
}

// open checks b as ReadBytes does, the SHA-256 only when verify is set, and
// returns it with its tensor table checked but no tensor converted.
func open(b []byte, verify bool) (*Lazy, error) {
	n := int64(len(b))
	if n < int64(len(Magic)) {
		if !bytes.HasPrefix([]byte(Magic), b) {
			return nil, formatErr(ErrMagic, "file starts with %q", b)
		}
		return nil, formatErr(ErrTruncated, "%d bytes, need at least %d", n, prefixLen+checksumLen)
	}
	if string(b[:len(Magic)]) != Magic {
		return nil, formatErr(ErrMagic, "file starts with %q", b[:len(Magic)])
	}
	if n < prefixLen {
		return nil, formatErr(ErrTruncated, "%d bytes, need at least %d", n, prefixLen+checksumLen)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != Version {
		return nil, formatErr(ErrVersion, "version %d, this reader knows %d", v, Version)
	}
	hlen := int64(binary.LittleEndian.Uint32(b[12:]))
	if hlen > maxHeaderLen {
		return nil, formatErr(ErrHeader, "header length %d exceeds %d", hlen, maxHeaderLen)
	}
	if prefixLen+hlen+checksumLen > n {
		return nil, formatErr(ErrTruncated, "header of %d bytes does not fit in %d bytes", hlen, n)
	}
	var h header
	if err := json.Unmarshal(b[prefixLen:prefixLen+hlen], &h); err != nil {
		// A corrupted byte is far more likely than a writer bug, so
		// report the checksum when it fails.
		if verify && !checksumOK(b) {
			return nil, formatErr(ErrChecksum, "header is not valid JSON and the SHA-256 does not match")
		}
		return nil, formatErr(ErrHeader, "%v", err)
	}
	if h.PayloadBytes < 0 {
		return nil, formatErr(ErrHeader, "negative payload size %d", h.PayloadBytes)
	}
	avail := n - prefixLen - hlen - checksumLen
	if h.PayloadBytes > avail {
		return nil, formatErr(ErrTruncated, "payload of %d bytes, only %d present", h.PayloadBytes, avail)
	}
	if h.PayloadBytes < avail {
		return nil, formatErr(ErrTrailing, "%d bytes after the checksum", avail-h.PayloadBytes)
	}
	if verify && !checksumOK(b) {
		return nil, formatErr(ErrChecksum, "SHA-256 of the first %d bytes does not match the trailer", n-checksumLen)
	}
	payload := b[prefixLen+hlen : n-checksumLen]
	return checkTable(&h, payload)
}

func checksumOK(b []byte) bool {
	if len(b) < checksumLen {
		return false
	}
	body := b[:len(b)-checksumLen]
	sum := sha256.Sum256(body)
	return bytes.Equal(sum[:], b[len(body):])
}

// checkTable validates the tensor table against the payload. Nothing is
// allocated for the tensors' data.
func checkTable(h *header, payload []byte) (*Lazy, error) {
	l := &Lazy{Version: Version, Header: h.Meta, entries: h.Tensors, payload: payload,
		sizes: make([]int64, len(h.Tensors)), index: make(map[string]int, len(h.Tensors))}
	for i, e := range h.Tensors {
		dt, ok := parseDType(e.DType)
		if !ok {
			return nil, formatErr(ErrHeader, "tensor %q: unknown dtype %q", e.Name, e.DType)
		}
		if dt == F16 {
			l.DType = F16
		}
		l.sizes[i] = int64(dt.size())
	}
	plen := int64(len(payload))
	var off int64
	for i, e := range h.Tensors {
		esize := l.sizes[i]
		_, dup := l.index[e.Name]
		switch {
		case e.Name == "":
			return nil, formatErr(ErrHeader, "tensor %d has an empty name", i)
		case dup:
			return nil, formatErr(ErrHeader, "duplicate tensor %q", e.Name)
		case e.Offset != off:
			return nil, formatErr(ErrHeader, "tensor %q: offset %d, expected %d", e.Name, e.Offset, off)
		case e.Count < 0 || e.Count > (plen-off)/esize:
			return nil, formatErr(ErrHeader, "tensor %q: %d elements at offset %d overrun the %d-byte payload", e.Name, e.Count, off, plen)
		}
		l.index[e.Name] = i
		want, err := elemCount(e.Shape, plen/esize)
		if err != nil {
			return nil, formatErr(ErrShape, "tensor %q: %v", e.Name, err)
		}
		if want != e.Count {
			return nil, formatErr(ErrShape, "tensor %q: shape %v has %d elements, table says %d", e.Name, e.Shape, want, e.Count)
		}
		if e.Shape == nil {
			l.entries[i].Shape = []int{}
		}
		off += e.Count * esize
		l.total += e.Count
	}
	if off != plen {
		return nil, formatErr(ErrHeader, "tensors cover %d of %d payload bytes", off, plen)
	}
	return l, nil
}

// Lazy is a checked model file whose tensors are converted to float32 only
// when asked for, so that a program that needs some of them (the network
// but not the language model) converts only those. It keeps the file's
// bytes without copying them. Its methods are safe for concurrent use.
type Lazy struct {
	Version int             // format version of the file
	Header  json.RawMessage // the caller's header value as written
	DType   DType           // F16 if any tensor was stored as f16, else F32

	entries []tensorEntry  // the checked tensor table, in file order
	sizes   []int64        // bytes per element of each entry
	index   map[string]int // entry of each name
	payload []byte
	total   int64 // elements in all tensors
}

// OpenBytes checks a model file held in memory completely, as ReadBytes
// does (SHA-256 included), without converting any tensor.
func OpenBytes(b []byte) (*Lazy, error) { return open(b, true) }

// OpenTrusted checks a model file held in memory as OpenBytes does except
// for the SHA-256 of its contents: for bytes whose integrity is assured
// otherwise, such as a model embedded in the executable and verified by its
// tests, where hashing tens of megabytes would be most of a short
// program's start-up.
func OpenTrusted(b []byte) (*Lazy, error) { return open(b, false) }

// TensorInfo describes one stored tensor.
type TensorInfo struct {
	Name  string
	Shape []int
	DType DType
}

// Tensors lists the stored tensors in file order.
func (l *Lazy) Tensors() []TensorInfo {
	ts := make([]TensorInfo, len(l.entries))
	for i, e := range l.entries {
		dt := F32
		if l.sizes[i] == 2 {
			dt = F16
		}
		ts[i] = TensorInfo{Name: e.Name, Shape: e.Shape, DType: dt}
	}
	return ts
}

// Tensor returns a new float32 copy of the tensor called name, with the
// errors of File.Tensor.
func (l *Lazy) Tensor(name string, shape ...int) ([]float32, error) {
	i, err := l.find(name, shape)
	if err != nil {
		return nil, err
	}
	d := make([]float32, l.entries[i].Count)
	l.decode(d, i)
	return d, nil
}

// TensorInto converts the tensor called name into dst, which must hold
// exactly its elements (ErrShape otherwise), with the errors of
// File.Tensor.
func (l *Lazy) TensorInto(dst []float32, name string, shape ...int) error {
	i, err := l.find(name, shape)
	if err != nil {
		return err
	}
	if int64(len(dst)) != l.entries[i].Count {
		return formatErr(ErrShape, "tensor %q has %d elements, destination %d", name, l.entries[i].Count, len(dst))
	}
	l.decode(dst, i)
	return nil
}

// Span returns the file's bytes that hold the tensors for which keep is
// true, from the first of them to the end of the last (in file order), or
// nil when there is none. It does not copy them: it is for asking the
// kernel to map a part of the file before it is read (thp.Populate).
func (l *Lazy) Span(keep func(name string) bool) []byte {
	lo, hi := int64(-1), int64(0)
	for i, e := range l.entries {
		if keep(e.Name) {
			if lo < 0 {
				lo = e.Offset
			}
			hi = max(hi, e.Offset+e.Count*l.sizes[i])
		}
	}
	if lo < 0 {
		return nil
	}
	return l.payload[lo:hi:hi]
}

func (l *Lazy) find(name string, shape []int) (int, error) {
	i, ok := l.index[name]
	if !ok {
		return 0, formatErr(ErrNoTensor, "tensor %q", name)
	}
	if t := l.entries[i].Shape; len(shape) > 0 && !slices.Equal(shape, t) {
		return 0, formatErr(ErrShape, "tensor %q has shape %v, want %v", name, t, shape)
	}
	return i, nil
}

// decode converts entry i into d (its element count long).
func (l *Lazy) decode(d []float32, i int) {
	e := l.entries[i]
	src := l.payload[e.Offset : e.Offset+e.Count*l.sizes[i]]
	if l.sizes[i] == 2 {
		f16Decode(d, src)
		return
	}
	for j := range d {
		d[j] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*j:]))
	}
}
