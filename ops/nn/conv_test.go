package nn

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

// conv2DCase is one Conv/ConvTranspose geometry. pads are [top, left,
// bottom, right] as ONNX orders them.
type conv2DCase struct {
	n, c, h, w, m, kh, kw, group int
	sh, sw, dh, dw               int
	pads                         [4]int
	bias                         bool
}

var conv2DCases = []conv2DCase{
	{n: 2, c: 3, h: 7, w: 5, m: 4, kh: 3, kw: 2, group: 1, sh: 2, sw: 1, dh: 1, dw: 2, pads: [4]int{1, 0, 2, 1}, bias: true},
	{n: 1, c: 3, h: 6, w: 9, m: 6, kh: 3, kw: 3, group: 3, sh: 1, sw: 1, dh: 2, dw: 1, pads: [4]int{2, 1, 0, 2}}, // depthwise ×2
	{n: 3, c: 4, h: 5, w: 8, m: 6, kh: 1, kw: 3, group: 2, sh: 1, sw: 2, dh: 1, dw: 1, pads: [4]int{0, 1, 0, 0}, bias: true},
	{n: 2, c: 5, h: 4, w: 6, m: 3, kh: 1, kw: 1, group: 1, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}, // pointwise
	{n: 2, c: 2, h: 9, w: 4, m: 2, kh: 4, kw: 1, group: 2, sh: 3, sw: 1, dh: 1, dw: 3, pads: [4]int{1, 2, 3, 0}},
	{n: 1, c: 6, h: 11, w: 10, m: 8, kh: 3, kw: 5, group: 2, sh: 2, sw: 3, dh: 2, dw: 1, pads: [4]int{0, 2, 1, 3}, bias: true},
}

// refConv2D is the direct definition of grouped 2-D convolution: seven
// nested loops, nothing shared with the implementation.
func refConv2D(x, w, b []float32, k conv2DCase) ([]float32, int, int) {
	oh := (k.h+k.pads[0]+k.pads[2]-((k.kh-1)*k.dh+1))/k.sh + 1
	ow := (k.w+k.pads[1]+k.pads[3]-((k.kw-1)*k.dw+1))/k.sw + 1
	cg, mg := k.c/k.group, k.m/k.group
	y := make([]float32, k.n*k.m*oh*ow)
	for n := 0; n < k.n; n++ {
		for m := 0; m < k.m; m++ {
			g := m / mg
			for i := 0; i < oh; i++ {
				for j := 0; j < ow; j++ {
					var s float32
					if b != nil {
						s = b[m]
					}
					for c := 0; c < cg; c++ {
						for p := 0; p < k.kh; p++ {
							for q := 0; q < k.kw; q++ {
								ih := i*k.sh - k.pads[0] + p*k.dh
								iw := j*k.sw - k.pads[1] + q*k.dw
								if ih < 0 || ih >= k.h || iw < 0 || iw >= k.w {
									continue
								}
								s += x[((n*k.c+g*cg+c)*k.h+ih)*k.w+iw] * w[((m*cg+c)*k.kh+p)*k.kw+q]
							}
						}
					}
					y[((n*k.m+m)*oh+i)*ow+j] = s
				}
			}
		}
	}
	return y, oh, ow
}

func TestConv2D(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i, k := range conv2DCases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			x := randT(r, k.n, k.c, k.h, k.w)
			w := randT(r, k.m, k.c/k.group, k.kh, k.kw)
			in := []*tensor.Tensor{x, w}
			var bd []float32
			if k.bias {
				b := randT(r, k.m)
				in, bd = append(in, b), b.F32()
			}
			want, oh, ow := refConv2D(x.F32(), w.F32(), bd, k)
			at := attrs{"group": k.group, "strides": []int{k.sh, k.sw}, "dilations": []int{k.dh, k.dw}, "pads": k.pads[:]}
			for _, opset := range []int{1, 11, 22} {
				got := runOp(t, "Conv", opset, at, 1, in...)[0]
				assertClose(t, got, []int{k.n, k.m, oh, ow}, want, 1e-5)
			}
		})
	}
}

// TestConvAutoPad checks SAME_UPPER/SAME_LOWER/VALID against the reference
// run with the padding worked out by hand from the spec's formula.
func TestConvAutoPad(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	base := conv2DCase{n: 2, c: 3, h: 7, w: 6, m: 2, kh: 3, kw: 4, group: 1, sh: 2, sw: 3, dh: 1, dw: 1}
	x := randT(r, base.n, base.c, base.h, base.w)
	w := randT(r, base.m, base.c, base.kh, base.kw)
	// H: out=ceil(7/2)=4, total=(4-1)*2+3-7=2 → 1/1.  W: out=2, total=(2-1)*3+4-6=1.
	for _, tc := range []struct {
		mode string
		pads [4]int
	}{
		{"SAME_UPPER", [4]int{1, 0, 1, 1}},
		{"SAME_LOWER", [4]int{1, 1, 1, 0}},
		{"VALID", [4]int{}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			k := base
			k.pads = tc.pads
			want, oh, ow := refConv2D(x.F32(), w.F32(), nil, k)
			got := runOp(t, "Conv", 22, attrs{"auto_pad": tc.mode, "strides": []int{2, 3}}, 1, x, w)[0]
			assertClose(t, got, []int{2, 2, oh, ow}, want, 1e-5)
		})
	}
}

