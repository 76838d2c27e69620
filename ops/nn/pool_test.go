package nn

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

type pool2DCase struct {
	n, c, h, w, kh, kw, sh, sw, dh, dw int
	pads                               [4]int
	ceil                               bool
}

var pool2DCases = []pool2DCase{
	{n: 2, c: 3, h: 7, w: 5, kh: 3, kw: 2, sh: 2, sw: 1, dh: 1, dw: 2, pads: [4]int{1, 0, 1, 1}},
	{n: 1, c: 2, h: 8, w: 11, kh: 2, kw: 3, sh: 2, sw: 3, dh: 2, dw: 1, pads: [4]int{0, 1, 1, 2}, ceil: true},
	{n: 3, c: 1, h: 5, w: 6, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, pads: [4]int{1, 1, 1, 1}, ceil: true},
	{n: 2, c: 4, h: 6, w: 9, kh: 1, kw: 4, sh: 1, sw: 2, dh: 1, dw: 1, pads: [4]int{0, 2, 0, 1}},
}

func poolOut(in, k, s, d, pb, pe int, ceil bool) int {
	span := in + pb + pe - ((k-1)*d + 1)
	if !ceil {
		return span/s + 1
	}
	out := int(math.Ceil(float64(span)/float64(s))) + 1
	if (out-1)*s >= in+pb { // last window would start in the end padding
		out--
	}
	return out
}

// refPool2D evaluates every window directly. kind: "max", "avg", "avgpad".
// For max it also returns the row-major flat argmax over the whole input.
func refPool2D(x []float32, k pool2DCase, kind string) ([]float32, []int64, int, int) {
	oh := poolOut(k.h, k.kh, k.sh, k.dh, k.pads[0], k.pads[2], k.ceil)
	ow := poolOut(k.w, k.kw, k.sw, k.dw, k.pads[1], k.pads[3], k.ceil)
	y := make([]float32, k.n*k.c*oh*ow)
	idx := make([]int64, len(y))
	for n := 0; n < k.n; n++ {
		for c := 0; c < k.c; c++ {
			for i := 0; i < oh; i++ {
				for j := 0; j < ow; j++ {
					best, at := float32(math.Inf(-1)), int64(-1)
					var sum float32
					cnt, cntPad := 0, 0
					for p := 0; p < k.kh; p++ {
						for q := 0; q < k.kw; q++ {
							ih := i*k.sh - k.pads[0] + p*k.dh
							iw := j*k.sw - k.pads[1] + q*k.dw
							if ih >= -k.pads[0] && ih < k.h+k.pads[2] && iw >= -k.pads[1] && iw < k.w+k.pads[3] {
								cntPad++
							}
							if ih < 0 || ih >= k.h || iw < 0 || iw >= k.w {
								continue
							}
							off := ((n*k.c+c)*k.h+ih)*k.w + iw
							v := x[off]
							cnt++
							sum += v
							if v > best {
								best, at = v, int64(off)
							}
						}
					}
					o := ((n*k.c+c)*oh+i)*ow + j
					switch kind {
					case "max":
						y[o], idx[o] = best, at
					case "avg":
						y[o] = sum / float32(cnt)
					case "avgpad":
						y[o] = sum / float32(cntPad)
					}
				}
			}
		}
	}
	return y, idx, oh, ow
}

func poolAttrsFor(k pool2DCase, extra attrs) attrs {
	a := attrs{"kernel_shape": []int{k.kh, k.kw}, "strides": []int{k.sh, k.sw}, "dilations": []int{k.dh, k.dw}, "pads": k.pads[:]}
	if k.ceil {
		a["ceil_mode"] = 1
	}
	for key, v := range extra {
		a[key] = v
	}
	return a
}

