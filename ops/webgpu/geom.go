package webgpu

import (
	"fmt"

	"github.com/gort-dev/gort/runtime/op"
)

// maxSpatial is the number of spatial dims the window kernels handle (1-D
// and 2-D inputs run as 3-D ones with leading unit dims).
const maxSpatial = 3

// window holds the attributes Conv, ConvTranspose and the pools share,
// parsed at build time with the same defaults as the CPU kernels of ops/nn.
type window struct {
	autoPad                          string
	kernel, strides, dilations, pads []int
	outputPadding, outputShape       []int
	ceil, includePad                 bool
	group                            int
	storageOrder                     bool
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

func parseWindow(n *op.Node) (*window, error) {
	a := &op.Attribs{N: n}
	w := &window{
		autoPad:       a.String("auto_pad", "NOTSET"),
		kernel:        ints(a.Ints("kernel_shape")),
		strides:       ints(a.Ints("strides")),
		dilations:     ints(a.Ints("dilations")),
		pads:          ints(a.Ints("pads")),
		outputPadding: ints(a.Ints("output_padding")),
		outputShape:   ints(a.Ints("output_shape")),
		ceil:          a.Int("ceil_mode", 0) != 0,
		includePad:    a.Int("count_include_pad", 0) != 0,
		group:         int(a.Int("group", 1)),
	}
	w.storageOrder = a.Int("storage_order", 0) != 0
	if a.Err != nil {
		return nil, a.Err
	}
	switch w.autoPad {
	case "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID":
	default:
		return nil, fmt.Errorf("auto_pad %q", w.autoPad)
	}
	if w.group <= 0 {
		return nil, fmt.Errorf("group %d", w.group)
	}
	for _, l := range [][]int{w.kernel, w.strides, w.dilations} {
		for _, v := range l {
			if v <= 0 {
				return nil, fmt.Errorf("non-positive kernel_shape, strides or dilations")
			}
		}
	}
	for _, p := range w.pads {
		if p < 0 {
			return nil, fmt.Errorf("negative pads")
		}
	}
	return w, nil
}

func fillInts(v []int, n, def int, name string) ([]int, error) {
	if v == nil {
		out := make([]int, n)
		for i := range out {
			out[i] = def
		}
		return out, nil
	}
	if len(v) != n {
		return nil, fmt.Errorf("%s has %d entries, expected %d", name, len(v), n)
	}
	return v, nil
}

// geom is a resolved window over up to three spatial dims, padded with
// leading unit dims. For ConvTranspose, in is X's spatial shape and out
// Y's, with pb the begin padding cropped from the full output.
type geom struct {
	in, out, k, s, d, pb, pe [maxSpatial]int
}

// pad3 places v (nd values) at the end of a 3-vector filled with def.
func pad3(v []int, def int) [maxSpatial]int {
	var r [maxSpatial]int
	off := maxSpatial - len(v)
	for i := range r {
		if i < off {
			r[i] = def
		} else {
			r[i] = v[i-off]
		}
	}
	return r
}

// forward resolves Conv and pooling geometry (the rules of ops/nn's
// windowAttrs.geometry: auto_pad on spatial dims, ceil_mode dropping a
// window that would start in the end padding).
func (w *window) forward(in, kernel []int) (*geom, error) {
	nd := len(in)
	if nd < 1 || nd > maxSpatial {
		return nil, fmt.Errorf("%d spatial dims (the WebGPU kernels handle 1 to %d)", nd, maxSpatial)
	}
	if kernel == nil {
		kernel = w.kernel
	}
	k, err := fillInts(kernel, nd, 0, "kernel_shape")
	if err != nil {
		return nil, err
	}
	if kernel == nil {
		return nil, fmt.Errorf("kernel_shape is required")
	}
	s, err := fillInts(w.strides, nd, 1, "strides")
	if err != nil {
		return nil, err
	}
	dl, err := fillInts(w.dilations, nd, 1, "dilations")
	if err != nil {
		return nil, err
	}
	pads, err := fillInts(w.pads, 2*nd, 0, "pads")
	if err != nil {
		return nil, err
	}
	pb, pe, out := make([]int, nd), make([]int, nd), make([]int, nd)
	for d := 0; d < nd; d++ {
		ext := (k[d]-1)*dl[d] + 1
		switch w.autoPad {
		case "SAME_UPPER", "SAME_LOWER":
			o := (in[d] + s[d] - 1) / s[d]
			total := max(0, (o-1)*s[d]+ext-in[d])
			small := total / 2
			if w.autoPad == "SAME_UPPER" {
				pb[d], pe[d] = small, total-small
			} else {
				pb[d], pe[d] = total-small, small
			}
		case "VALID":
		default:
			pb[d], pe[d] = pads[d], pads[nd+d]
		}
		span := in[d] + pb[d] + pe[d] - ext
		if span < 0 {
			return nil, fmt.Errorf("kernel extent %d exceeds the padded input on spatial dim %d", ext, d)
		}
		o := span/s[d] + 1
		if w.ceil && w.autoPad != "SAME_UPPER" && w.autoPad != "SAME_LOWER" {
			o = (span+s[d]-1)/s[d] + 1
			if (o-1)*s[d] >= in[d]+pb[d] {
				o--
			}
		}
		out[d] = o
	}
	return &geom{in: pad3(in, 1), out: pad3(out, 1), k: pad3(k, 1), s: pad3(s, 1), d: pad3(dl, 1), pb: pad3(pb, 0), pe: pad3(pe, 0)}, nil
}

// transpose resolves ConvTranspose geometry (ops/nn's convTAttrs.shapes:
// output_shape or SAME_* put the odd unit of padding at the end for
// SAME_UPPER and at the beginning otherwise).
func (w *window) transpose(in, kernel []int) (*geom, error) {
	nd := len(in)
	if nd < 1 || nd > maxSpatial {
		return nil, fmt.Errorf("%d spatial dims (the WebGPU kernels handle 1 to %d)", nd, maxSpatial)
	}
	s, err := fillInts(w.strides, nd, 1, "strides")
	if err != nil {
		return nil, err
	}
	dl, err := fillInts(w.dilations, nd, 1, "dilations")
	if err != nil {
		return nil, err
	}
	op, err := fillInts(w.outputPadding, nd, 0, "output_padding")
	if err != nil {
		return nil, err
	}
	pads, err := fillInts(w.pads, 2*nd, 0, "pads")
	if err != nil {
		return nil, err
	}
	os := w.outputShape
	if len(os) == nd+2 {
		os = os[2:]
	}
	if os != nil && len(os) != nd {
		return nil, fmt.Errorf("output_shape %v does not have %d spatial dims", w.outputShape, nd)
	}
	pb, out := make([]int, nd), make([]int, nd)
	for d := 0; d < nd; d++ {
		ext := (kernel[d]-1)*dl[d] + 1
		full := s[d]*(in[d]-1) + op[d] + ext
		switch {
		case os != nil || w.autoPad == "SAME_UPPER" || w.autoPad == "SAME_LOWER":
			if os != nil {
				out[d] = os[d]
			} else {
				out[d] = in[d] * s[d]
			}
			total := full - out[d]
			half := total >> 1
			if w.autoPad == "SAME_UPPER" {
				pb[d] = half
			} else {
				pb[d] = total - half
			}
		case w.autoPad == "VALID":
			out[d] = full
		default:
			pb[d] = pads[d]
			out[d] = full - pads[d] - pads[nd+d]
		}
		if out[d] <= 0 {
			return nil, fmt.Errorf("output size %d on spatial dim %d", out[d], d)
		}
	}
	return &geom{in: pad3(in, 1), out: pad3(out, 1), k: pad3(kernel, 1), s: pad3(s, 1), d: pad3(dl, 1), pb: pad3(pb, 0)}, nil
}

// words appends the geometry as uniform words in the order of geomFields.
func (g *geom) words(u []uint32) []uint32 {
	for _, a := range [][maxSpatial]int{g.in, g.out, g.k, g.s, g.d, g.pb, g.pe} {
		for _, v := range a {
			u = append(u, uint32(int32(v)))
		}
	}
	return u
}

func prod(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}

// pointwise reports a 1×1 window with unit strides and no padding: the
// convolution is then a matrix product.
func (g *geom) pointwise() bool {
	for d := 0; d < maxSpatial; d++ {
		if g.k[d] != 1 || g.s[d] != 1 || g.pb[d] != 0 || g.pe[d] != 0 {
			return false
		}
	}
	return true
}
