// Package npy reads and writes NumPy's .npy and .npz files, so that model
// inputs and expected outputs can come from Python as `np.save` writes them:
// format versions 1.0, 2.0 and 3.0 headers, little- and big-endian data,
// C and Fortran order, and the dtypes gort shares with NumPy (bool, intN,
// uintN, float16/32/64, complex64/128, fixed-width unicode strings).
// Writing produces version 1.0 (2.0 when the header needs it), little-endian,
// C order, with the header padded to 64 bytes as NumPy does.
package npy

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

const magic = "\x93NUMPY"

// descr maps NumPy type codes (without byte order) to dtypes.
var descr = map[string]tensor.DType{
	"b1": tensor.Bool, "i1": tensor.Int8, "u1": tensor.Uint8, "i2": tensor.Int16, "u2": tensor.Uint16,
	"i4": tensor.Int32, "u4": tensor.Uint32, "i8": tensor.Int64, "u8": tensor.Uint64,
	"f2": tensor.Float16, "f4": tensor.Float, "f8": tensor.Double, "c8": tensor.Complex64, "c16": tensor.Complex128,
}

func bad(format string, args ...any) error {
	return errs.New(errs.InvalidArgument, "npy: "+format, args...)
}

// Read decodes one .npy file (maxBytes bounds the data; ≤ 0: 2 GiB).
func Read(data []byte, maxBytes int64) (*tensor.Tensor, error) {
	if maxBytes <= 0 {
		maxBytes = 2 << 30
	}
	if len(data) < 10 || string(data[:6]) != magic {
		return nil, bad("not a .npy file (no \\x93NUMPY magic)")
	}
	major := data[6]
	var hlen, off int
	switch major {
	case 1:
		hlen, off = int(littleEndian{}.Uint16(data[8:10])), 10
	case 2, 3:
		if len(data) < 12 {
			return nil, bad("truncated header")
		}
		hlen, off = int(littleEndian{}.Uint32(data[8:12])), 12
	default:
		return nil, bad("format version %d.%d is not supported", major, data[7])
	}
	if hlen < 0 || off+hlen > len(data) {
		return nil, bad("header of %d bytes runs past the end of the file", hlen)
	}
	header := string(data[off : off+hlen])
	if major < 3 {
		for i := 0; i < len(header); i++ {
			if header[i] >= 0x80 {
				return nil, bad("version %d header is not ASCII", major)
			}
		}
	} else if !utf8.ValidString(header) {
		return nil, bad("version 3 header is not UTF-8")
	}
	h, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	body := data[off+hlen:]
	return decode(h, body, maxBytes)
}

type header struct {
	descr   string
	fortran bool
	shape   []int
}

// parseHeader reads the Python dict literal NumPy writes:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
func parseHeader(s string) (header, error) {
	var h header
	p := &lexer{s: strings.TrimSpace(s)}
	if !p.eat('{') {
		return h, bad("header %q is not a dict", s)
	}
	seen := map[string]bool{}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, ok := p.str()
		if !ok || !p.eatSpaced(':') {
			return h, bad("header %q: expected 'key': value", s)
		}
		p.space()
		switch key {
		case "descr":
			v, ok := p.str()
			if !ok {
				return h, bad("header: descr must be a string (structured dtypes are not supported)")
			}
			h.descr = v
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
			default:
				return h, bad("header: fortran_order must be True or False")
			}
		case "shape":
			sh, ok := p.tuple()
			if !ok {
				return h, bad("header: shape must be a tuple of integers")
			}
			h.shape = sh
		default:
			return h, bad("header: unknown key %q", key)
		}
		seen[key] = true
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat('}') {
				return h, bad("header %q: expected , or }", s)
			}
			break
		}
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, bad("header lacks %q", k)
		}
	}
	return h, nil
}

type lexer struct {
	s string
	i int
}

func (l *lexer) space() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\n' || l.s[l.i] == '\t') {
		l.i++
	}
}

