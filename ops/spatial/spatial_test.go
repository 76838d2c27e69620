package spatial

import (
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestCol2Im: every column value 1 makes each output pixel count how many
// blocks cover it. Image 3×4, block 2×2, stride 1, pad 0: interior pixels
// are covered by up to 4 blocks.
func TestCol2Im(t *testing.T) {
	const N, C = 2, 3
	L := 2 * 3 // block positions: 2 rows × 3 cols
	x := tensor.New(tensor.Float, N, C*4, L)
	for i := range x.F32() {
		x.F32()[i] = 1
	}
	cover := []float32{1, 2, 2, 1, 2, 4, 4, 2, 1, 2, 2, 1}
	var want []float32
	for i := 0; i < N*C; i++ {
		want = append(want, cover...)
	}
	got := optest.MustRun(t, optest.Call{Op: "Col2Im", Opset: 18, In: []*tensor.Tensor{x, tensor.Of([]int{2}, []int64{3, 4}), tensor.Of([]int{2}, []int64{2, 2})}})
	optest.Expect(t, "coverage", got[0], tensor.Of([]int{N, C, 3, 4}, want))

	// Strided, padded 1-D-like case by hand: image [1, 5], block [1, 2], stride 2, pad left 1 right 0.
	// Blocks start at -1, 1, 3: taps (-1,0), (1,2), (3,4).
	x = tensor.Of([]int{1, 2, 3}, []float32{10, 20, 30, 1, 2, 3})
	got = optest.MustRun(t, optest.Call{Op: "Col2Im", Opset: 18, Attrs: optest.A{"strides": []int64{1, 2}, "pads": []int64{0, 1, 0, 0}},
		In: []*tensor.Tensor{x, tensor.Of([]int{2}, []int64{1, 5}), tensor.Of([]int{2}, []int64{1, 2})}})
	optest.Expect(t, "strided", got[0], tensor.Of([]int{1, 1, 1, 5}, []float32{1, 20, 2, 30, 3}))
}

func TestMaxUnpool(t *testing.T) {
	x := tensor.Of([]int{1, 2, 1, 2}, []float32{5, 6, 7, 8})
	// Pooled from [1,2,2,4] with 2×2 stride 2: indices are flat over the whole tensor.
	idx := tensor.Of([]int{1, 2, 1, 2}, []int64{5, 2, 8, 15})
	got := optest.MustRun(t, optest.Call{Op: "MaxUnpool", Opset: 22, Attrs: optest.A{"kernel_shape": []int64{2, 2}, "strides": []int64{2, 2}}, In: []*tensor.Tensor{x, idx}})
	optest.Expect(t, "default shape", got[0], tensor.Of([]int{1, 2, 2, 4}, []float32{0, 0, 6, 0, 0, 5, 0, 0, 7, 0, 0, 0, 0, 0, 0, 8}))
	// A larger output_shape keeps coordinates: (c1,h1,w3) → 8 at [1,1,3] of a 3×5 plane.
	got = optest.MustRun(t, optest.Call{Op: "MaxUnpool", Opset: 11, Attrs: optest.A{"kernel_shape": []int64{2, 2}, "strides": []int64{2, 2}}, In: []*tensor.Tensor{x, idx, tensor.Of([]int{4}, []int64{1, 2, 3, 5})}})
	want := make([]float32, 30)
	want[0*15+0*5+2], want[0*15+1*5+1], want[1*15+0*5+0], want[1*15+1*5+3] = 6, 5, 7, 8
	optest.Expect(t, "output_shape", got[0], tensor.Of([]int{1, 2, 3, 5}, want))
}

// naiveConv is a direct grouped 2-D convolution (no padding, stride 1).
func naiveConv(x []float32, N, C, H, W int, w []float32, OC, KH, KW, group int) []float32 {
	OH, OW := H-KH+1, W-KW+1
	cg, og := C/group, OC/group
	out := make([]float32, N*OC*OH*OW)
	for n := 0; n < N; n++ {
		for o := 0; o < OC; o++ {
			g := o / og
			for i := 0; i < OH; i++ {
				for j := 0; j < OW; j++ {
					s := float32(0)
					for ci := 0; ci < cg; ci++ {
						for a := 0; a < KH; a++ {
							for b := 0; b < KW; b++ {
								s += x[((n*C+g*cg+ci)*H+i+a)*W+j+b] * w[((o*cg+ci)*KH+a)*KW+b]
							}
						}
					}
					out[((n*OC+o)*OH+i)*OW+j] = s
				}
			}
		}
	}
	return out
}

// TestDeformConv: zero offsets reduce to an ordinary grouped convolution;
// an offset of exactly +1 column shifts the sampling, and half a row
// interpolates between rows.
func TestDeformConv(t *testing.T) {
	const N, C, H, W, OC, KH, KW, G = 2, 4, 4, 5, 4, 2, 3, 2
	xs := make([]float32, N*C*H*W)
	for i := range xs {
		xs[i] = float32((i*5)%13) - 6
	}
	ws := make([]float32, OC*(C/G)*KH*KW)
	for i := range ws {
		ws[i] = float32((i*3)%7) - 3
	}
	OH, OW := H-KH+1, W-KW+1
	off := tensor.New(tensor.Float, N, 2*2*KH*KW, OH, OW)
	x, w := tensor.Of([]int{N, C, H, W}, xs), tensor.Of([]int{OC, C / G, KH, KW}, ws)
	got := optest.MustRun(t, optest.Call{Op: "DeformConv", Opset: 22, Attrs: optest.A{"group": G, "offset_group": 2}, In: []*tensor.Tensor{x, w, off}})
	optest.Expect(t, "zero offsets", got[0], tensor.Of([]int{N, OC, OH, OW}, naiveConv(xs, N, C, H, W, ws, OC, KH, KW, G)))

	// Single channel, 1×1 kernel: offsets (dy, dx) = (0.5, 1) sample
	// halfway between rows at the next column; beyond the last column is 0.
	x1 := tensor.Of([]int{1, 1, 2, 3}, []float32{1, 2, 3, 4, 5, 6})
	o1 := tensor.Of([]int{1, 2, 2, 3}, []float32{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, 1, 1, 1, 1})
	got = optest.MustRun(t, optest.Call{Op: "DeformConv", Opset: 19, In: []*tensor.Tensor{x1, tensor.Of([]int{1, 1, 1, 1}, []float32{2}), o1, tensor.Of([]int{1}, []float32{1})}})
	// Row 0: mean of rows 0,1 at cols 1,2,3 → 3.5, 4.5, 0; row 1: half of row 1 (row 2 is outside) → 2.5, 3, 0. ×2 +1.
	optest.Expect(t, "shifted", got[0], tensor.Of([]int{1, 1, 2, 3}, []float32{8, 10, 1, 6, 7, 1}))
}
