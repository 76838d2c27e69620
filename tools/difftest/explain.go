package main

import (
	"math"
	"sort"
	"strings"

	"github.com/gort-dev/gort/ops/resample"
	"github.com/gort-dev/gort/runtime/compare"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// deviations names each way onnxruntime 1.23 departs from the ONNX spec, with
// the spec clause gort follows. A mismatch is explained only when
// re-evaluating the case with gort's own resampling plan, changed by exactly
// the named deviations, reproduces onnxruntime's output; each deviation has a
// unit test in ops/resample (deviations_test.go) asserting the spec value.
var deviations = map[string]string{
	"same-shape-copy":       "onnxruntime returns the input when the output shape equals the input shape; spec: x_original = (x+0.5)/scale-0.5 etc. with the given scale (scales [1, 1.264] on a length-2 axis resamples it), and tf_half_pixel_for_nn shifts by half a pixel even at scale 1",
	"integer-length":        "onnxruntime divides by the integer output length in align_corners/tf_crop_and_resize; spec (Resize-19): length_resized is output_width, fractional (In*scale) when computed from a scale - the node suite's *_align_corners cases with scales 0.6/0.8 require it",
	"roi-output-size":       "onnxruntime sizes tf_crop_and_resize output as floor(In*scale); spec: output_dimension = floor(input_dimension * (roi_end - roi_start) * scale)",
	"float32-size":          "onnxruntime computes In*scale in float32 (10 x 0.7f rounds to 7); spec: floor of the exact product (6.99999988 -> 6)",
	"float32-coord":         "onnxruntime evaluates x_original in float32, moving nearest-mode rounding ties (e.g. 3.5/1.1666666f); spec: the formula's exact value, gort evaluates it in float64 (sizes: as the ratio In/Out)",
	"legacy-nearest":        "Resize-10/Upsample: onnxruntime rounds nearest coordinates up (ceil) when downsampling; spec defines only floor(input*scale) sizes, gort samples x/scale rounded down as Upsample-1's example (each input repeated scale times)",
	"unit-scale-axis":       "onnxruntime copies an axis whose scale is 1 (sizes equal to the input length) unchanged; spec: tf_crop_and_resize still crops it to its roi, tf_half_pixel_for_nn still shifts it by half a pixel",
	"extrap-wraps":          "onnxruntime converts a negative extrapolation_value to an unsigned type by wrapping (-1 -> 255); the spec does not define the conversion, gort casts with saturation (-1 -> 0)",
	"antialias-same-length": "with antialias, onnxruntime copies an axis whose output length equals its input length (scale 1.1 on a length-2 axis); spec: the axis is resampled with its scale like any other",
	"antialias-ratio":       "with antialias, onnxruntime takes the scale as output/input length; spec: the given scale",
	"nms-score-equal":       "onnxruntime drops boxes whose score equals score_threshold; spec: boxes with score *less than* score_threshold are removed",
}

type toggles struct {
	sameShapeCopy, intLength, roiSize, f32Size, f32Coord, legacyNearest bool
	unitScale, extrapWrap                                               bool
	aaRatio, aaSameLen                                                  bool
}

func (t toggles) names() string {
	var n []string
	if t.sameShapeCopy {
		n = append(n, "same-shape-copy")
	}
	if t.intLength {
		n = append(n, "integer-length")
	}
	if t.roiSize {
		n = append(n, "roi-output-size")
	}
	if t.f32Size {
		n = append(n, "float32-size")
	}
	if t.f32Coord {
		n = append(n, "float32-coord")
	}
	if t.legacyNearest {
		n = append(n, "legacy-nearest")
	}
	if t.unitScale {
		n = append(n, "unit-scale-axis")
	}
	if t.extrapWrap {
		n = append(n, "extrap-wraps")
	}
	if t.aaRatio {
		n = append(n, "antialias-ratio")
	}
	if t.aaSameLen {
		n = append(n, "antialias-same-length")
	}
	sort.Strings(n)
	return strings.Join(n, "+")
}

func explain(c *Case, got, want []*tensor.Tensor) string {
	switch cfg := c.Cfg.(type) {
	case *ResizeCfg:
		return explainResize(c, cfg, want[0])
	case *NMSCfg:
		if !cfg.HasScore {
			return ""
		}
		// the strict reading: keep only scores above the threshold
		var sel []int64
		for b := 0; b < cfg.Batches; b++ {
			boxes := make([]resample.Box, cfg.Boxes)
			for i := range boxes {
				boxes[i] = resample.BoxFrom(cfg.BoxData[(b*cfg.Boxes+i)*4:], cfg.CenterPoint == 1)
			}
			for cl := 0; cl < cfg.Classes; cl++ {
				scores := cfg.Scores[(b*cfg.Classes+cl)*cfg.Boxes : (b*cfg.Classes+cl+1)*cfg.Boxes]
				thr := math.Nextafter(float64(cfg.Score), math.Inf(1))
				iou := 0.0
				if cfg.HasIoU {
					iou = float64(cfg.IoU)
				}
				for _, k := range resample.SelectBoxes(boxes, scores, int(min(cfg.MaxOut, int64(cfg.Boxes))), iou, thr, true) {
					sel = append(sel, int64(b), int64(cl), int64(k))
				}
			}
		}
		alt := tensor.Of([]int{len(sel) / 3, 3}, sel)
		if len(sel) == 0 {
			alt = tensor.New(tensor.Int64, 0, 3)
		}
		if compare.Compare(alt, want[0], tol) == "" {
			return "nms-score-equal"
		}
	}
	return ""
}

func explainRefusal(c *Case, ortErr string) string { return "" }

// explainResize tries every combination of the deviations that can apply to
// the configuration and returns the smallest one reproducing onnxruntime.
func explainResize(c *Case, cfg *ResizeCfg, want *tensor.Tensor) string {
	legacy := cfg.Op == "Upsample" || cfg.Opset == 10
	var cands []func(*toggles)
	cands = append(cands, func(t *toggles) { t.sameShapeCopy = true })
	cands = append(cands, func(t *toggles) { t.f32Size = true })
	if legacy && cfg.Mode == "nearest" {
		cands = append(cands, func(t *toggles) { t.legacyNearest = true })
	}
	if cfg.Coord == "align_corners" || cfg.Coord == "tf_crop_and_resize" {
		cands = append(cands, func(t *toggles) { t.intLength = true })
	}
	if cfg.Coord == "tf_crop_and_resize" && cfg.Scales != nil {
		cands = append(cands, func(t *toggles) { t.roiSize = true })
	}
	if cfg.Mode == "nearest" || cfg.Coord == "tf_crop_and_resize" {
		cands = append(cands, func(t *toggles) { t.f32Coord = true })
	}
	if cfg.Coord == "tf_crop_and_resize" || cfg.Coord == "tf_half_pixel_for_nn" {
		cands = append(cands, func(t *toggles) { t.unitScale = true })
	}
	if cfg.Antialias != 0 {
		cands = append(cands, func(t *toggles) { t.aaRatio = true })
		cands = append(cands, func(t *toggles) { t.aaSameLen = true })
	}
	if cfg.Coord == "tf_crop_and_resize" && cfg.Extrap < 0 && (cfg.DType == tensor.Uint8) {
		cands = append(cands, func(t *toggles) { t.extrapWrap = true })
	}
	best := ""
	bestN := 99
	for mask := 1; mask < 1<<len(cands); mask++ {
		var t toggles
		n := 0
		for i, f := range cands {
			if mask&(1<<i) != 0 {
				f(&t)
				n++
			}
		}
		if n >= bestN {
			continue
		}
		alt, err := evalResize(cfg, c.Feeds["x"], t)
		if err == nil && compare.Compare(alt, want, tol) == "" {
			best, bestN = t.names(), n
		}
	}
	return best
}

// evalResize recomputes a Resize/Upsample case with gort's plans, with the
// given deviations from the spec switched on.
func evalResize(cfg *ResizeCfg, x *tensor.Tensor, t toggles) (*tensor.Tensor, error) {
	shape := x.Shape()
	rank := len(shape)
	legacy := cfg.Op == "Upsample" || cfg.Opset == 10
	opt := resample.Options{Mode: map[string]resample.Mode{"nearest": resample.Nearest, "linear": resample.Linear, "cubic": resample.Cubic}[cfg.Mode]}
	coord := "asymmetric"
	if !legacy {
		coord = cfg.Coord
		if coord == "" {
			coord = "half_pixel"
		}
	}
	opt.Coord = map[string]resample.CoordMode{"half_pixel": resample.HalfPixel, "half_pixel_symmetric": resample.HalfPixelSymmetric,
		"pytorch_half_pixel": resample.PytorchHalfPixel, "align_corners": resample.AlignCorners, "asymmetric": resample.Asymmetric,
		"tf_half_pixel_for_nn": resample.TFHalfPixelForNN, "tf_crop_and_resize": resample.TFCropAndResize}[coord]
	nm := cfg.Nearest
	if legacy {
		nm = "floor"
	}
	opt.Nearest = map[string]resample.NearestMode{"": resample.RoundPreferFloor, "round_prefer_floor": resample.RoundPreferFloor,
		"round_prefer_ceil": resample.RoundPreferCeil, "floor": resample.Floor, "ceil": resample.Ceil}[nm]
	opt.CubicA = -0.75
	if cfg.HasCubicA {
		opt.CubicA = float64(cfg.CubicA)
	}
	opt.ExcludeOutside, opt.Antialias = cfg.Exclude != 0, cfg.Antialias != 0

	listed := make([]int, 0, rank)
	if cfg.Axes != nil {
		for _, a := range cfg.Axes {
			listed = append(listed, int((a+int64(rank))%int64(rank)))
		}
	} else {
		for d := 0; d < rank; d++ {
			listed = append(listed, d)
		}
	}
	specs := make([]resample.AxisSpec, rank)
	for d := range specs {
		specs[d] = resample.AxisSpec{In: shape[d], Out: shape[d], Scale: 1, Ratio: true, RoiEnd: 1}
	}
	n := len(listed)
	for i, d := range listed {
		in := float64(shape[d])
		s := &specs[d]
		if cfg.Roi != nil && opt.Coord == resample.TFCropAndResize {
			s.RoiStart, s.RoiEnd = float64(cfg.Roi[i]), float64(cfg.Roi[n+i])
		}
		if cfg.Scales != nil {
			sc := float64(cfg.Scales[i])
			span := 1.0
			if opt.Coord == resample.TFCropAndResize && !legacy && !t.roiSize {
				span = s.RoiEnd - s.RoiStart
			}
			s.Scale, s.Ratio = sc, false
			s.Length = in * span * sc
			s.Out = int(math.Floor(s.Length))
			if t.f32Size {
				s.Out = int(math.Floor(float64(float32(in) * float32(span) * float32(sc))))
			}
			if t.intLength {
				s.Length = 0
			}
		}
	}
	if cfg.Sizes != nil {
		if cfg.Policy == "not_larger" || cfg.Policy == "not_smaller" {
			scale := 0.0
			for i, d := range listed {
				v := float64(cfg.Sizes[i]) / float64(shape[d])
				if i == 0 || (cfg.Policy == "not_larger" && v < scale) || (cfg.Policy == "not_smaller" && v > scale) {
					scale = v
				}
			}
			for _, d := range listed {
				s := &specs[d]
				s.Scale, s.Ratio, s.Length = scale, false, scale*float64(shape[d])
				s.Out = int(math.Floor(s.Length + 0.5))
				if t.intLength {
					s.Length = 0
				}
			}
		} else {
			for i, d := range listed {
				s := &specs[d]
				s.Out = int(cfg.Sizes[i])
				s.Scale = float64(s.Out) / float64(shape[d])
			}
		}
	}
	if t.aaRatio {
		for d := range specs {
			s := &specs[d]
			if s.In > 0 {
				s.Scale, s.Ratio, s.Length = float64(s.Out)/float64(s.In), true, 0
			}
		}
	}
	same := true
	for d := range specs {
		same = same && specs[d].Out == shape[d]
	}
	if t.sameShapeCopy && same {
		return x, nil
	}
	plans := make([]*resample.AxisPlan, rank)
	for d, s := range specs {
		p, err := resample.PlanAxis(s, opt)
		if err != nil {
			return nil, err
		}
		if t.f32Coord && opt.Coord == resample.TFCropAndResize && opt.Mode != resample.Nearest {
			for o := 0; o < p.Out; o++ {
				c := coord32(o, s, opt.Coord)
				if c < 0 || c > float32(s.In-1) {
					if p.Outside == nil {
						p.Outside = make([]bool, p.Out)
					}
					p.Outside[o] = true
				}
			}
		}
		if opt.Mode == resample.Nearest && (t.f32Coord || t.legacyNearest) {
			for o := 0; o < p.Out; o++ {
				if p.Outside != nil && p.Outside[o] {
					continue
				}
				c := p.Coord[o]
				if t.f32Coord {
					c = float64(coord32(o, s, opt.Coord))
				}
				var idx int
				if t.legacyNearest && s.Scale < 1 {
					idx = int(math.Ceil(c))
				} else {
					idx = resample.NearestIndex(c, opt.Nearest)
				}
				p.Index[o] = int32(min(max(idx, 0), s.In-1))
			}
		}
		if t.unitScale && s.Scale == 1 {
			continue
		}
		if t.aaSameLen && s.Out == s.In {
			// copied, yet still extrapolated where the roi leaves the input
			id := &resample.AxisPlan{In: s.In, Out: s.Out, Taps: 1, Index: make([]int32, s.Out), Weight: make([]float64, s.Out), Outside: p.Outside}
			for o := range id.Index {
				id.Index[o], id.Weight[o] = int32(o), 1
			}
			if !id.Identity() {
				plans[d] = id
			}
			continue
		}
		if !p.Identity() {
			plans[d] = p
		}
	}
	extrap := float64(cfg.Extrap)
	if t.extrapWrap {
		extrap = float64(uint8(int64(extrap)))
	}
	return resample.Apply(&op.Context{}, x, plans, opt.Mode, extrap)
}

// coord32 is x_original evaluated in float32 arithmetic, with the scale of a
// sizes input computed as the float32 quotient Out/In.
func coord32(x int, a resample.AxisSpec, m resample.CoordMode) float32 {
	xf, in, out := float32(x), float32(a.In), float32(a.Out)
	s := float32(a.Scale)
	if a.Ratio {
		s = out / in
	}
	switch m {
	case resample.HalfPixel:
		return (xf+0.5)/s - 0.5
	case resample.HalfPixelSymmetric:
		ow := s * in
		adj := out / ow
		center := in / 2
		return center*(1-adj) + (xf+0.5)/s - 0.5
	case resample.PytorchHalfPixel:
		if a.Out > 1 {
			return (xf+0.5)/s - 0.5
		}
		return 0
	case resample.AlignCorners:
		if a.Out == 1 {
			return 0
		}
		return xf * (in - 1) / (out - 1)
	case resample.Asymmetric:
		return xf / s
	case resample.TFHalfPixelForNN:
		return (xf + 0.5) / s
	}
	rs, re := float32(a.RoiStart), float32(a.RoiEnd)
	if a.Out > 1 {
		return rs*(in-1) + xf*(re-rs)*(in-1)/(out-1)
	}
	return 0.5 * (rs + re) * (in - 1)
}