func TestMaxPool2D(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for i, k := range pool2DCases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			// distinct values so the argmax is unambiguous
			x := tensor.New(tensor.Float, k.n, k.c, k.h, k.w)
			for j, p := range r.Perm(x.Len()) {
				x.F32()[j] = float32(p) - 20
			}
			want, wantIdx, oh, ow := refPool2D(x.F32(), k, "max")
			out := runOp(t, "MaxPool", 22, poolAttrsFor(k, nil), 2, x)
			assertClose(t, out[0], []int{k.n, k.c, oh, ow}, want, 0)
			for j, v := range out[1].I64() {
				if v != wantIdx[j] {
					t.Fatalf("Indices[%d] = %d, want %d", j, v, wantIdx[j])
				}
			}
		})
	}
}

// TestMaxPoolStorageOrder checks column-major Indices: within each plane
// the index is h + w·H instead of h·W + w.
func TestMaxPoolStorageOrder(t *testing.T) {
	x := tensor.Of([]int{1, 2, 2, 3}, []float32{1, 9, 2, 3, 4, 5, 6, 0, 7, 8, 1, 2})
	out := runOp(t, "MaxPool", 12, attrs{"kernel_shape": []int{2, 2}, "storage_order": 1}, 2, x)
	// plane 0: window cols 0-1 max 9 at (0,1) → 0+1*2=2; cols 1-2 max 9 → 2
	// plane 1 (offset 6) is [6 0 7; 8 1 2]: cols 0-1 max 8 at (1,0) → 6+1=7;
	// cols 1-2 max 7 at (0,2) → 6+0+2·2=10
	want := []int64{2, 2, 7, 10}
	for i, v := range out[1].I64() {
		if v != want[i] {
			t.Fatalf("Indices = %v, want %v", out[1].I64(), want)
		}
	}
}

func TestAveragePool2D(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for i, k := range pool2DCases {
		for _, include := range []int{0, 1} {
			t.Run(fmt.Sprint(i, "/count_include_pad=", include), func(t *testing.T) {
				x := randT(r, k.n, k.c, k.h, k.w)
				kind := "avg"
				if include == 1 {
					kind = "avgpad"
				}
				want, _, oh, ow := refPool2D(x.F32(), k, kind)
				got := runOp(t, "AveragePool", 22, poolAttrsFor(k, attrs{"count_include_pad": include}), 1, x)[0]
				assertClose(t, got, []int{k.n, k.c, oh, ow}, want, 1e-5)
			})
		}
	}
}

func TestGlobalPools(t *testing.T) {
	x := tensor.Of([]int{2, 2, 1, 3}, []float32{1, 2, 3, -1, -5, 0, 4, 4, 4, 3, -4, 0})
	avg := runOp(t, "GlobalAveragePool", 22, nil, 1, x)[0]
	assertClose(t, avg, []int{2, 2, 1, 1}, []float32{2, -2, 4, -1.0 / 3}, 1e-6)
	// Planes longer than the four partial sums, with a tail, N > 1, C > 1
	// and H ≠ W, against the mean in float64.
	r := rand.New(rand.NewSource(12))
	big := tensor.New(tensor.Float, 2, 3, 7, 13)
	for i := range big.F32() {
		big.F32()[i] = r.Float32()*8 - 3
	}
	want := make([]float32, 6)
	for pl := range want {
		var s float64
		for _, v := range big.F32()[pl*91 : (pl+1)*91] {
			s += float64(v)
		}
		want[pl] = float32(s / 91)
	}
	assertClose(t, runOp(t, "GlobalAveragePool", 22, nil, 1, big)[0], []int{2, 3, 1, 1}, want, 1e-6)
	mx := runOp(t, "GlobalMaxPool", 1, nil, 1, x)[0]
	assertClose(t, mx, []int{2, 2, 1, 1}, []float32{3, 0, 4, 3}, 0)
	lp := runOp(t, "GlobalLpPool", 2, attrs{"p": 1}, 1, x)[0]
	assertClose(t, lp, []int{2, 2, 1, 1}, []float32{6, 6, 12, 7}, 1e-6)
}
