package image

import (
	"image"
	"image/color"
)

// ycbcrToRGB turns the standard JPEG decoder's planes into RGB the way
// libjpeg(-turbo) does by default, which is what the ONNX reference (PIL)
// and the spec ("fancy" upsampling) describe. Go's own conversion
// replicates each chroma sample instead, which differs by tens of levels at
// colour edges of 4:2:0 images.
//
// Chroma is interpolated 3:1 between neighbouring samples (h2v1, h1v2,
// h2v2, with libjpeg's alternating rounding biases), samples past the
// edge replicate the last real one (never the decoder's MCU padding), and
// the colour transform uses libjpeg's 16-bit fixed-point tables.
func ycbcrToRGB(m *image.YCbCr, dst []uint8) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	hs, vs := 1, 1
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		hs = 2
	case image.YCbCrSubsampleRatio420:
		hs, vs = 2, 2
	case image.YCbCrSubsampleRatio440:
		vs = 2
	case image.YCbCrSubsampleRatio411:
		hs = 4
	case image.YCbCrSubsampleRatio410:
		hs, vs = 4, 2
	}
	if m.Rect.Min != (image.Point{}) {
		// Not from image/jpeg (which always starts at the origin): the
		// plane alignment below would not hold, so convert sample by sample.
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				px, py := m.Rect.Min.X+x, m.Rect.Min.Y+y
				yi, ci := m.YOffset(px, py), m.COffset(px, py)
				o := (y*w + x) * 3
				dst[o], dst[o+1], dst[o+2] = color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
			}
		}
		return
	}
	cw, ch := (w+hs-1)/hs, (h+vs-1)/vs
	// libjpeg only interpolates horizontally when there are more than two
	// chroma columns; vertical-only (h1v2) interpolation has no such limit.
	hFancy := hs == 2 && cw > 2
	vFancy := vs == 2 && (hs == 1 || hFancy)
	cb, cr := make([]uint8, w), make([]uint8, w)
	sums := make([]int, cw)
	for y := 0; y < h; y++ {
		for k, plane := range [2][]uint8{m.Cb, m.Cr} {
			out := cb
			if k == 1 {
				out = cr
			}
			row := func(cy int) []uint8 {
				cy = min(max(cy, 0), ch-1)
				return plane[cy*m.CStride : cy*m.CStride+cw]
			}
			switch {
			case vFancy:
				// Weigh the nearer chroma row 3, the farther 1.
				near, far := row(y/2), row(y/2-1)
				bias := 1
				if y%2 == 1 {
					far, bias = row(y/2+1), 2
				}
				for i := range sums {
					sums[i] = 3*int(near[i]) + int(far[i])
				}
				if hs == 1 { // h1v2
					for x := range out {
						out[x] = uint8((sums[x] + bias) >> 2)
					}
					continue
				}
				for x := range out { // h2v2
					i := x / 2
					if x%2 == 0 {
						out[x] = uint8((3*sums[i] + sums[max(i-1, 0)] + 8) >> 4)
					} else {
						out[x] = uint8((3*sums[i] + sums[min(i+1, cw-1)] + 7) >> 4)
					}
				}
			case hFancy && vs == 1: // h2v1
				r := row(y)
				for x := range out {
					i := x / 2
					if x%2 == 0 {
						out[x] = uint8((3*int(r[i]) + int(r[max(i-1, 0)]) + 1) >> 2)
					} else {
						out[x] = uint8((3*int(r[i]) + int(r[min(i+1, cw-1)]) + 2) >> 2)
					}
				}
			default: // no interpolation: replicate, as libjpeg's plain upsamplers do
				r := row(y / vs)
				for x := range out {
					out[x] = r[x/hs]
				}
			}
		}
		yrow := m.Y[y*m.YStride:]
		d := dst[y*w*3 : (y+1)*w*3]
		for x := 0; x < w; x++ {
			yy := int(yrow[x])
			d[3*x] = clamp8(yy + crR[cr[x]])
			d[3*x+1] = clamp8(yy + (cbG[cb[x]]+crG[cr[x]])>>16)
			d[3*x+2] = clamp8(yy + cbB[cb[x]])
		}
	}
}

// libjpeg's YCbCr→RGB tables (jdcolor.c's build_ycc_rgb_table), 16-bit
// fixed point: R = Y + 1.402 Cr, G = Y - 0.34414 Cb - 0.71414 Cr,
// B = Y + 1.772 Cb, with Cb, Cr centred on 128.
var crR, cbB, crG, cbG [256]int

func init() {
	const one, half = 1 << 16, 1 << 15
	fix := func(x float64) int { return int(x*one + 0.5) }
	for i := range 256 {
		x := i - 128
		crR[i] = (fix(1.40200)*x + half) >> 16
		cbB[i] = (fix(1.77200)*x + half) >> 16
		crG[i] = -fix(0.71414) * x
		cbG[i] = -fix(0.34414)*x + half
	}
}

func clamp8(v int) uint8 { return uint8(min(max(v, 0), 255)) }
