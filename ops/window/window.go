// Package window holds what Conv, ConvTranspose and the pooling ops mean by
// their window attributes: it parses them once per node and resolves the
// geometry (output dims, padding after auto_pad and ceil_mode) against the
// input's shape. The CPU kernels (ops/nn) and the WebGPU kernels
// (ops/webgpu) both read this parsed form, so the two cannot disagree on
// what a node asks for.
package window

import (
	"slices"

	"github.com/gort-dev/gort/runtime/op"
)

// Attrs are a node's window attributes, validated. Per-dim lists are nil
// when absent; they are filled in once the spatial rank is known.
type Attrs struct {
	AutoPad   string // NOTSET, SAME_UPPER, SAME_LOWER or VALID
	Kernel    []int  // kernel_shape
	Strides   []int
	Dilations []int
	Pads      []int // begin..., end...
	CeilMode  bool
	// CountIncludePad is AveragePool's count_include_pad.
	CountIncludePad bool
	// StorageOrder is MaxPool's storage_order (the Indices output's layout).
	StorageOrder int
	// Group is Conv's and ConvTranspose's group (1 when absent).
	Group int
	// OutputPadding and OutputShape are ConvTranspose's.
	OutputPadding, OutputShape []int
	// OddPadAtEnd is ConvTranspose-1's rule for the padding output_shape
	// implies with auto_pad NOTSET: pads[start] = total/2, so an odd unit
	// goes at the end; version 11 moved it to the start. (Version 1's SAME_*
	// text contradicts its own formula; 11's rule, which the attribute's
	// description states, is kept there: docs/op-versions.md.)
	OddPadAtEnd bool
}

// Parse reads and checks the node's window attributes.
func Parse(n *op.Node) (*Attrs, error) {
	a := &op.Attribs{N: n}
	w := &Attrs{
		AutoPad:         a.String("auto_pad", "NOTSET"),
		Kernel:          ints(a.Ints("kernel_shape")),
		Strides:         ints(a.Ints("strides")),
		Dilations:       ints(a.Ints("dilations")),
		Pads:            ints(a.Ints("pads")),
		CeilMode:        a.Int("ceil_mode", 0) != 0,
		CountIncludePad: a.Int("count_include_pad", 0) != 0,
		StorageOrder:    int(a.Int("storage_order", 0)),
		Group:           int(a.Int("group", 1)),
		OutputPadding:   ints(a.Ints("output_padding")),
		OutputShape:     ints(a.Ints("output_shape")),
	}
	if a.Err != nil {
		return nil, a.Err
	}
	w.OddPadAtEnd = n.OpType == "ConvTranspose" && n.Version < 11 && w.AutoPad == "NOTSET"
	switch w.AutoPad {
	case "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID":
	default:
		return nil, n.Errorf("unknown auto_pad %q", w.AutoPad)
	}
	for _, c := range []struct {
		name string
		v    []int
		min  int
	}{{"strides", w.Strides, 1}, {"dilations", w.Dilations, 1}, {"kernel_shape", w.Kernel, 1}, {"pads", w.Pads, 0}} {
		for _, x := range c.v {
			if x < c.min {
				if c.min == 0 {
					return nil, n.Errorf("%s must be non-negative, got %v", c.name, c.v)
				}
				return nil, n.Errorf("%s must be positive, got %v", c.name, c.v)
			}
		}
	}
	if w.Group <= 0 {
		return nil, n.Errorf("group must be positive, got %d", w.Group)
	}
	return w, nil
}

