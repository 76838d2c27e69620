package kernels

import (
	"fmt"
	"math/rand"
	"testing"
)

// dwCase is a depthwise (or single-input-channel) convolution: c groups of
// one input channel and mg outputs each, on n images of h×w.
type dwCase struct {
	n, c, mg, h, w int
	kh, kw, sh, sw int
	dh, dw         int
	pt, pl, pb, pr int // pads: top, left, bottom, right
}

func (d dwCase) geom() *ConvGeom {
	oh := (d.h+d.pt+d.pb-(d.kh-1)*d.dh-1)/d.sh + 1
	ow := (d.w+d.pl+d.pr-(d.kw-1)*d.dw-1)/d.sw + 1
	return &ConvGeom{In: []int{d.h, d.w}, Out: []int{oh, ow}, Kernel: []int{d.kh, d.kw},
		Strides: []int{d.sh, d.sw}, Dilations: []int{d.dh, d.dw}, PadsBegin: []int{d.pt, d.pl}}
}

// refDepthwise is the definition: each output sums its taps inside the
// input in (kh, kw) order (skipping the padding), then the epilogue.
func refDepthwise(d dwCase, g *ConvGeom, x, w, bias, res []float32, act Act) []float32 {
	OH, OW := g.Out[0], g.Out[1]
	m := d.c * d.mg
	y := make([]float32, d.n*m*OH*OW)
	for n := 0; n < d.n; n++ {
		for oc := 0; oc < m; oc++ {
			xc := x[(n*d.c+oc/d.mg)*d.h*d.w:]
			for oh := 0; oh < OH; oh++ {
				for ow := 0; ow < OW; ow++ {
					var acc float32
					for kh := 0; kh < d.kh; kh++ {
						for kw := 0; kw < d.kw; kw++ {
							ih, iw := oh*d.sh-d.pt+kh*d.dh, ow*d.sw-d.pl+kw*d.dw
							if ih >= 0 && ih < d.h && iw >= 0 && iw < d.w {
								acc += w[(oc*d.kh+kh)*d.kw+kw] * xc[ih*d.w+iw]
							}
						}
					}
					i := ((n*m+oc)*OH+oh)*OW + ow
					acc += bias[oc]
					if res != nil {
						acc += res[i]
					}
					y[i] = acc
				}
			}
		}
	}
	Activate(y, act, 0, 0)
	return y
}

// TestDepthwise checks the padded-plane depthwise kernels (SIMD and scalar
// builds) against the definition, bit for bit: strides 1 to 3, dilations,
// asymmetric pads (some wider than the kernel), output rows of every width
// modulo four, several output channels per group, and the fused epilogue.
func TestDepthwise(t *testing.T) {
	cases := []dwCase{
		{n: 2, c: 3, mg: 1, h: 9, w: 14, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, pt: 1, pl: 1, pb: 1, pr: 1},
		{n: 1, c: 4, mg: 1, h: 13, w: 11, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, pt: 1, pl: 1, pb: 1, pr: 1},
		{n: 1, c: 2, mg: 1, h: 12, w: 13, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, pt: 0, pl: 1, pb: 1, pr: 0},
		{n: 2, c: 3, mg: 1, h: 7, w: 7, kh: 5, kw: 5, sh: 1, sw: 1, dh: 1, dw: 1, pt: 2, pl: 2, pb: 2, pr: 2},
		{n: 1, c: 5, mg: 1, h: 14, w: 15, kh: 5, kw: 5, sh: 2, sw: 2, dh: 1, dw: 1, pt: 2, pl: 2, pb: 2, pr: 2},
		{n: 1, c: 2, mg: 3, h: 10, w: 23, kh: 3, kw: 3, sh: 1, sw: 1, dh: 2, dw: 3, pt: 0, pl: 3, pb: 1, pr: 2},
		{n: 2, c: 2, mg: 2, h: 11, w: 17, kh: 5, kw: 3, sh: 3, sw: 2, dh: 1, dw: 2, pt: 2, pl: 1, pb: 0, pr: 3},
		{n: 1, c: 3, mg: 1, h: 4, w: 2, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, pt: 1, pl: 1, pb: 1, pr: 1},
		{n: 1, c: 2, mg: 1, h: 5, w: 6, kh: 2, kw: 4, sh: 1, sw: 3, dh: 1, dw: 1, pt: 4, pl: 5, pb: 3, pr: 6},
		{n: 1, c: 1, mg: 3, h: 6, w: 7, kh: 2, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, pt: 0, pl: 1, pb: 1, pr: 0},
		{n: 1, c: 2, mg: 1, h: 3, w: 29, kh: 1, kw: 7, sh: 1, sw: 1, dh: 1, dw: 1, pt: 0, pl: 3, pb: 0, pr: 3},
		{n: 2, c: 3, mg: 1, h: 6, w: 5, kh: 1, kw: 1, sh: 1, sw: 1, dh: 1, dw: 1},
		{n: 1, c: 2, mg: 1, h: 5, w: 1, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, pt: 1, pl: 1, pb: 1, pr: 1},
		{n: 1, c: 2, mg: 1, h: 4, w: 2, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, pt: 0, pl: 0, pb: 1, pr: 1},
		{n: 1, c: 2, mg: 1, h: 4, w: 3, kh: 2, kw: 1, sh: 1, sw: 2, dh: 1, dw: 1, pt: 0, pl: 1, pb: 0, pr: 2},
		{n: 1, c: 2, mg: 1, h: 4, w: 9, kh: 2, kw: 3, sh: 1, sw: 2, dh: 1, dw: 3, pt: 1, pl: 4, pb: 0, pr: 0},
		{n: 1, c: 2, mg: 1, h: 9, w: 9, kh: 1, kw: 1, sh: 2, sw: 2, dh: 1, dw: 1},
	}
	for ow := 1; ow <= 9; ow++ {
		cases = append(cases, dwCase{n: 1, c: 2, mg: 1, h: 5, w: ow, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, pt: 1, pl: 1, pb: 1, pr: 1},
			dwCase{n: 1, c: 2, mg: 1, h: 6, w: 2 * ow, kh: 5, kw: 5, sh: 2, sw: 2, dh: 1, dw: 1, pt: 2, pl: 2, pb: 1, pr: 2})
	}
	r := rand.New(rand.NewSource(3))
	for _, d := range cases {
		t.Run(fmt.Sprintf("%+v", d), func(t *testing.T) {
			g := d.geom()
			m, ks := d.c*d.mg, d.kh*d.kw
			x := randSlice(r, d.n*d.c*d.h*d.w)
			w, bias := randSlice(r, m*ks), randSlice(r, m)
			res := randSlice(r, d.n*m*g.OutSize())
			for _, fused := range []bool{false, true} {
				args := &ConvArgs{N: d.n, C: d.c, Geom: g, X: x, Bias: bias, Y: make([]float32, len(res))}
				var rr []float32
				if fused {
					args.Residual, args.Act, rr = res, ActRelu, res
				}
				want := refDepthwise(d, g, x, w, bias, rr, args.Act)
				for _, packed := range []bool{false, true} {
					clear(args.Y)
					if err := Conv(NewConvWeights(w, m, d.c, ks, packed), args); err != nil {
						t.Fatal(err)
					}
					for i, v := range args.Y {
						if v != want[i] {
							t.Fatalf("fused=%v packed=%v: y[%d] = %v, want %v", fused, packed, i, v, want[i])
						}
					}
				}
			}
		})
	}
}

