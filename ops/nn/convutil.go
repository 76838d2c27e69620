package nn

import (
	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// windowAttrs are the attributes Conv, ConvTranspose and the pooling ops
// share. They are parsed once at build time; missing per-dim lists are
// filled in once the spatial rank is known at run time.
type windowAttrs struct {
	autoPad   string
	kernel    []int
	strides   []int
	dilations []int
	pads      []int // begin..., end...
	ceilMode  bool
}

func toInts(v []int64) []int {
	if v == nil {
		return nil
	}
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

func parseWindow(a *op.Attribs) windowAttrs {
	w := windowAttrs{
		autoPad:   a.String("auto_pad", "NOTSET"),
		kernel:    toInts(a.Ints("kernel_shape")),
		strides:   toInts(a.Ints("strides")),
		dilations: toInts(a.Ints("dilations")),
		pads:      toInts(a.Ints("pads")),
		ceilMode:  a.Int("ceil_mode", 0) != 0,
	}
	if a.Err != nil {
		return w
	}
	switch w.autoPad {
	case "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID":
	default:
		a.Err = a.N.Errorf("unknown auto_pad %q", w.autoPad)
	}
	for _, s := range w.strides {
		if s <= 0 {
			a.Err = a.N.Errorf("strides must be positive, got %v", w.strides)
		}
	}
	for _, d := range w.dilations {
		if d <= 0 {
			a.Err = a.N.Errorf("dilations must be positive, got %v", w.dilations)
		}
	}
	for _, p := range w.pads {
		if p < 0 {
			a.Err = a.N.Errorf("pads must be non-negative, got %v", w.pads)
		}
	}
	for _, k := range w.kernel {
		if k <= 0 {
			a.Err = a.N.Errorf("kernel_shape must be positive, got %v", w.kernel)
		}
	}
	return w
}

func fill(v []int, n, def int, name string) ([]int, error) {
	if v == nil {
		out := make([]int, n)
		for i := range out {
			out[i] = def
		}
		return out, nil
	}
	if len(v) != n {
		return nil, op.Errorf("%s has %d entries, expected %d", name, len(v), n)
	}
	return v, nil
}

// geometry resolves the window attributes against the spatial input dims
// for a forward sweep (Conv and pooling): it fills defaults, applies
// auto_pad on the spatial dims only, and computes the output dims. kernel
// overrides the attribute when non-nil (Conv infers it from W).
func (w *windowAttrs) geometry(in, kernel []int) (*kernels.ConvGeom, []int, error) {
	nd := len(in)
	var err error
	g := &kernels.ConvGeom{In: in}
	if kernel == nil {
		kernel = w.kernel
	}
	if g.Kernel, err = fill(kernel, nd, 0, "kernel_shape"); err != nil {
		return nil, nil, err
	}
	if kernel == nil {
		return nil, nil, op.Errorf("kernel_shape is required")
	}
	if g.Strides, err = fill(w.strides, nd, 1, "strides"); err != nil {
		return nil, nil, err
	}
	if g.Dilations, err = fill(w.dilations, nd, 1, "dilations"); err != nil {
		return nil, nil, err
	}
	pads, err := fill(w.pads, 2*nd, 0, "pads")
	if err != nil {
		return nil, nil, err
	}
	g.PadsBegin = make([]int, nd)
	padsEnd := make([]int, nd)
	g.Out = make([]int, nd)
	for d := 0; d < nd; d++ {
		s, k := g.Strides[d], (g.Kernel[d]-1)*g.Dilations[d]+1
		switch w.autoPad {
		case "SAME_UPPER", "SAME_LOWER":
			out := (in[d] + s - 1) / s
			total := max(0, (out-1)*s+k-in[d])
			small := total / 2
			if w.autoPad == "SAME_UPPER" {
				g.PadsBegin[d], padsEnd[d] = small, total-small
			} else {
				g.PadsBegin[d], padsEnd[d] = total-small, small
			}
		case "VALID":
		default:
			g.PadsBegin[d], padsEnd[d] = pads[d], pads[nd+d]
		}
		span := in[d] + g.PadsBegin[d] + padsEnd[d] - k
		if span < 0 {
			return nil, nil, op.Errorf("kernel extent %d exceeds padded input %d on spatial dim %d", k, in[d]+g.PadsBegin[d]+padsEnd[d], d)
		}
		out := span/s + 1
		if w.ceilMode && w.autoPad != "SAME_UPPER" && w.autoPad != "SAME_LOWER" {
			out = (span+s-1)/s + 1
			// A window must start inside the input or its left padding;
			// one starting in the right padding is dropped.
			if (out-1)*s >= in[d]+g.PadsBegin[d] {
				out--
			}
		}
		g.Out[d] = out
	}
	return g, padsEnd, nil
}

// floatKind classifies the storage of a floating-point tensor.
func isFloatish(dt tensor.DType) bool { return dt.IsFloat() || dt == tensor.Double }
