package image

import (
	"encoding/binary"
	"math/bits"

	"github.com/gort-dev/gort/runtime/op"
)

// decodeBMP reads uncompressed Windows bitmaps: 1/4/8-bit palettes, 16-bit
// (5-5-5 or bit fields), 24-bit and 32-bit (BGRX or bit fields), bottom-up
// or top-down. RLE and embedded JPEG/PNG bitmaps are refused: they are rare
// and each would be another decoder to ship in the wasm binary.
//
// All sizes are checked against the input length before allocating, so the
// output can never be larger than the pixel data actually present.
func decodeBMP(ctx *op.Context, b []byte) (*raster, error) {
	le16 := func(o int) int { return int(binary.LittleEndian.Uint16(b[o:])) }
	le32 := func(o int) uint32 { return binary.LittleEndian.Uint32(b[o:]) }
	if len(b) < 26 {
		return nil, op.Errorf("ImageDecoder: BMP header is truncated")
	}
	off := int64(le32(10))
	dib := int64(le32(14))
	var w, h int64
	var bpp, comp, palEntry int
	var clrUsed uint32
	switch {
	case dib == 12: // BITMAPCOREHEADER (OS/2): 16-bit unsigned sizes, 3-byte palette
		w, h, bpp, palEntry = int64(le16(18)), int64(le16(20)), le16(24), 3
	case dib >= 40 && int64(len(b)) >= 14+40:
		w, h = int64(int32(le32(18))), int64(int32(le32(22)))
		bpp, comp, clrUsed, palEntry = le16(28), int(le32(30)), le32(46), 4
	default:
		return nil, op.Errorf("ImageDecoder: BMP header (size %d) is truncated or unknown", dib)
	}
	topDown := h < 0
	if topDown {
		h = -h
	}
	if w <= 0 || h <= 0 {
		return nil, op.Errorf("ImageDecoder: BMP has invalid size %dx%d", w, h)
	}

	// Bit masks scale each channel to 8 bits; the defaults are BI_RGB's.
	var masks [3]uint32
	switch {
	case comp == 0 && bpp == 16:
		masks = [3]uint32{0x7c00, 0x03e0, 0x001f}
	case comp == 0 && (bpp == 24 || bpp == 32):
		masks = [3]uint32{0xff0000, 0x00ff00, 0x0000ff}
	case comp == 0 && (bpp == 1 || bpp == 4 || bpp == 8):
	case comp == 3 && (bpp == 16 || bpp == 32): // BI_BITFIELDS: masks follow the 40-byte header
		if len(b) < 14+40+12 {
			return nil, op.Errorf("ImageDecoder: BMP bit-field masks are truncated")
		}
		masks = [3]uint32{le32(54), le32(58), le32(62)}
	case comp == 1 || comp == 2:
		return nil, op.Errorf("ImageDecoder: RLE-compressed BMP is not supported; %s", supported)
	default:
		return nil, op.Errorf("ImageDecoder: BMP with %d bits per pixel and compression %d is not supported; %s", bpp, comp, supported)
	}

	var pal [][3]uint8
	if bpp <= 8 {
		n := int64(1) << bpp
		if clrUsed > 0 && int64(clrUsed) < n {
			n = int64(clrUsed)
		}
		start := 14 + dib
		if start+n*int64(palEntry) > int64(len(b)) {
			return nil, op.Errorf("ImageDecoder: BMP palette is truncated")
		}
		pal = make([][3]uint8, 1<<bpp) // indices past the palette read as black
		for i := range n {
			p := b[start+i*int64(palEntry):]
			pal[i] = [3]uint8{p[2], p[1], p[0]}
		}
	}

	stride := (w*int64(bpp) + 31) / 32 * 4
	if off < 14 || off > int64(len(b)) || stride*h > int64(len(b))-off {
		return nil, op.Errorf("ImageDecoder: BMP pixel data is truncated (%dx%d at %d bits needs %d bytes from offset %d, have %d bytes)",
			w, h, bpp, stride*h, off, len(b))
	}
	r, err := newRaster(ctx, int(h), int(w), 3)
	if err != nil {
		return nil, err
	}
	var shift, width [3]int
	for i, m := range masks {
		shift[i] = bits.TrailingZeros32(m)
		if m != 0 {
			width[i] = bits.Len32(m >> shift[i])
		}
	}
	W, H := int(w), int(h)
	for y := range H {
		src := y // BMP rows are stored bottom-up unless the height is negative
		if !topDown {
			src = H - 1 - y
		}
		row := b[off+int64(src)*stride:]
		dst := r.pix[y*W*3 : (y+1)*W*3]
		for x := range W {
			var v uint32
			switch bpp {
			case 1, 4, 8:
				bit := x * bpp
				idx := row[bit/8] >> (8 - bpp - bit%8) & (1<<bpp - 1)
				copy(dst[3*x:3*x+3], pal[idx][:])
				continue
			case 16:
				v = uint32(binary.LittleEndian.Uint16(row[2*x:]))
			case 24:
				v = uint32(row[3*x]) | uint32(row[3*x+1])<<8 | uint32(row[3*x+2])<<16
			case 32:
				v = binary.LittleEndian.Uint32(row[4*x:])
			}
			for c := range 3 {
				dst[3*x+c] = scale8(uint64(v&masks[c])>>shift[c], width[c])
			}
		}
	}
	return r, nil
}

// scale8 maps an n-bit channel value onto 0..255 with rounding, so 5-bit
// 31 becomes 255 rather than 248.
func scale8(v uint64, n int) uint8 {
	if n == 0 {
		return 0
	}
	if n == 8 {
		return uint8(v)
	}
	maxv := uint64(1)<<n - 1
	return uint8((v*255 + maxv/2) / maxv)
}