func (l *lexer) eat(c byte) bool {
	if l.i < len(l.s) && l.s[l.i] == c {
		l.i++
		return true
	}
	return false
}

func (l *lexer) eatSpaced(c byte) bool { l.space(); return l.eat(c) }

func (l *lexer) word(w string) bool {
	if strings.HasPrefix(l.s[l.i:], w) {
		l.i += len(w)
		return true
	}
	return false
}

func (l *lexer) str() (string, bool) {
	if l.i >= len(l.s) || (l.s[l.i] != '\'' && l.s[l.i] != '"') {
		return "", false
	}
	q := l.s[l.i]
	end := strings.IndexByte(l.s[l.i+1:], q)
	if end < 0 {
		return "", false
	}
	v := l.s[l.i+1 : l.i+1+end]
	l.i += end + 2
	return v, true
}

func (l *lexer) tuple() ([]int, bool) {
	if !l.eat('(') {
		return nil, false
	}
	out := []int{}
	for {
		l.space()
		if l.eat(')') {
			return out, true
		}
		j := l.i
		for l.i < len(l.s) && l.s[l.i] >= '0' && l.s[l.i] <= '9' {
			l.i++
		}
		for l.i < len(l.s) && l.s[l.i] == 'L' { // Python 2 longs
			l.i++
		}
		n, err := strconv.Atoi(strings.TrimSuffix(l.s[j:l.i], "L"))
		if err != nil || n < 0 {
			return nil, false
		}
		out = append(out, n)
		l.space()
		if !l.eat(',') {
			l.space()
			if !l.eat(')') {
				return nil, false
			}
			return out, true
		}
	}
}

func decode(h header, body []byte, maxBytes int64) (*tensor.Tensor, error) {
	if len(h.descr) < 2 {
		return nil, bad("descr %q", h.descr)
	}
	order, code := h.descr[0], h.descr[1:]
	var bo byteOrder = littleEndian{}
	switch order {
	case '<', '|', '=':
	case '>':
		bo = bigEndian{}
	default:
		order, code = '|', h.descr
	}
	n, ok := tensor.Size(h.shape)
	if !ok {
		return nil, bad("shape %v overflows", h.shape)
	}
	if code[0] == 'U' {
		width, err := strconv.Atoi(code[1:])
		if err != nil || width < 0 {
			return nil, bad("descr %q", h.descr)
		}
		return decodeUnicode(h, body, n, width, bo, maxBytes)
	}
	dt, ok := descr[code]
	if !ok {
		return nil, bad("dtype %q is not supported", h.descr)
	}
	size := elemSize(code)
	if int64(n) > maxBytes/int64(size) {
		return nil, errs.New(errs.TooLarge, "npy: %d elements of %s exceed the budget of %d bytes", n, h.descr, maxBytes)
	}
	if len(body) < n*size {
		return nil, bad("data has %d bytes; shape %v of %s needs %d", len(body), h.shape, h.descr, n*size)
	}
	t := tensor.New(dt, h.shape...)
	b := body[:n*size]
	switch d := t.Data().(type) {
	case []bool:
		for i := range d {
			d[i] = b[i] != 0
		}
	case []int8:
		for i := range d {
			d[i] = int8(b[i])
		}
	case []uint8:
		copy(d, b)
	case []int16:
		for i := range d {
			d[i] = int16(bo.Uint16(b[2*i:]))
		}
	case []uint16:
		for i := range d {
			d[i] = bo.Uint16(b[2*i:])
		}
	case []int32:
		for i := range d {
			d[i] = int32(bo.Uint32(b[4*i:]))
		}
	case []uint32:
		for i := range d {
			d[i] = bo.Uint32(b[4*i:])
		}
	case []int64:
		for i := range d {
			d[i] = int64(bo.Uint64(b[8*i:]))
		}
	case []uint64:
		for i := range d {
			d[i] = bo.Uint64(b[8*i:])
		}
	case []float32:
		if dt == tensor.Float16 {
			for i := range d {
				d[i] = tensor.F16ToF32(bo.Uint16(b[2*i:]))
			}
		} else {
			for i := range d {
				d[i] = math.Float32frombits(bo.Uint32(b[4*i:]))
			}
		}
	case []float64:
		for i := range d {
			d[i] = math.Float64frombits(bo.Uint64(b[8*i:]))
		}
	case []complex64:
		for i := range d {
			d[i] = complex(math.Float32frombits(bo.Uint32(b[8*i:])), math.Float32frombits(bo.Uint32(b[8*i+4:])))
		}
	case []complex128:
		for i := range d {
			d[i] = complex(math.Float64frombits(bo.Uint64(b[16*i:])), math.Float64frombits(bo.Uint64(b[16*i+8:])))
		}
	default:
		return nil, bad("dtype %q has no storage", h.descr)
	}
	if h.fortran {
		return fromFortran(t), nil
	}
	return t, nil
}