// TestConvPaddedIm2col checks that the im2col GEMM packs the same panels
// from the padded planes as from the input itself (bit for bit), and both
// against the definition: strides, dilations, asymmetric pads, groups,
// output rows that do not fill whole panels.
func TestConvPaddedIm2col(t *testing.T) {
	cases := []struct {
		d     dwCase
		cg, m int
	}{
		{dwCase{n: 2, c: 1, h: 17, w: 19, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, pt: 1, pl: 1, pb: 1, pr: 1}, 3, 16},
		{dwCase{n: 1, c: 2, h: 9, w: 13, kh: 5, kw: 3, sh: 1, sw: 3, dh: 1, dw: 2, pt: 2, pl: 0, pb: 1, pr: 3}, 3, 10},
		{dwCase{n: 1, c: 1, h: 12, w: 11, kh: 7, kw: 7, sh: 2, sw: 2, dh: 1, dw: 1, pt: 3, pl: 3, pb: 3, pr: 3}, 4, 9},
		{dwCase{n: 1, c: 1, h: 6, w: 40, kh: 3, kw: 3, sh: 1, sw: 1, dh: 2, dw: 1, pt: 0, pl: 1, pb: 2, pr: 1}, 5, 7},
		{dwCase{n: 1, c: 1, h: 9, w: 9, kh: 1, kw: 1, sh: 2, sw: 2, dh: 1, dw: 1}, 6, 5},
	}
	defer func(p, b, m, n int) { maxPaddedIm2col, maxBandIm2col, convSegMACs, convSegMin = p, b, m, n }(
		maxPaddedIm2col, maxBandIm2col, convSegMACs, convSegMin)
	r := rand.New(rand.NewSource(4))
	for _, tc := range cases {
		d, cg, m := tc.d, tc.cg, tc.m
		group := d.c
		C := group * cg
		g := d.geom()
		ks := d.kh * d.kw
		x, w, bias := randSlice(r, d.n*C*d.h*d.w), randSlice(r, m*cg*ks), randSlice(r, m)
		// whole: the input padded whole; band: padded a band of up to four
		// output rows' input rows per pixel segment (several bands, the
		// first and last with padding rows); rows: read through the row
		// table.
		run := func(whole, band bool) []float32 {
			maxPaddedIm2col, maxBandIm2col, convSegMACs, convSegMin = 0, 0, 1<<22, 256
			if whole {
				maxPaddedIm2col = 1 << 30
			}
			if band {
				maxBandIm2col, convSegMACs, convSegMin = 1<<30, 1, NR
			}
			y := make([]float32, d.n*m*g.OutSize())
			if err := Conv(NewConvWeights(w, m, group, cg*ks, true), &ConvArgs{N: d.n, C: C, Geom: g, X: x, Bias: bias, Y: y}); err != nil {
				t.Fatal(err)
			}
			return y
		}
		padded, banded, direct := run(true, false), run(false, true), run(false, false)
		OH, OW := g.Out[0], g.Out[1]
		mg := m / group
		for i, v := range padded {
			if v != direct[i] || v != banded[i] {
				t.Fatalf("%+v: y[%d] = %v padded, %v banded, %v direct", d, i, v, banded[i], direct[i])
			}
			ow, oh, oc, n := i%OW, i/OW%OH, i/(OH*OW)%m, i/(OH*OW*m)
			want := float64(bias[oc])
			for c := 0; c < cg; c++ {
				xc := x[(n*C+oc/mg*cg+c)*d.h*d.w:]
				for kh := 0; kh < d.kh; kh++ {
					for kw := 0; kw < d.kw; kw++ {
						ih, iw := oh*d.sh-d.pt+kh*d.dh, ow*d.sw-d.pl+kw*d.dw
						if ih >= 0 && ih < d.h && iw >= 0 && iw < d.w {
							want += float64(w[(oc*cg+c)*ks+kh*d.kw+kw]) * float64(xc[ih*d.w+iw])
						}
					}
				}
			}
			if diff := float64(v) - want; diff > 1e-5 || diff < -1e-5 {
				t.Fatalf("%+v: y[%d] = %v, want %v", d, i, v, want)
			}
		}
	}
}

