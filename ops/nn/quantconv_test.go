package nn

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

// quantData draws n uint8 or int8 values over the type's whole range.
func quantData[T uint8 | int8](r *rand.Rand, n int) []T {
	v := make([]T, n)
	for i := range v {
		v[i] = T(r.Intn(256))
	}
	return v
}

// naiveConvInteger is ConvInteger by its definition, one output at a time
// (2-D, NCHW): Σ (x - xz)·(w - wz[m]) over the window, the padding being
// the zero point.
func naiveConvInteger(x []int, xz int, w []int, wz []int, n, c, h, wd, m, kh, kw, group, sh, sw, ph, pw, oh, ow int) []int32 {
	y := make([]int32, n*m*oh*ow)
	cg, mg := c/group, m/group
	for b := range n {
		for oc := range m {
			g := oc / mg
			z := wz[min(oc, len(wz)-1)]
			for i := range oh {
				for j := range ow {
					var s int32
					for ic := range cg {
						for u := range kh {
							for v := range kw {
								yy, xx := i*sh-ph+u, j*sw-pw+v
								if yy < 0 || yy >= h || xx < 0 || xx >= wd {
									continue
								}
								xv := x[((b*c+g*cg+ic)*h+yy)*wd+xx] - xz
								wv := w[((oc*cg+ic)*kh+u)*kw+v] - z
								s += int32(xv * wv)
							}
						}
					}
					y[((b*m+oc)*oh+i)*ow+j] = s
				}
			}
		}
	}
	return y
}

func ints[T uint8 | int8](v []T) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// TestConvIntegerExact: ConvInteger against its definition, bit for bit,
// with N>1, C>1, H≠W, groups, strides, padding, uint8 and int8 data and
// weights, and per-tensor or per-channel weight zero points.
func TestConvIntegerExact(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	for i, c := range []struct{ n, c, h, w, m, kh, kw, group, sh, sw, ph, pw int }{
		{1, 1, 5, 5, 1, 3, 3, 1, 1, 1, 0, 0},
		{2, 4, 7, 5, 6, 3, 2, 2, 1, 2, 1, 0},
		{2, 3, 6, 9, 3, 1, 1, 3, 1, 1, 0, 0}, // depthwise, pointwise
		{1, 8, 11, 6, 4, 3, 3, 1, 2, 1, 1, 1},
	} {
		for _, signed := range []bool{false, true} {
			for _, perChannel := range []bool{false, true} {
				name := fmt.Sprintf("case %d signed=%v perChannel=%v", i, signed, perChannel)
				oh := (c.h+2*c.ph-c.kh)/c.sh + 1
				ow := (c.w+2*c.pw-c.kw)/c.sw + 1
				xs := []int{c.n, c.c, c.h, c.w}
				wsh := []int{c.m, c.c / c.group, c.kh, c.kw}
				var x, w, xzp, wzp *tensor.Tensor
				var xi, wi, wz []int
				xz := 0
				if signed {
					xd, wdd := quantData[int8](r, tensor.MustSize(xs)), quantData[int8](r, tensor.MustSize(wsh))
					x, w, xi, wi = tensor.Of(xs, xd), tensor.Of(wsh, wdd), ints(xd), ints(wdd)
					xz = -3
					xzp = tensor.Scalar(int8(xz))
					zd := []int8{5}
					if perChannel {
						zd = quantData[int8](r, c.m)
					}
					wzp, wz = tensor.Of([]int{len(zd)}, zd), ints(zd)
				} else {
					xd, wdd := quantData[uint8](r, tensor.MustSize(xs)), quantData[uint8](r, tensor.MustSize(wsh))
					x, w, xi, wi = tensor.Of(xs, xd), tensor.Of(wsh, wdd), ints(xd), ints(wdd)
					xz = 128
					xzp = tensor.Scalar(uint8(xz))
					zd := []uint8{117}
					if perChannel {
						zd = quantData[uint8](r, c.m)
					}
					wzp, wz = tensor.Of([]int{len(zd)}, zd), ints(zd)
				}
				at := attrs{"group": c.group, "strides": []int64{int64(c.sh), int64(c.sw)}, "pads": []int64{int64(c.ph), int64(c.pw), int64(c.ph), int64(c.pw)}}
				y := runOp(t, "ConvInteger", 10, at, 1, x, w, xzp, wzp)[0]
				want := naiveConvInteger(xi, xz, wi, wz, c.n, c.c, c.h, c.w, c.m, c.kh, c.kw, c.group, c.sh, c.sw, c.ph, c.pw, oh, ow)
				if fmt.Sprint(y.Shape()) != fmt.Sprint([]int{c.n, c.m, oh, ow}) {
					t.Fatalf("%s: shape %v", name, y.Shape())
				}
				for j, v := range y.I32() {
					if v != want[j] {
						t.Fatalf("%s: y[%d] = %d, want %d", name, j, v, want[j])
					}
				}
			}
		}
	}
}

// TestMatMulIntegerExact: MatMulInteger against its definition, bit for
// bit, with broadcast batch dims, per-row zero points of A and per-column
// ones of B, uint8 and int8.
func TestMatMulIntegerExact(t *testing.T) {
	r := rand.New(rand.NewSource(22))
	const m, k, n = 5, 7, 3
	ad := quantData[uint8](r, 2*3*m*k)
	bd := quantData[int8](r, 3*k*n)
	azd := quantData[uint8](r, m)
	bzd := quantData[int8](r, n)
	a := tensor.Of([]int{2, 3, m, k}, ad)
	b := tensor.Of([]int{3, k, n}, bd)
	y := runOp(t, "MatMulInteger", 10, nil, 1, a, b, tensor.Of([]int{m}, azd), tensor.Of([]int{n}, bzd))[0]
	if fmt.Sprint(y.Shape()) != "[2 3 5 3]" {
		t.Fatalf("shape %v", y.Shape())
	}
	for bi := range 2 {
		for bj := range 3 {
			for i := range m {
				for j := range n {
					var s int32
					for p := range k {
						av := int32(ad[((bi*3+bj)*m+i)*k+p]) - int32(azd[i])
						bv := int32(bd[(bj*k+p)*n+j]) - int32(bzd[j])
						s += av * bv
					}
					if got := y.I32()[((bi*3+bj)*m+i)*n+j]; got != s {
						t.Fatalf("y[%d,%d,%d,%d] = %d, want %d", bi, bj, i, j, got, s)
					}
				}
			}
		}
	}
}

// TestConvIntegerMemory: an integer convolution allocates its output and
// a bounded working set, not float64 copies of its inputs and of the whole
// column matrix (the path it replaces allocated 30 times this output's
// size here, and 1.2 GB of columns for a background-removal model's
// 64×512×512 map).
func TestConvIntegerMemory(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	x := tensor.Of([]int{1, 16, 128, 96}, quantData[uint8](r, 16*128*96))
	w := tensor.Of([]int{16, 16, 3, 3}, quantData[uint8](r, 16*16*9))
	at := attrs{"pads": []int64{1, 1, 1, 1}}
	runOp(t, "ConvInteger", 10, at, 1, x, w) // warm up: the registry, the plan caches
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	y := runOp(t, "ConvInteger", 10, at, 1, x, w)[0]
	runtime.ReadMemStats(&after)
	out := uint64(4 * y.Len())
	if got := after.TotalAlloc - before.TotalAlloc; got > out+4<<20 {
		t.Errorf("ConvInteger allocated %d bytes for a %d-byte output; want at most the output and 4 MB", got, out)
	}
}