func elemSize(code string) int {
	n, _ := strconv.Atoi(code[1:])
	if code == "b1" {
		return 1
	}
	return n
}

// decodeUnicode reads '<U<width>': width UTF-32 code units per element, NUL padded.
func decodeUnicode(h header, body []byte, n, width int, bo byteOrder, maxBytes int64) (*tensor.Tensor, error) {
	if width > 0 && int64(n) > maxBytes/int64(4*width) {
		return nil, errs.New(errs.TooLarge, "npy: string array exceeds the budget")
	}
	if len(body) < n*4*width {
		return nil, bad("data has %d bytes; %d strings of %d characters need %d", len(body), n, width, n*4*width)
	}
	t := tensor.New(tensor.String, h.shape...)
	d := t.Strings()
	for i := range d {
		var sb strings.Builder
		for j := 0; j < width; j++ {
			r := rune(bo.Uint32(body[4*(i*width+j):]))
			if r == 0 {
				break
			}
			sb.WriteRune(r)
		}
		d[i] = sb.String()
	}
	if h.fortran {
		return fromFortran(t), nil
	}
	return t, nil
}

// fromFortran reorders column-major data into gort's row-major layout.
func fromFortran(t *tensor.Tensor) *tensor.Tensor {
	shape := t.Shape()
	if len(shape) < 2 {
		return t
	}
	out := tensor.New(t.DType(), shape...)
	n := t.Len()
	idx := make([]int, len(shape))
	// Walk the row-major output; the column-major source offset has strides 1, d0, d0*d1, ….
	fstride := make([]int, len(shape))
	s := 1
	for i := range shape {
		fstride[i] = s
		s *= shape[i]
	}
	copyAt := elementCopier(out, t)
	for o := 0; o < n; o++ {
		src := 0
		for i, v := range idx {
			src += v * fstride[i]
		}
		copyAt(o, src)
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out
}

func elementCopier(dst, src *tensor.Tensor) func(o, s int) {
	switch d := dst.Data().(type) {
	case []bool:
		sd := src.Data().([]bool)
		return func(o, s int) { d[o] = sd[s] }
	case []int8:
		sd := src.Data().([]int8)
		return func(o, s int) { d[o] = sd[s] }
	case []uint8:
		sd := src.Data().([]uint8)
		return func(o, s int) { d[o] = sd[s] }
	case []int16:
		sd := src.Data().([]int16)
		return func(o, s int) { d[o] = sd[s] }
	case []uint16:
		sd := src.Data().([]uint16)
		return func(o, s int) { d[o] = sd[s] }
	case []int32:
		sd := src.Data().([]int32)
		return func(o, s int) { d[o] = sd[s] }
	case []uint32:
		sd := src.Data().([]uint32)
		return func(o, s int) { d[o] = sd[s] }
	case []int64:
		sd := src.Data().([]int64)
		return func(o, s int) { d[o] = sd[s] }
	case []uint64:
		sd := src.Data().([]uint64)
		return func(o, s int) { d[o] = sd[s] }
	case []float32:
		sd := src.Data().([]float32)
		return func(o, s int) { d[o] = sd[s] }
	case []float64:
		sd := src.Data().([]float64)
		return func(o, s int) { d[o] = sd[s] }
	case []complex64:
		sd := src.Data().([]complex64)
		return func(o, s int) { d[o] = sd[s] }
	case []complex128:
		sd := src.Data().([]complex128)
		return func(o, s int) { d[o] = sd[s] }
	case []string:
		sd := src.Data().([]string)
		return func(o, s int) { d[o] = sd[s] }
	}
	panic(fmt.Sprintf("npy: no copier for %T", dst.Data()))
}

// codeOf is the NumPy type code written for a dtype.
func codeOf(dt tensor.DType) (string, bool) {
	for c, d := range descr {
		if d == dt {
			if c == "b1" || c == "i1" || c == "u1" {
				return "|" + c, true
			}
			return "<" + c, true
		}
	}
	return "", false
}

// Write encodes a tensor as a .npy file (little-endian, C order).
func Write(t *tensor.Tensor) ([]byte, error) {
	var code string
	var body []byte
	if t.DType() == tensor.String {
		ss := t.Strings()
		width := 0
		for _, s := range ss {
			width = max(width, utf8.RuneCountInString(s))
		}
		code = "<U" + strconv.Itoa(width)
		body = make([]byte, 4*width*len(ss))
		for i, s := range ss {
			j := 0
			for _, r := range s {
				littleEndian{}.PutUint32(body[4*(i*width+j):], uint32(r))
				j++
			}
		}
	} else {
		c, ok := codeOf(t.DType())
		if !ok {
			return nil, bad("NumPy has no dtype for %s", t.DType())
		}
		code = c
		body = protoconv.RawBytes(t)
	}
	dims := make([]string, len(t.Shape()))
	for i, d := range t.Shape() {
		dims[i] = strconv.Itoa(d)
	}
	shape := "(" + strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	shape += ")"
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", code, shape)
	// Pad with spaces and a final newline so that the data starts at a multiple of 64.
	major, pre := byte(1), 10
	if len(dict)+1+pre > 65535 {
		major, pre = 2, 12
	}
	total := (pre + len(dict) + 1 + 63) / 64 * 64
	hdr := dict + strings.Repeat(" ", total-pre-len(dict)-1) + "\n"
	var b bytes.Buffer
	b.WriteString(magic)
	b.WriteByte(major)
	b.WriteByte(0)
	n := len(hdr)
	if major == 1 {
		b.Write([]byte{byte(n), byte(n >> 8)})
	} else {
		b.Write([]byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)})
	}
	b.WriteString(hdr)
	b.Write(body)
	return b.Bytes(), nil
}

// byteOrder reads and writes fixed-width integers (encoding/binary would
// pull its reflection-based codec into gort.wasm).
type byteOrder interface {
	Uint16([]byte) uint16
	Uint32([]byte) uint32
	Uint64([]byte) uint64
}

type littleEndian struct{}

func (littleEndian) Uint16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func (littleEndian) Uint32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func (l littleEndian) Uint64(b []byte) uint64 {
	return uint64(l.Uint32(b)) | uint64(l.Uint32(b[4:]))<<32
}
func (littleEndian) PutUint32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

type bigEndian struct{}

func (bigEndian) Uint16(b []byte) uint16 { return uint16(b[1]) | uint16(b[0])<<8 }
func (bigEndian) Uint32(b []byte) uint32 {
	return uint32(b[3]) | uint32(b[2])<<8 | uint32(b[1])<<16 | uint32(b[0])<<24
}
func (e bigEndian) Uint64(b []byte) uint64 { return uint64(e.Uint32(b[4:])) | uint64(e.Uint32(b))<<32 }