// TestConvEmpty: a convolution with no images or no output pixels writes
// nothing and does not fail.
func TestConvEmpty(t *testing.T) {
	g := &ConvGeom{In: []int{0, 5}, Out: []int{0, 5}, Kernel: []int{3, 3}, Strides: []int{1, 1}, Dilations: []int{1, 1}, PadsBegin: []int{1, 1}}
	for _, group := range []int{1, 2} {
		cw := NewConvWeights(make([]float32, 2*(2/group)*9), 2, group, 2/group*9, true)
		if err := Conv(cw, &ConvArgs{N: 1, C: 2, Geom: g}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConvVec checks pointwise convolutions of one pixel (the dot-product
// path) against the definition: several images, groups, channel counts
// that do not fill whole vectors, the fused epilogue.
func TestConvVec(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	g := &ConvGeom{In: []int{1, 1}, Out: []int{1, 1}, Kernel: []int{1, 1}, Strides: []int{1, 1}, Dilations: []int{1, 1}, PadsBegin: []int{0, 0}}
	for _, tc := range []struct{ n, c, m, group int }{{1, 1, 3, 1}, {2, 5, 6, 1}, {2, 37, 9, 1}, {3, 8, 6, 2}, {1, 144, 576, 1}, {2, 12, 8, 4}} {
		cg, mg := tc.c/tc.group, tc.m/tc.group
		x, w, bias := randSlice(r, tc.n*tc.c), randSlice(r, tc.m*cg), randSlice(r, tc.m)
		res := randSlice(r, tc.n*tc.m)
		y := make([]float32, tc.n*tc.m)
		args := &ConvArgs{N: tc.n, C: tc.c, Geom: g, X: x, Bias: bias, Residual: res, Act: ActHardSwish, Y: y}
		if err := Conv(NewConvWeights(w, tc.m, tc.group, cg, true), args); err != nil {
			t.Fatal(err)
		}
		for i, v := range y {
			n, m := i/tc.m, i%tc.m
			want := float64(bias[m]) + float64(res[i])
			for k := 0; k < cg; k++ {
				want += float64(w[m*cg+k]) * float64(x[n*tc.c+m/mg*cg+k])
			}
			want *= max(0, min(1, want/6+0.5))
			if d := float64(v) - want; d > 1e-5 || d < -1e-5 {
				t.Fatalf("%+v: y[%d] = %v, want %v", tc, i, v, want)
			}
		}
	}
}

// TestDeinterleave2 checks the build's deinterleave2 against its
// definition on lengths around its groups of four.
func TestDeinterleave2(t *testing.T) {
	for n := 0; n <= 13; n++ {
		s := make([]float32, 2*n+3)
		for i := range s {
			s[i] = float32(i) + 0.5
		}
		e, o := make([]float32, n+1), make([]float32, n+1)
		e[n], o[n] = -1, -1
		deinterleave2(e[:n], o, s)
		for j := 0; j < n; j++ {
			if e[j] != s[2*j] || o[j] != s[2*j+1] {
				t.Fatalf("n=%d: e[%d], o[%d] = %v, %v, want %v, %v", n, j, j, e[j], o[j], s[2*j], s[2*j+1])
			}
		}
		if e[n] != -1 || o[n] != -1 {
			t.Fatalf("n=%d: wrote past the outputs", n)
		}
	}
}
