package resample

import (
	"fmt"
	"math"
)

// Mode is the interpolation of Resize/Upsample.
type Mode int

const (
	Nearest Mode = iota
	Linear
	Cubic
)

// CoordMode is Resize's coordinate_transformation_mode: how an output index
// maps to a (fractional) input coordinate.
type CoordMode int

const (
	HalfPixel CoordMode = iota
	HalfPixelSymmetric
	PytorchHalfPixel
	AlignCorners
	Asymmetric
	TFHalfPixelForNN
	TFCropAndResize
)

var coordModeNames = map[string]CoordMode{
	"half_pixel": HalfPixel, "half_pixel_symmetric": HalfPixelSymmetric,
	"pytorch_half_pixel": PytorchHalfPixel, "align_corners": AlignCorners,
	"asymmetric": Asymmetric, "tf_half_pixel_for_nn": TFHalfPixelForNN,
	"tf_crop_and_resize": TFCropAndResize,
}

// NearestMode is Resize's nearest_mode: how a fractional coordinate is
// rounded to an input index in nearest mode.
type NearestMode int

const (
	RoundPreferFloor NearestMode = iota
	RoundPreferCeil
	Floor
	Ceil
)

var nearestModeNames = map[string]NearestMode{
	"round_prefer_floor": RoundPreferFloor, "round_prefer_ceil": RoundPreferCeil,
	"floor": Floor, "ceil": Ceil,
}

// Options are the per-node settings that shape every axis plan.
type Options struct {
	Mode           Mode
	Coord          CoordMode
	Nearest        NearestMode
	CubicA         float64 // cubic_coeff_a
	ExcludeOutside bool
	Antialias      bool
}

// AxisSpec describes one axis to resample.
type AxisSpec struct {
	In, Out int
	// Scale is the scale the coordinate transform divides by: the scales
	// input as given (a float32 value, so 1.799 means 1.79900002479553…), or
	// the keep_aspect_ratio_policy scale, or Out/In when sizes were given.
	Scale float64
	// Ratio says Scale is exactly Out/In (the sizes input with the stretch
	// policy). The transform then evaluates (x+0.5)/scale as
	// (2x+1)·In / (2·Out), a single rounding, so an exact rounding tie of
	// nearest mode (x_original = k + 0.5) is seen as the tie it is.
	Ratio bool
	// RoiStart, RoiEnd are the axis' roi, used by tf_crop_and_resize only.
	RoiStart, RoiEnd float64
	// Length is length_resized when it is fractional: In·scale (times the
	// roi span for tf_crop_and_resize) when the output size came from a
	// scale. Resize-19 names it output_width, "which can be a fractional
	// number when it is calculated out of a scale factor", and the
	// align_corners and tf_crop_and_resize formulas divide by it (the
	// node suite's *_align_corners cases with scales 0.6 and 0.8 depend on
	// it). 0 means Out.
	Length float64
}

// AxisPlan is the resampling of one axis, computed once from the coordinate
// transform, the mode, the nearest rounding, the cubic coefficient, antialias
// and exclude_outside. Output index o reads Taps source indices
// Index[o*Taps:(o+1)*Taps] (already inside [0, In)) with the weights at the
// same positions of Weight: y[o] = Σ Weight[k]·x[Index[k]]. Unused taps have
// weight 0 and index 0. The layout is dense and fixed-width on purpose: it is
// what the CPU kernel walks axis by axis (resampling is separable) and what a
// GPU kernel uploads as two storage buffers, so the coordinate logic of
// Resize exists in this one place.
type AxisPlan struct {
	In, Out int
	Taps    int
	Index   []int32
	Weight  []float64
	// Outside marks output indices whose tf_crop_and_resize coordinate falls
	// outside [0, In-1]; every output element on such an index is
	// extrapolation_value, whatever the other axes say.
	Outside []bool
	// Coord is x_original of each output index, before rounding or clamping
	// (for tests and for explaining differences with other runtimes).
	Coord []float64
}

// Identity reports whether the plan copies the axis unchanged.
func (p *AxisPlan) Identity() bool {
	if p.In != p.Out {
		return false
	}
	for o := 0; o < p.Out; o++ {
		if p.Outside != nil && p.Outside[o] {
			return false
		}
		for k := 0; k < p.Taps; k++ {
			w := p.Weight[o*p.Taps+k]
			if w != 0 && (w != 1 || int(p.Index[o*p.Taps+k]) != o) {
				return false
			}
		}
	}
	return true
}

// Coordinate returns x_original for output index x: the
// coordinate_transformation_mode formulas of Resize-11/13/18/19, in float64.
func Coordinate(x int, a AxisSpec, mode CoordMode) float64 {
	in, out := float64(a.In), float64(a.Out)
	xf := float64(x)
	// half is (x + 0.5) / scale.
	half := func() float64 {
		if a.Ratio {
			return float64((2*x+1)*a.In) / float64(2*a.Out)
		}
		return (xf + 0.5) / a.Scale
	}
	switch mode {
	case HalfPixel:
		return half() - 0.5
	case HalfPixelSymmetric:
		if a.Ratio {
			return half() - 0.5
		}
		// output_width = In·scale may be fractional; output_width_int is Out.
		adjustment := out / (in * a.Scale)
		center := in / 2
		offset := center * (1 - adjustment)
		return offset + half() - 0.5
	case PytorchHalfPixel:
		if a.Out > 1 {
			return half() - 0.5
		}
		return 0
	case AlignCorners:
		// x_original = x_resized * (length_original - 1) / (length_resized - 1).
		// Output index 0 maps to 0, also where the formula would divide
		// by zero (length_resized = 1).
		if x == 0 {
			return 0
		}
		if a.Length == 0 {
			return float64(x*(a.In-1)) / float64(a.Out-1)
		}
		return xf * (in - 1) / (a.Length - 1)
	case Asymmetric:
		if a.Ratio {
			return float64(x*a.In) / out
		}
		return xf / a.Scale
	case TFHalfPixelForNN:
		return half()
	case TFCropAndResize:
		lr := a.Length
		if lr == 0 {
			lr = out
		}
		if lr > 1 {
			return a.RoiStart*(in-1) + xf*(a.RoiEnd-a.RoiStart)*(in-1)/(lr-1)
		}
		return 0.5 * (a.RoiStart + a.RoiEnd) * (in - 1)
	}
	panic(fmt.Sprintf("resample: coordinate mode %d", mode))
}