func ints(v []int64) []int {
	if v == nil {
		return nil
	}
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// fill returns v, or n copies of def when v is nil; a v of another length
// is an error naming the attribute.
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

// Geometry is a window resolved against an input's spatial dims: one value
// per spatial dim in every list.
type Geometry struct {
	In, Out                    []int // spatial dims of the op's input and output
	Kernel, Strides, Dilations []int
	PadsBegin, PadsEnd         []int
}

// WeightKernel returns the kernel dims of a weight of shape w (its dims
// after the first two), checked against kernel_shape when that is given.
func (a *Attrs) WeightKernel(w []int) ([]int, error) {
	k := slices.Clone(w[2:])
	if a.Kernel != nil && !slices.Equal(a.Kernel, k) {
		return nil, op.Errorf("kernel_shape %v does not match weight shape %v", a.Kernel, w)
	}
	return k, nil
}

// Forward resolves a forward sweep (Conv and pooling) over the spatial
// dims in: defaults filled, auto_pad applied to the spatial dims only,
// ceil_mode dropping a window that would start in the end padding. kernel
// overrides kernel_shape when non-nil (Conv takes it from W).
func (a *Attrs) Forward(in, kernel []int) (*Geometry, error) {
	nd := len(in)
	var err error
	g := &Geometry{In: slices.Clone(in)}
	if kernel == nil {
		kernel = a.Kernel
	}
	if kernel == nil {
		return nil, op.Errorf("kernel_shape is required")
	}
	if g.Kernel, err = fill(kernel, nd, 0, "kernel_shape"); err != nil {
		return nil, err
	}
	if g.Strides, err = fill(a.Strides, nd, 1, "strides"); err != nil {
		return nil, err
	}
	if g.Dilations, err = fill(a.Dilations, nd, 1, "dilations"); err != nil {
		return nil, err
	}
	pads, err := fill(a.Pads, 2*nd, 0, "pads")
	if err != nil {
		return nil, err
	}
	g.PadsBegin, g.PadsEnd, g.Out = make([]int, nd), make([]int, nd), make([]int, nd)
	for d := 0; d < nd; d++ {
		s, k := g.Strides[d], (g.Kernel[d]-1)*g.Dilations[d]+1
		switch a.AutoPad {
		case "SAME_UPPER", "SAME_LOWER":
			out := (in[d] + s - 1) / s
			total := max(0, (out-1)*s+k-in[d])
			small := total / 2
			if a.AutoPad == "SAME_UPPER" {
				g.PadsBegin[d], g.PadsEnd[d] = small, total-small
			} else {
				g.PadsBegin[d], g.PadsEnd[d] = total-small, small
			}
		case "VALID":
		default:
			g.PadsBegin[d], g.PadsEnd[d] = pads[d], pads[nd+d]
		}
		span := in[d] + g.PadsBegin[d] + g.PadsEnd[d] - k
		if span < 0 {
			return nil, op.Errorf("kernel extent %d exceeds padded input %d on spatial dim %d", k, in[d]+g.PadsBegin[d]+g.PadsEnd[d], d)
		}
		out := span/s + 1
		if a.CeilMode && a.AutoPad != "SAME_UPPER" && a.AutoPad != "SAME_LOWER" {
			out = (span+s-1)/s + 1
			// A window must start inside the input or its left padding;
			// one starting in the right padding is dropped.
			if (out-1)*s >= in[d]+g.PadsBegin[d] {
				out--
			}
		}
		g.Out[d] = out
	}
	return g, nil
}

// Transpose resolves ConvTranspose over X's spatial dims in with the
// weight's kernel dims: Out is Y's spatial dims, PadsBegin what is cropped
// from the front of the full output (PadsEnd is left zero: the crop at the
// end follows from Out). output_shape (spatial, or the full (N, C, ...)
// shape some exporters write) or SAME_* put the odd unit of padding at the
// end for SAME_UPPER and at the beginning otherwise, as the forward ops do.
func (a *Attrs) Transpose(in, kernel []int) (*Geometry, error) {
	nd := len(in)
	g := &Geometry{In: slices.Clone(in), Kernel: kernel, PadsBegin: make([]int, nd), PadsEnd: make([]int, nd), Out: make([]int, nd)}
	var err error
	if g.Strides, err = fill(a.Strides, nd, 1, "strides"); err != nil {
		return nil, err
	}
	if g.Dilations, err = fill(a.Dilations, nd, 1, "dilations"); err != nil {
		return nil, err
	}
	outPad, err := fill(a.OutputPadding, nd, 0, "output_padding")
	if err != nil {
		return nil, err
	}
	pads, err := fill(a.Pads, 2*nd, 0, "pads")
	if err != nil {
		return nil, err
	}
	outShape := a.OutputShape
	if len(outShape) == nd+2 {
		outShape = outShape[2:]
	}
	if outShape != nil && len(outShape) != nd {
		return nil, op.Errorf("output_shape %v does not have %d spatial dims", a.OutputShape, nd)
	}
	for d := 0; d < nd; d++ {
		k := (kernel[d]-1)*g.Dilations[d] + 1
		full := g.Strides[d]*(in[d]-1) + outPad[d] + k
		var out, begin int
		switch {
		case outShape != nil || a.AutoPad == "SAME_UPPER" || a.AutoPad == "SAME_LOWER":
			if outShape != nil {
				out = outShape[d]
			} else {
				out = in[d] * g.Strides[d]
			}
			// A negative total (output_shape larger than the natural size)
			// rounds toward -inf, so the surplus lands at the end like
			// output_padding.
			total := full - out
			half := total >> 1
			if a.AutoPad == "SAME_UPPER" || a.OddPadAtEnd && total >= 0 {
				begin = half
			} else {
				begin = total - half
			}
		case a.AutoPad == "VALID":
			out = full
		default:
			begin = pads[d]
			out = full - pads[d] - pads[nd+d]
		}
		if out <= 0 {
			return nil, op.Errorf("ConvTranspose output dim %d would be %d", d, out)
		}
		g.Out[d], g.PadsBegin[d] = out, begin
	}
	return g, nil
}
