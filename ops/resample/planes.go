package resample

import "github.com/gort-dev/gort/runtime/tensor"

// planesFast reports whether Apply may take resizePlanes32: float32 data
// resampled (linear or cubic, no tf_crop_and_resize extrapolation) only
// along its last two axes, the image case (U²-Net, FPN decoders).
func planesFast(x *tensor.Tensor, plans []*AxisPlan, mode Mode) bool {
	r := len(plans)
	if x.DType() != tensor.Float || mode == Nearest || r < 2 {
		return false
	}
	for d, p := range plans {
		if p == nil {
			continue
		}
		if d < r-2 || p.Outside != nil {
			return false
		}
	}
	return plans[r-2] != nil || plans[r-1] != nil
}

// resizePlanes32 is Apply's separable float64 computation done one H×W
// plane at a time: the generic path converts the whole tensor to float64
// and walks the innermost axis one element per tap, with a full-size
// intermediate per axis; here a plane's width pass lands in one H×OW
// float64 buffer and the height pass rounds straight into the output.
// The arithmetic is the generic path's, term for term and in the same
// order (each sum starts at +0 and adds the non-zero taps in plan order),
// so the results are bit-identical (TestPlanesMatchGeneric).
func resizePlanes32(out, x *tensor.Tensor, ph, pw *AxisPlan) {
	shape := x.Shape()
	H, W := shape[len(shape)-2], shape[len(shape)-1]
	OH, OW := H, W
	if ph != nil {
		OH = ph.Out
	}
	if pw != nil {
		OW = pw.Out
	}
	xd, yd := x.F32(), out.F32()
	tmp := make([]float64, H*OW)
	acc := make([]float64, OW)
	var pairs []tapPair
	if pw != nil {
		pairs = tapPairs(pw)
	}
	for p := 0; p < len(xd)/(H*W); p++ {
		src := xd[p*H*W : (p+1)*H*W]
		for h := 0; h < H; h++ {
			row, t := src[h*W:(h+1)*W], tmp[h*OW:(h+1)*OW]
			if pw == nil {
				for i, v := range row {
					t[i] = float64(v)
				}
				continue
			}
			if pairs != nil {
				widthRow2(t, row, pairs)
				continue
			}
			for o := range t {
				s := 0.0
				for k := o * pw.Taps; k < (o+1)*pw.Taps; k++ {
					if w := pw.Weight[k]; w != 0 {
						s += w * float64(row[pw.Index[k]])
					}
				}
				t[o] = s
			}
		}
		dst := yd[p*OH*OW : (p+1)*OH*OW]
		for o := 0; o < OH; o++ {
			drow := dst[o*OW : (o+1)*OW]
			if ph == nil {
				for i, v := range tmp[o*OW : (o+1)*OW] {
					drow[i] = float32(v)
				}
				continue
			}
			heightRow(drow, tmp, acc, ph, o)
		}
	}
}

// tapPair is an output index's non-zero taps when it has at most two: the
// second has weight 0 when there is only one (and is then skipped).
type tapPair struct {
	i0, i1 int32
	w0, w1 float64
}

// tapPairs returns p's outputs as tap pairs, or nil when an output has
// more than two non-zero taps (cubic, antialiased downsampling).
func tapPairs(p *AxisPlan) []tapPair {
	pairs := make([]tapPair, p.Out)
	for o := range pairs {
		n := 0
		for k := o * p.Taps; k < (o+1)*p.Taps; k++ {
			w := p.Weight[k]
			switch {
			case w == 0:
				continue
			case n == 0:
				pairs[o].i0, pairs[o].w0 = p.Index[k], w
			case n == 1:
				pairs[o].i1, pairs[o].w1 = p.Index[k], w
			default:
				return nil
			}
			n++
		}
	}
	return pairs
}

// widthRow2 is the width pass of one row by tap pairs: the sums of the
// general loop (+0, then each non-zero tap in order) without its
// per-tap weight tests.
func widthRow2(t []float64, row []float32, pairs []tapPair) {
	for o, p := range pairs[:len(t)] {
		s := 0.0
		if p.w0 != 0 {
			s += p.w0 * float64(row[p.i0])
		}
		if p.w1 != 0 {
			s += p.w1 * float64(row[p.i1])
		}
		t[o] = s
	}
}

// heightRow computes output row o of the height pass from the width-pass
// rows in tmp (each len(drow) long). Rows with one or two non-zero taps
// (every linear row) take a single pass with the same sums as the
// general accumulation into acc: +0, then each tap's product in order.
func heightRow(drow []float32, tmp, acc []float64, ph *AxisPlan, o int) {
	OW := len(drow)
	var w [2]float64
	var rows [2][]float64
	n := 0
	for k := o * ph.Taps; k < (o+1)*ph.Taps; k++ {
		if ph.Weight[k] == 0 {
			continue
		}
		if n < 2 {
			w[n], rows[n] = ph.Weight[k], tmp[int(ph.Index[k])*OW:][:OW]
		}
		n++
	}
	switch n {
	case 1:
		a := rows[0]
		for i := range drow {
			v := 0.0
			v += w[0] * a[i]
			drow[i] = float32(v)
		}
		return
	case 2:
		a, b := rows[0], rows[1]
		for i := range drow {
			v := 0.0
			v += w[0] * a[i]
			v += w[1] * b[i]
			drow[i] = float32(v)
		}
		return
	}
	clear(acc)
	for k := o * ph.Taps; k < (o+1)*ph.Taps; k++ {
		wk := ph.Weight[k]
		if wk == 0 {
			continue
		}
		s := tmp[int(ph.Index[k])*OW:][:OW]
		for i := range acc {
			acc[i] += wk * s[i]
		}
	}
	for i, v := range acc {
		drow[i] = float32(v)
	}
}

// forceGeneric makes Apply skip resizePlanes32, so tests can compare it
// with the generic path.
var forceGeneric bool
