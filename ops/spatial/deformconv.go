package spatial

import (
	"math"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("DeformConv", []int{19, 22}, buildDeformConv)
}

// buildDeformConv: a 2-D grouped convolution whose every kernel tap samples
// X at its regular position plus a learned (dy, dx) offset, bilinearly, with
// zero outside the image, optionally scaled by a mask (modulated deformable
// convolution, "DCNv2"). Offsets are shared by the channels of each of the
// offset_group channel groups. Version 22 only widened the types.
func buildDeformConv(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	group := int(a.Int("group", 1))
	offGroup := int(a.Int("offset_group", 1))
	ks := a.Ints("kernel_shape")
	dilA, strA, padA := a.Ints("dilations"), a.Ints("strides"), a.Ints("pads")
	if a.Err != nil {
		return nil, a.Err
	}
	if group < 1 || offGroup < 1 {
		return nil, n.Errorf("group and offset_group must be positive")
	}
	pick := func(v []int64, i int, def int) int {
		if v == nil {
			return def
		}
		return int(v[i])
	}
	for _, v := range [][]int64{dilA, strA} {
		if v != nil && len(v) != 2 {
			return nil, n.Errorf("DeformConv supports 2-D inputs; dilations and strides need 2 entries")
		}
	}
	if padA != nil && len(padA) != 4 || ks != nil && len(ks) != 2 {
		return nil, n.Errorf("DeformConv supports 2-D inputs; pads need 4 entries and kernel_shape 2")
	}
	dh, dw := pick(dilA, 0, 1), pick(dilA, 1, 1)
	sh, sw := pick(strA, 0, 1), pick(strA, 1, 1)
	pt, pl, pb, pr := pick(padA, 0, 0), pick(padA, 1, 0), pick(padA, 2, 0), pick(padA, 3, 0)
	if dh < 1 || dw < 1 || sh < 1 || sw < 1 {
		return nil, n.Errorf("strides and dilations must be positive")
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("DeformConv needs X, W and offset")
		}
		x, w, off := in[0], in[1], in[2]
		if x.Rank() != 4 || w.Rank() != 4 || off.Rank() != 4 || !isReal(x) {
			return nil, op.Errorf("DeformConv supports 2-D float inputs: X, W, offset of rank 4")
		}
		N, C, H, W := x.Shape()[0], x.Shape()[1], x.Shape()[2], x.Shape()[3]
		OC, CG, KH, KW := w.Shape()[0], w.Shape()[1], w.Shape()[2], w.Shape()[3]
		if ks != nil && (int(ks[0]) != KH || int(ks[1]) != KW) {
			return nil, op.Errorf("kernel_shape %v differs from W %v", ks, w.Shape())
		}
		if C != CG*group || OC%group != 0 || C%offGroup != 0 {
			return nil, op.Errorf("channels %d, W %v, group %d and offset_group %d are inconsistent", C, w.Shape(), group, offGroup)
		}
		OH := (H+pt+pb-(dh*(KH-1)+1))/sh + 1
		OW := (W+pl+pr-(dw*(KW-1)+1))/sw + 1
		K := KH * KW
		if OH < 1 || OW < 1 {
			return nil, op.Errorf("DeformConv output would be empty")
		}
		if want := []int{N, offGroup * 2 * K, OH, OW}; !eq(off.Shape(), want) {
			return nil, op.Errorf("offset shape %v, want %v", off.Shape(), want)
		}
		var bias, mask []float64
		if len(in) > 3 && in[3] != nil {
			if in[3].Len() != OC {
				return nil, op.Errorf("B must have %d elements", OC)
			}
			bias, _ = in[3].Float64s()
		}
		if len(in) > 4 && in[4] != nil {
			if want := []int{N, offGroup * K, OH, OW}; !eq(in[4].Shape(), want) {
				return nil, op.Errorf("mask shape %v, want %v", in[4].Shape(), want)
			}
			mask, _ = in[4].Float64s()
		}
		xs, _ := x.Float64s()
		ws, _ := w.Float64s()
		os, _ := off.Float64s()
		out := ctx.New(x.DType(), N, OC, OH, OW)
		res := make([]float64, out.Len())
		// cols[c][k][pixel]: the sampled, masked input, then a grouped matmul.
		P := OH * OW
		cols := make([]float64, C*K*P)
		cpo := C / offGroup
		ocg := OC / group
		for b := 0; b < N; b++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for c := 0; c < C; c++ {
				g := c / cpo
				plane := xs[(b*C+c)*H*W : (b*C+c+1)*H*W]
				for k := 0; k < K; k++ {
					kh, kw := k/KW, k%KW
					dyBase := ((b*offGroup+g)*2*K + 2*k) * P
					dxBase := dyBase + P
					for oh := 0; oh < OH; oh++ {
						for ow := 0; ow < OW; ow++ {
							p := oh*OW + ow
							y := float64(oh*sh-pt+kh*dh) + os[dyBase+p]
							xx := float64(ow*sw-pl+kw*dw) + os[dxBase+p]
							v := bilinear(plane, H, W, y, xx)
							if mask != nil {
								v *= mask[((b*offGroup+g)*K+k)*P+p]
							}
							cols[(c*K+k)*P+p] = v
						}
					}
				}
			}
			for o := 0; o < OC; o++ {
				g := o / ocg
				dst := res[(b*OC+o)*P : (b*OC+o+1)*P]
				if bias != nil {
					for p := range dst {
						dst[p] = bias[o]
					}
				}
				for ci := 0; ci < CG; ci++ {
					c := g*CG + ci
					for k := 0; k < K; k++ {
						wv := ws[(o*CG+ci)*K+k]
						if wv == 0 {
							continue
						}
						src := cols[(c*K+k)*P : (c*K+k+1)*P]
						for p := range dst {
							dst[p] += wv * src[p]
						}
					}
				}
			}
		}
		store(out, res)
		return ctx.One(out), nil
	}), nil
}

// bilinear samples an H×W plane at (y, x); each of the four neighbours
// outside the plane counts as zero, so samples fade out across the border.
func bilinear(plane []float64, H, W int, y, x float64) float64 {
	if !(y > -1 && y < float64(H) && x > -1 && x < float64(W)) {
		return 0
	}
	y0, x0 := math.Floor(y), math.Floor(x)
	fy, fx := y-y0, x-x0
	iy, ix := int(y0), int(x0)
	at := func(r, c int) float64 {
		if r < 0 || r >= H || c < 0 || c >= W {
			return 0
		}
		return plane[r*W+c]
	}
	return (1-fy)*((1-fx)*at(iy, ix)+fx*at(iy, ix+1)) + fy*((1-fx)*at(iy+1, ix)+fx*at(iy+1, ix+1))
}

func eq(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
