package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
)

// ErrNotSphere is wrapped by the FormatError that DecodeSphere returns for
// input that is not a NIST SPHERE file at all (no "NIST_1A" line).
var ErrNotSphere = errors.New("not a NIST SPHERE file")

// SPHERE limits: larger claims are rejected as corrupt before anything is
// sized from them.
const (
	maxSphereHeader  = 1 << 16 // bytes; real headers are 1024
	maxSphereSamples = 1 << 32 // samples; 74 hours at 16 kHz
)

// sphereField is one "name -type value" line of a SPHERE header.
type sphereField struct {
	typ string // "-i", "-r" or "-sN"
	val string // the value as written ("-sN": exactly N bytes)
}

// sphereHeader is the parsed header of a SPHERE file.
type sphereHeader struct {
	size   int // header bytes, sample data follows
	fields map[string]sphereField
}

// DecodeSphere reads a NIST SPHERE file from r: uncompressed 16-bit PCM,
// one channel, either byte order, 8000..192000 Hz, at the file's own rate.
// name labels errors and warnings (usually the file path). See the
// package doc for the format and what is rejected. Errors are
// *FormatError (wrapping ErrNotSphere for input that is not SPHERE and
// io.ErrUnexpectedEOF for a header or data cut short), *UnsupportedError
// or a wrapped read error. Bytes after the last sample are ignored, and a
// sample_checksum that does not match the data gives a warning in
// Clip.Warnings.
func DecodeSphere(r io.Reader, name string) (*Clip, error) {
	hint := sizeHint(r)
	h, err := parseSphereHeader(r, name)
	if err != nil {
		return nil, err
	}
	info, bigEndian, err := h.info(name)
	if err != nil {
		return nil, err
	}
	if hint >= 0 {
		hint -= int64(h.size)
	}
	want := info.Frames * 2 // bytes of sample data
	if hint >= 0 && hint < want {
		return nil, formatErr(name, io.ErrUnexpectedEOF, "truncated data: header claims %d samples, file holds %d", info.Frames, hint/2)
	}
	c := &Clip{Rate: info.SampleRate, Info: info}
	c.Samples = make([]float32, 0, min(info.Frames, initialCap))
	if hint >= 0 {
		c.Samples = make([]float32, 0, info.Frames)
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if bigEndian {
		order = binary.BigEndian
	}
	var sum, swapped uint16 // SPHERE's checksum: the 16-bit sum of the samples
	buf := make([]byte, readBlock)
	var got int64
	for got < want {
		n, err := io.ReadFull(r, buf[:min(int64(len(buf)), want-got)])
		got += int64(n)
		for i := 0; i+2 <= n; i += 2 {
			v := order.Uint16(buf[i:])
			sum += v
			swapped += v>>8 | v<<8
			c.Samples = append(c.Samples, float32(int16(v))*(1.0/32768))
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, formatErr(name, io.ErrUnexpectedEOF, "truncated data: header claims %d samples, file holds %d", info.Frames, got/2)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: reading sample data: %w", fileName(name), err)
		}
	}
	if f, ok := h.fields["sample_checksum"]; ok {
		cs, err := strconv.ParseInt(strings.TrimSpace(f.val), 10, 64)
		switch {
		case f.typ != "-i" || err != nil:
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: sample_checksum %q is not an integer; not checked", fileName(name), f.val))
		case cs != int64(sum) && cs == int64(swapped):
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: sample_checksum %d matches the data only with the bytes swapped: is sample_byte_format wrong?", fileName(name), cs))
		case cs != int64(sum):
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: sample_checksum %d does not match the data (%d): damaged samples?", fileName(name), cs, sum))
		}
	}
	return c, nil
}

// ReadSphereFile decodes the SPHERE file at path like DecodeSphere.
func ReadSphereFile(path string) (*Clip, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	return DecodeSphere(f, path)
}

// parseSphereHeader reads the header: "NIST_1A\n", the header size in
// bytes as a decimal line ("   1024\n"), then "name -type value" lines up
// to "end_head", padding to the header size.
func parseSphereHeader(r io.Reader, name string) (*sphereHeader, error) {
	const magic = "NIST_1A\n"
	var pre [16]byte
	n, err := io.ReadFull(r, pre[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("%s: reading the SPHERE header: %w", fileName(name), err)
	}
	if !bytes.HasPrefix(pre[:n], []byte(magic)) {
		if n < len(magic) && n > 0 && bytes.HasPrefix([]byte(magic), pre[:n]) {
			return nil, formatErr(name, io.ErrUnexpectedEOF, "truncated header: file ends inside the NIST_1A line")
		}
		return nil, formatErr(name, ErrNotSphere, "not a NIST SPHERE file (no NIST_1A line)")
	}
	if n < len(pre) {
		return nil, formatErr(name, io.ErrUnexpectedEOF, "truncated header: file ends inside the header size line")
	}
	sizeLine := string(pre[len(magic):])
	size, err := strconv.Atoi(strings.TrimSpace(sizeLine))
	if err != nil || sizeLine[len(sizeLine)-1] != '\n' {
		return nil, formatErr(name, nil, "SPHERE header size line %q is not a number", strings.TrimRight(sizeLine, "\n"))
	}
	if size < len(pre) || size > maxSphereHeader {
		return nil, formatErr(name, nil, "SPHERE header size %d is outside %d..%d bytes", size, len(pre), maxSphereHeader)
	}
	rest := make([]byte, size-len(pre))
	if err := readFull(r, rest); err != nil {
		return nil, headerErr(name, "the SPHERE header", err)
	}
	h := &sphereHeader{size: size, fields: map[string]sphereField{}}
	for _, line := range strings.Split(string(rest), "\n") {
		line = strings.TrimLeft(strings.TrimSuffix(line, "\r"), " \t")
		if line == "" || line[0] == ';' {
			continue // blank lines and comments
		}
		if strings.TrimRight(line, " \t") == "end_head" {
			return h, nil
		}
		key, f, err := parseSphereLine(line)
		if err != nil {
			return nil, formatErr(name, nil, "SPHERE header line %q: %v", line, err)
		}
		if _, dup := h.fields[key]; dup {
			return nil, formatErr(name, nil, "SPHERE header field %s repeated", key)
		}
		h.fields[key] = f
	}
	return nil, formatErr(name, nil, "SPHERE header has no end_head line in its %d bytes", size)
}

// parseSphereLine splits "name -type value": -i integer, -r real, -sN a
// string of exactly N bytes (it may hold spaces; trailing white space
// beyond N bytes is tolerated).
func parseSphereLine(line string) (string, sphereField, error) {
	key, rest, ok := cutSpace(line)
	if !ok || key == "" {
		return "", sphereField{}, errors.New("want \"name -type value\"")
	}
	typ, val, _ := cutSpace(strings.TrimLeft(rest, " \t"))
	switch {
	case typ == "-i":
		if _, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64); err != nil {
			return "", sphereField{}, fmt.Errorf("%s -i: %q is not an integer", key, val)
		}
	case typ == "-r":
		if _, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err != nil {
			return "", sphereField{}, fmt.Errorf("%s -r: %q is not a number", key, val)
		}
	case strings.HasPrefix(typ, "-s"):
		n, err := strconv.Atoi(typ[2:])
		if err != nil || n < 0 || n > len(val) || strings.TrimSpace(val[n:]) != "" {
			return "", sphereField{}, fmt.Errorf("%s %s: value %q is not a string of that length", key, typ, val)
		}
		val = val[:n]
	default:
		return "", sphereField{}, fmt.Errorf("%s: unknown type %q (want -i, -r or -sN)", key, typ)
	}
	return key, sphereField{typ: typ, val: val}, nil
}

// cutSpace cuts s around its first space or tab.
func cutSpace(s string) (before, after string, found bool) {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// integer returns the value of an integer field (-i, or -r when whole),
// and whether the field is there.
func (h *sphereHeader) integer(name, key string) (int64, bool, error) {
	f, ok := h.fields[key]
	if !ok {
		return 0, false, nil
	}
	if f.typ == "-i" {
		v, _ := strconv.ParseInt(strings.TrimSpace(f.val), 10, 64) // parseSphereLine checked it
		return v, true, nil
	}
	if f.typ == "-r" {
		v, _ := strconv.ParseFloat(strings.TrimSpace(f.val), 64)
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v), true, nil
		}
	}
	return 0, true, formatErr(name, nil, "SPHERE field %s %s %q is not an integer", key, f.typ, f.val)
}

