package resample

import (
	"math"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("RoiAlign", []int{10, 16, 22}, buildRoiAlign)
}

type roiAlign struct {
	max       bool
	oh, ow    int
	ratio     int
	scale     float64
	halfPixel bool
}

func buildRoiAlign(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	mode := a.String("mode", "avg")
	oh := a.Int("output_height", 1)
	ow := a.Int("output_width", 1)
	sr := a.Int("sampling_ratio", 0)
	sc := a.Float("spatial_scale", 1)
	ctm := "output_half_pixel" // RoiAlign-10 did not shift the input by half a pixel
	if n.Version >= 16 {
		ctm = a.String("coordinate_transformation_mode", "half_pixel")
	}
	if a.Err != nil {
		return nil, a.Err
	}
	if mode != "avg" && mode != "max" {
		return nil, n.Errorf("unknown mode %q", mode)
	}
	if ctm != "half_pixel" && ctm != "output_half_pixel" {
		return nil, n.Errorf("unknown coordinate_transformation_mode %q", ctm)
	}
	if oh <= 0 || ow <= 0 || oh > 1<<20 || ow > 1<<20 || sr < 0 || sr > 1<<16 {
		return nil, n.Errorf("invalid output_height %d, output_width %d or sampling_ratio %d", oh, ow, sr)
	}
	r := &roiAlign{max: mode == "max", oh: int(oh), ow: int(ow), ratio: int(sr), scale: float64(sc), halfPixel: ctm == "half_pixel"}
	return op.KernelFunc(r.run), nil
}

// bilinearTaps returns the four corner offsets and weights of the sample at
// (y, x) in an h×w map, as RoiAlign samples: a point more than one pixel
// outside the map contributes nothing (ok false); otherwise coordinates are
// clamped to the map and interpolated between the neighbouring pixels.
func bilinearTaps(y, x float64, h, w int) (off [4]int, wt [4]float64, ok bool) {
	// Written as a negation so that a NaN coordinate (NaN or infinite RoI
	// corners or spatial_scale) is outside too.
	if !(y >= -1 && y <= float64(h) && x >= -1 && x <= float64(w)) {
		return off, wt, false
	}
	y, x = math.Max(y, 0), math.Max(x, 0)
	yl, xl := int(y), int(x)
	yh, xh := yl+1, xl+1
	if yl >= h-1 {
		yl, yh, y = h-1, h-1, float64(h-1)
	}
	if xl >= w-1 {
		xl, xh, x = w-1, w-1, float64(w-1)
	}
	ly, lx := y-float64(yl), x-float64(xl)
	hy, hx := 1-ly, 1-lx
	return [4]int{yl*w + xl, yl*w + xh, yh*w + xl, yh*w + xh}, [4]float64{hy * hx, hy * lx, ly * hx, ly * lx}, true
}

func (r *roiAlign) run(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
	x, rois, bi := in[0], in[1], in[2]
	if x.Rank() != 4 || rois.Rank() != 2 || rois.Shape()[1] != 4 || bi.Rank() != 1 || bi.Shape()[0] != rois.Shape()[0] {
		return nil, op.Errorf("RoiAlign needs X [N,C,H,W], rois [R,4], batch_indices [R]; got %v, %v, %v", x.Shape(), rois.Shape(), bi.Shape())
	}
	N, C, H, W := x.Shape()[0], x.Shape()[1], x.Shape()[2], x.Shape()[3]
	R := rois.Shape()[0]
	out := ctx.New(x.DType(), R, C, r.oh, r.ow)
	xv, err := x.Float64s()
	if err != nil {
		return nil, op.Errorf("X: %v", err)
	}
	rv, err := rois.Float64s()
	if err != nil {
		return nil, op.Errorf("rois: %v", err)
	}
	bv, err := bi.Int64s()
	if err != nil {
		return nil, op.Errorf("batch_indices: %v", err)
	}
	res := make([]float64, R*C*r.oh*r.ow)
	offset := 0.0
	if r.halfPixel {
		offset = 0.5
	}
	for n := 0; n < R; n++ {
		b := bv[n]
		if b < 0 || b >= int64(N) {
			return nil, op.Errorf("batch index %d is out of range [0, %d)", b, N)
		}
		x1, y1 := rv[4*n]*r.scale-offset, rv[4*n+1]*r.scale-offset
		x2, y2 := rv[4*n+2]*r.scale-offset, rv[4*n+3]*r.scale-offset
		rw, rh := x2-x1, y2-y1
		if !r.halfPixel { // the legacy mode forces RoIs to at least one pixel
			rw, rh = math.Max(rw, 1), math.Max(rh, 1)
		}
		bh, bw := rh/float64(r.oh), rw/float64(r.ow)
		gh, gw := r.ratio, r.ratio
		if r.ratio == 0 {
			fh, fw := math.Ceil(rh/float64(r.oh)), math.Ceil(rw/float64(r.ow))
			// A huge (or NaN) RoI would ask for billions of samples per bin.
			if !(fh <= 1<<10 && fw <= 1<<10) {
				return nil, op.Errorf("RoI %d (%g, %g, %g, %g) needs %g×%g samples per bin; at most 1024 per axis", n, rv[4*n], rv[4*n+1], rv[4*n+2], rv[4*n+3], fh, fw)
			}
			gh, gw = int(fh), int(fw)
		}
		count := float64(max(gh*gw, 1))
		for ph := 0; ph < r.oh; ph++ {
			for pw := 0; pw < r.ow; pw++ {
				// the samples of this bin, shared by all channels
				type sample struct {
					off [4]int
					wt  [4]float64
				}
				var samples []sample
				for iy := 0; iy < gh; iy++ {
					y := y1 + float64(ph)*bh + (float64(iy)+0.5)*bh/float64(gh)
					for ix := 0; ix < gw; ix++ {
						xx := x1 + float64(pw)*bw + (float64(ix)+0.5)*bw/float64(gw)
						off, wt, ok := bilinearTaps(y, xx, H, W)
						if ok {
							samples = append(samples, sample{off, wt})
						} else if r.max {
							samples = append(samples, sample{})
						}
					}
				}
				for c := 0; c < C; c++ {
					base := (int(b)*C + c) * H * W
					acc := 0.0
					first := true
					for _, s := range samples {
						if r.max {
							// max mode: the largest weighted corner over all
							// samples (what the reference and onnxruntime do);
							// a sample outside the map counts as 0.
							v := math.Max(math.Max(s.wt[0]*xv[base+s.off[0]], s.wt[1]*xv[base+s.off[1]]),
								math.Max(s.wt[2]*xv[base+s.off[2]], s.wt[3]*xv[base+s.off[3]]))
							if first || v > acc {
								acc, first = v, false
							}
							continue
						}
						acc += s.wt[0]*xv[base+s.off[0]] + s.wt[1]*xv[base+s.off[1]] + s.wt[2]*xv[base+s.off[2]] + s.wt[3]*xv[base+s.off[3]]
					}
					if !r.max {
						acc /= count
					}
					res[((n*C+c)*r.oh+ph)*r.ow+pw] = acc
				}
			}
		}
	}
	storeF64(out, res)
	return ctx.One(out), nil
}
