package webgpu

import (
	"fmt"

	"github.com/gort-dev/gort/ops/window"
)

// maxSpatial is the number of spatial dims the window kernels handle (1-D
// and 2-D inputs run as 3-D ones with leading unit dims).
const maxSpatial = 3

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

// toGeom places a window resolved by ops/window (the CPU kernels' own
// geometry) into the kernels' three spatial dims.
func toGeom(g *window.Geometry) (*geom, error) {
	if nd := len(g.In); nd < 1 || nd > maxSpatial {
		return nil, fmt.Errorf("%d spatial dims (the WebGPU kernels handle 1 to %d)", nd, maxSpatial)
	}
	return &geom{in: pad3(g.In, 1), out: pad3(g.Out, 1), k: pad3(g.Kernel, 1), s: pad3(g.Strides, 1), d: pad3(g.Dilations, 1),
		pb: pad3(g.PadsBegin, 0), pe: pad3(g.PadsEnd, 0)}, nil
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
