package spatial

import (
	"math"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("MaxRoiPool", []int{1, 22}, buildMaxRoiPool)
}

// buildMaxRoiPool implements MaxRoiPool (1, 22; the versions differ only in
// types). The spec gives no formula, so gort follows the Fast R-CNN ROI
// pooling that the op was written for (and that other runtimes implement):
// ROI corners are scaled by spatial_scale and rounded to whole pixels, the ROI
// (at least 1×1, corners inclusive) is cut into pooled_h × pooled_w bins with
// floor/ceil edges, and each bin takes the maximum of its pixels, or 0 when the
// bin lies outside the image.
func buildMaxRoiPool(n *op.Node) (any, error) {
	shape, ok, err := n.Ints("pooled_shape")
	if err != nil {
		return nil, err
	}
	if !ok || len(shape) != 2 || shape[0] <= 0 || shape[1] <= 0 || shape[0] > 1<<20 || shape[1] > 1<<20 {
		return nil, n.Errorf("MaxRoiPool needs pooled_shape = [height, width] with positive values, got %v", shape)
	}
	scale, err := n.Float("spatial_scale", 1)
	if err != nil {
		return nil, err
	}
	ph, pw := int(shape[0]), int(shape[1])
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("MaxRoiPool needs X and rois")
		}
		x, rois := in[0], in[1]
		if x.Rank() != 4 {
			return nil, op.Errorf("X must be 4-D (N, C, H, W), got shape %v", x.Shape())
		}
		if rois.Rank() != 2 || rois.Shape()[1] != 5 {
			return nil, op.Errorf("rois must have shape (num_rois, 5), got %v", rois.Shape())
		}
		if !x.DType().IsFloat() && x.DType() != tensor.Double || rois.DType() != x.DType() {
			return nil, op.Errorf("X and rois must be the same float type, got %s and %s", x.DType(), rois.DType())
		}
		xs, _ := x.Float64s()
		rs, _ := rois.Float64s()
		nb, c, h, w := x.Shape()[0], x.Shape()[1], x.Shape()[2], x.Shape()[3]
		nr := rois.Shape()[0]
		y := ctx.New(x.DType(), nr, c, ph, pw)
		out := make([]float64, y.Len())
		for r := 0; r < nr; r++ {
			roi := rs[r*5 : r*5+5]
			b := int(roi[0])
			if roi[0] != math.Trunc(roi[0]) || b < 0 || b >= nb {
				return nil, op.Errorf("roi %d has batch index %v; X has %d images", r, roi[0], nb)
			}
			x1, y1 := roundHalfAway(roi[1]*float64(scale)), roundHalfAway(roi[2]*float64(scale))
			x2, y2 := roundHalfAway(roi[3]*float64(scale)), roundHalfAway(roi[4]*float64(scale))
			binH := float64(max(y2-y1+1, 1)) / float64(ph)
			binW := float64(max(x2-x1+1, 1)) / float64(pw)
			for ch := 0; ch < c; ch++ {
				plane := xs[(b*c+ch)*h*w : (b*c+ch+1)*h*w]
				dst := out[((r*c)+ch)*ph*pw : ((r*c)+ch+1)*ph*pw]
				for i := 0; i < ph; i++ {
					hs := clampInt(int(math.Floor(float64(i)*binH))+y1, 0, h)
					he := clampInt(int(math.Ceil(float64(i+1)*binH))+y1, 0, h)
					for j := 0; j < pw; j++ {
						ws := clampInt(int(math.Floor(float64(j)*binW))+x1, 0, w)
						we := clampInt(int(math.Ceil(float64(j+1)*binW))+x1, 0, w)
						if he <= hs || we <= ws {
							continue // empty bin: 0
						}
						m := math.Inf(-1)
						for yy := hs; yy < he; yy++ {
							for xx := ws; xx < we; xx++ {
								m = max(m, plane[yy*w+xx])
							}
						}
						dst[i*pw+j] = m
					}
				}
			}
		}
		if y.DType() == tensor.Double {
			copy(y.F64(), out)
		} else {
			f := y.F32()
			for i, v := range out {
				f[i] = float32(v)
			}
		}
		return ctx.One(y), nil
	}), nil
}

// roundHalfAway rounds like C's round(), as ROI pooling implementations do.
// Coordinates are clamped to ±2^30 first (far outside any image, and safe to
// add to), and NaN counts as 0.
func roundHalfAway(v float64) int {
	if math.IsNaN(v) {
		return 0
	}
	return int(math.Round(math.Max(-1<<30, math.Min(v, 1<<30))))
}

func clampInt(v, lo, hi int) int { return min(max(v, lo), hi) }