// NearestIndex rounds a coordinate to an input index by nearest_mode
// (before clamping into the axis).
func NearestIndex(x float64, m NearestMode) int {
	switch m {
	case RoundPreferFloor: // round half down
		return int(math.Ceil(x - 0.5))
	case RoundPreferCeil: // round half up
		return int(math.Floor(x + 0.5))
	case Floor:
		return int(math.Floor(x))
	default:
		return int(math.Ceil(x))
	}
}

// cubicW is the Keys cubic convolution kernel with coefficient a
// (Equation 4 of Keys 1981, the paper cubic_coeff_a cites).
func cubicW(x, a float64) float64 {
	x = math.Abs(x)
	switch {
	case x <= 1:
		return ((a+2)*x-(a+3))*x*x + 1
	case x < 2:
		return ((a*x-5*a)*x+8*a)*x - 4*a
	}
	return 0
}

// PlanAxis builds the plan of one axis.
//
// Taps: nearest has one; linear takes the two neighbours and cubic the four
// around x_original, with the fractional part r taken in (0, 1] (an integral
// coordinate x uses x-1 and x, so that its own weight is 1). With antialias
// and a scale s < 1 the filter is stretched by 1/s: tap k (relative to
// floor) weighs f((k - r)·s), for every k where that can be nonzero, and the
// weights are normalised to sum 1. Taps outside the axis take the edge value
// (the input is edge-padded), unless exclude_outside, which drops them and
// renormalises the rest.
func PlanAxis(a AxisSpec, o Options) (*AxisPlan, error) {
	if a.In < 0 || a.Out < 0 {
		return nil, fmt.Errorf("negative axis length")
	}
	if a.In == 0 && a.Out > 0 {
		return nil, fmt.Errorf("cannot resize an empty axis to %d", a.Out)
	}
	if !a.Ratio && !(a.Scale > 0) && o.Coord != TFCropAndResize && o.Coord != AlignCorners {
		return nil, fmt.Errorf("scale %v must be positive", a.Scale)
	}
	p := &AxisPlan{In: a.In, Out: a.Out}
	fs := 1.0 // filter scale
	if o.Antialias && o.Mode != Nearest && a.Scale < 1 {
		fs = a.Scale
		if a.Ratio {
			fs = float64(a.Out) / float64(a.In)
		}
	}
	var kStart int
	switch o.Mode {
	case Nearest:
		p.Taps = 1
	case Linear:
		kStart = int(math.Floor(-1/fs)) + 1
		p.Taps = 2 - 2*kStart
	case Cubic:
		kStart = int(math.Floor(-2/fs)) + 1
		p.Taps = 2 - 2*kStart
	}
	if a.Out > 0 && p.Taps > (math.MaxInt32/a.Out) {
		return nil, fmt.Errorf("antialias filter of %d taps is too wide", p.Taps)
	}
	p.Index = make([]int32, a.Out*p.Taps)
	p.Weight = make([]float64, a.Out*p.Taps)
	p.Coord = make([]float64, a.Out)
	clamp := func(i int) int {
		if i < 0 {
			return 0
		}
		if i >= a.In {
			return a.In - 1
		}
		return i
	}
	w := make([]float64, p.Taps)
	for x := 0; x < a.Out; x++ {
		c := Coordinate(x, a, o.Coord)
		p.Coord[x] = c
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return nil, fmt.Errorf("coordinate of output index %d is %v", x, c)
		}
		if o.Coord == TFCropAndResize && (c < 0 || c > float64(a.In-1)) {
			if p.Outside == nil {
				p.Outside = make([]bool, a.Out)
			}
			p.Outside[x] = true
			continue // weights stay 0
		}
		row := x * p.Taps
		if o.Mode == Nearest {
			p.Index[row] = int32(clamp(NearestIndex(c, o.Nearest)))
			p.Weight[row] = 1
			continue
		}
		base := math.Floor(c)
		r := c - base
		if r == 0 {
			base--
			r = 1
		}
		sum := 0.0
		for k := range w {
			t := float64(kStart+k) - r
			if o.Mode == Linear {
				w[k] = math.Max(0, 1-math.Abs(t*fs))
			} else {
				w[k] = cubicW(t*fs, o.CubicA)
			}
			idx := int(base) + kStart + k
			if o.ExcludeOutside && (idx < 0 || idx >= a.In) {
				w[k] = 0
			}
			sum += w[k]
		}
		norm := o.ExcludeOutside || fs != 1
		for k := range w {
			if norm && sum != 0 {
				w[k] /= sum
			}
			p.Index[row+k] = int32(clamp(int(base) + kStart + k))
			p.Weight[row+k] = w[k]
		}
	}
	return p, nil
}