// TestConv1DAnd3D checks the N-D path: a 1-D conv must equal the 2-D
// reference with H=1, and a 3-D conv with depth 1 (kernel depth 1) likewise.
func TestConv1DAnd3D(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	k := conv2DCase{n: 2, c: 4, h: 1, w: 13, m: 6, kh: 1, kw: 3, group: 2, sh: 1, sw: 2, dh: 1, dw: 2, pads: [4]int{0, 2, 0, 1}, bias: true}
	x := randT(r, k.n, k.c, k.h, k.w)
	w := randT(r, k.m, k.c/k.group, k.kh, k.kw)
	b := randT(r, k.m)
	want, _, ow := refConv2D(x.F32(), w.F32(), b.F32(), k)
	got := runOp(t, "Conv", 22, attrs{"group": 2, "strides": []int{2}, "dilations": []int{2}, "pads": []int{2, 1}}, 1,
		x.Reshaped([]int{2, 4, 13}), w.Reshaped([]int{6, 2, 3}), b)[0]
	assertClose(t, got, []int{2, 6, ow}, want, 1e-5)

	k3 := conv2DCase{n: 2, c: 3, h: 6, w: 5, m: 2, kh: 2, kw: 3, group: 1, sh: 2, sw: 1, dh: 1, dw: 2, pads: [4]int{1, 2, 0, 1}}
	x3 := randT(r, k3.n, k3.c, k3.h, k3.w)
	w3 := randT(r, k3.m, k3.c, k3.kh, k3.kw)
	want3, oh3, ow3 := refConv2D(x3.F32(), w3.F32(), nil, k3)
	got3 := runOp(t, "Conv", 22, attrs{"strides": []int{1, 2, 1}, "dilations": []int{1, 1, 2}, "pads": []int{0, 1, 2, 0, 0, 1}}, 1,
		x3.Reshaped([]int{2, 3, 1, 6, 5}), w3.Reshaped([]int{2, 3, 1, 2, 3}))[0]
	assertClose(t, got3, []int{2, 2, 1, oh3, ow3}, want3, 1e-5)
}

// refConvTranspose2D scatters every input pixel through the kernel: the
// textbook definition of a transposed convolution.
func refConvTranspose2D(x, w, b []float32, k conv2DCase, outPad [2]int) ([]float32, int, int) {
	oh := k.sh*(k.h-1) + outPad[0] + (k.kh-1)*k.dh + 1 - k.pads[0] - k.pads[2]
	ow := k.sw*(k.w-1) + outPad[1] + (k.kw-1)*k.dw + 1 - k.pads[1] - k.pads[3]
	cg, mg := k.c/k.group, k.m/k.group
	y := make([]float32, k.n*k.m*oh*ow)
	for n := 0; n < k.n; n++ {
		for c := 0; c < k.c; c++ {
			g := c / cg
			for i := 0; i < k.h; i++ {
				for j := 0; j < k.w; j++ {
					for m := 0; m < mg; m++ {
						for p := 0; p < k.kh; p++ {
							for q := 0; q < k.kw; q++ {
								yh := i*k.sh - k.pads[0] + p*k.dh
								yw := j*k.sw - k.pads[1] + q*k.dw
								if yh < 0 || yh >= oh || yw < 0 || yw >= ow {
									continue
								}
								y[((n*k.m+g*mg+m)*oh+yh)*ow+yw] += x[((n*k.c+c)*k.h+i)*k.w+j] * w[((c*mg+m)*k.kh+p)*k.kw+q]
							}
						}
					}
				}
			}
		}
	}
	if b != nil {
		for n := 0; n < k.n; n++ {
			for m := 0; m < k.m; m++ {
				for i := 0; i < oh*ow; i++ {
					y[(n*k.m+m)*oh*ow+i] += b[m]
				}
			}
		}
	}
	return y, oh, ow
}

func TestConvTranspose2D(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	for i, k := range conv2DCases {
		for _, op := range [][2]int{{0, 0}, {1, 0}} {
			if op[0] >= k.sh && op[0] > 0 { // output_padding must be < stride
				continue
			}
			t.Run(fmt.Sprint(i, op), func(t *testing.T) {
				x := randT(r, k.n, k.c, k.h, k.w)
				w := randT(r, k.c, k.m/k.group, k.kh, k.kw)
				in := []*tensor.Tensor{x, w}
				var bd []float32
				if k.bias {
					b := randT(r, k.m)
					in, bd = append(in, b), b.F32()
				}
				want, oh, ow := refConvTranspose2D(x.F32(), w.F32(), bd, k, op)
				at := attrs{"group": k.group, "strides": []int{k.sh, k.sw}, "dilations": []int{k.dh, k.dw}, "pads": k.pads[:], "output_padding": op[:]}
				got := runOp(t, "ConvTranspose", 22, at, 1, in...)[0]
				assertClose(t, got, []int{k.n, k.m, oh, ow}, want, 1e-5)
				// The same output size requested through output_shape must
				// give the same result when the padding split is symmetric.
				if k.pads == [4]int{} && op == [2]int{} {
					got := runOp(t, "ConvTranspose", 11, attrs{"group": k.group, "strides": []int{k.sh, k.sw}, "dilations": []int{k.dh, k.dw}, "output_shape": []int{oh, ow}}, 1, in...)[0]
					assertClose(t, got, []int{k.n, k.m, oh, ow}, want, 1e-5)
				}
			})
		}
	}
}
