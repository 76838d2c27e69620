package image

import (
	"github.com/gort-dev/gort/runtime/op"
)

// decodePNM reads the Netpbm formats: P1/P4 bitmaps, P2/P5 grey maps and
// P3/P6 pixmaps, ASCII and binary, 8- or 16-bit samples (16-bit keeps the
// rescaled value, not just the high byte, since maxval need not be 65535).
//
// Before allocating, the remaining input must be long enough for every
// sample (binary: its exact size; ASCII: one digit plus a separator each),
// so a tiny header declaring a huge image fails without allocating it.
func decodePNM(ctx *op.Context, b []byte) (*raster, error) {
	kind := b[1]
	p := &pnmReader{b: b, i: 2}
	nFields := 3
	if kind == '1' || kind == '4' {
		nFields = 2
	}
	var f [3]int
	f[2] = 1
	for i := range nFields {
		v, err := p.header()
		if err != nil {
			return nil, err
		}
		f[i] = v
	}
	w, h, maxv := f[0], f[1], f[2]
	if w <= 0 || h <= 0 {
		return nil, op.Errorf("ImageDecoder: PNM has invalid size %dx%d", w, h)
	}
	if maxv <= 0 || maxv > 65535 {
		return nil, op.Errorf("ImageDecoder: PNM maxval %d is outside 1..65535", maxv)
	}
	binary := kind >= '4'
	if binary {
		// Exactly one whitespace byte separates the header from the samples.
		if p.i >= len(b) || !isSpace(b[p.i]) {
			return nil, op.Errorf("ImageDecoder: PNM header is truncated")
		}
		p.i++
	}
	c := 1
	if kind == '3' || kind == '6' {
		c = 3
	}
	bps := 1
	if maxv > 255 {
		bps = 2
	}
	// Header values are at most 1<<30, so these products fit in int64.
	n := int64(w) * int64(h) * int64(c)
	var need int64
	switch kind {
	case '4':
		need = int64((w+7)/8) * int64(h)
	case '5', '6':
		need = n * int64(bps)
	case '1':
		need = n
	default: // ASCII samples: a digit and a separator each, bar the last
		need = 2*n - 1
	}
	if have := int64(len(b) - p.i); have < need {
		return nil, op.Errorf("ImageDecoder: PNM data is truncated (%dx%d needs %d bytes, have %d)", w, h, need, have)
	}
	r, err := newRaster(ctx, h, w, c)
	if err != nil {
		return nil, err
	}
	rest := b[p.i:]
	switch kind {
	case '4':
		rowBytes := (w + 7) / 8
		for y := range h {
			for x := range w {
				// 1 is black in a bitmap
				r.pix[y*w+x] = 255 * (1 - rest[y*rowBytes+x/8]>>(7-x%8)&1)
			}
		}
	case '5', '6':
		for i := range r.pix {
			v := int(rest[i*bps])
			if bps == 2 {
				v = v<<8 | int(rest[i*bps+1])
			}
			r.pix[i] = scaleMax(v, maxv)
		}
	case '1':
		for i := range r.pix {
			p.skipSpace()
			if p.i >= len(b) || (b[p.i] != '0' && b[p.i] != '1') {
				return nil, op.Errorf("ImageDecoder: PNM bitmap data is truncated or invalid")
			}
			r.pix[i] = 255 * ('1' - b[p.i])
			p.i++
		}
	default: // '2', '3'
		for i := range r.pix {
			v, err := p.header()
			if err != nil {
				return nil, op.Errorf("ImageDecoder: PNM sample data is truncated or invalid")
			}
			r.pix[i] = scaleMax(v, maxv)
		}
	}
	return r, nil
}

// scaleMax maps 0..maxv onto 0..255 with rounding; samples above maxv
// (malformed files) saturate.
func scaleMax(v, maxv int) uint8 {
	if v >= maxv {
		return 255
	}
	if maxv == 255 {
		return uint8(v)
	}
	return uint8((v*255 + maxv/2) / maxv)
}

type pnmReader struct {
	b []byte
	i int
}

// skipSpace skips whitespace and '#' comments, which may appear anywhere
// between header tokens.
func (p *pnmReader) skipSpace() {
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case isSpace(c):
			p.i++
		case c == '#':
			for p.i < len(p.b) && p.b[p.i] != '\n' && p.b[p.i] != '\r' {
				p.i++
			}
		default:
			return
		}
	}
}

// header reads one unsigned decimal, refusing values past 1<<30 so that
// later size arithmetic cannot overflow.
func (p *pnmReader) header() (int, error) {
	p.skipSpace()
	start, v := p.i, 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		v = v*10 + int(p.b[p.i]-'0')
		if v > 1<<30 {
			return 0, op.Errorf("ImageDecoder: PNM header value is too large")
		}
		p.i++
	}
	if p.i == start {
		return 0, op.Errorf("ImageDecoder: PNM header is truncated or invalid")
	}
	return v, nil
}