// info checks the header fields and describes the audio; bigEndian is the
// byte order of the samples.
func (h *sphereHeader) info(name string) (info Info, bigEndian bool, err error) {
	if f, ok := h.fields["sample_coding"]; ok {
		if c := strings.TrimSpace(f.val); c != "pcm" {
			return Info{}, false, unsupported(name, "SPHERE sample_coding %q (only uncompressed pcm is read; shorten-compressed files need w_decode or sph2pipe first)", c)
		}
	}
	nb, ok, err := h.integer(name, "sample_n_bytes")
	switch {
	case err != nil:
		return Info{}, false, err
	case !ok:
		return Info{}, false, formatErr(name, nil, "SPHERE header has no sample_n_bytes")
	case nb <= 0:
		return Info{}, false, formatErr(name, nil, "SPHERE sample_n_bytes %d", nb)
	case nb != 2:
		return Info{}, false, unsupported(name, "SPHERE sample_n_bytes %d (only 16-bit pcm is read)", nb)
	}
	ch, ok, err := h.integer(name, "channel_count")
	switch {
	case err != nil:
		return Info{}, false, err
	case !ok:
		ch = 1
	case ch <= 0:
		return Info{}, false, formatErr(name, nil, "SPHERE channel_count %d", ch)
	case ch != 1:
		return Info{}, false, unsupported(name, "SPHERE channel_count %d (only mono is read)", ch)
	}
	f, ok := h.fields["sample_byte_format"]
	switch bf := strings.TrimSpace(f.val); {
	case !ok:
		return Info{}, false, formatErr(name, nil, "SPHERE header has no sample_byte_format: byte order unknown")
	case bf == "01":
		info.Encoding = "pcm_s16le"
	case bf == "10":
		info.Encoding, bigEndian = "pcm_s16be", true
	case strings.HasPrefix(bf, "shortpack"):
		return Info{}, false, unsupported(name, "SPHERE sample_byte_format %q (compressed)", bf)
	default:
		return Info{}, false, formatErr(name, nil, "SPHERE sample_byte_format %q is not 01 or 10 for 2-byte samples", bf)
	}
	rate, ok, err := h.integer(name, "sample_rate")
	switch {
	case err != nil:
		return Info{}, false, err
	case !ok:
		return Info{}, false, formatErr(name, nil, "SPHERE header has no sample_rate")
	case rate <= 0:
		return Info{}, false, formatErr(name, nil, "SPHERE sample_rate %d", rate)
	case rate < MinRate || rate > MaxRate:
		return Info{}, false, unsupported(name, "sample rate %d Hz (want %d..%d)", rate, MinRate, MaxRate)
	}
	count, ok, err := h.integer(name, "sample_count")
	switch {
	case err != nil:
		return Info{}, false, err
	case !ok:
		return Info{}, false, formatErr(name, nil, "SPHERE header has no sample_count")
	case count < 0 || count > maxSphereSamples:
		return Info{}, false, formatErr(name, nil, "SPHERE sample_count %d is outside 0..%d", count, int64(maxSphereSamples))
	}
	info.Container = "sphere"
	info.BitsPerSample = 16
	info.SampleRate = int(rate)
	info.Channels = 1
	info.Frames = count
	return info, bigEndian, nil
}
