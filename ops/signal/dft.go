package signal

import (
	"math"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("DFT", []int{17, 20}, buildDFT)
}

// buildDFT: version 17 takes the axis as an attribute (default 1); version
// 20 moved it to an optional third input (default -2) so it can be computed.
// The last dim holds 1 (real) or 2 (real, imaginary) components.
func buildDFT(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	inverse := a.Int("inverse", 0) != 0
	onesided := a.Int("onesided", 0) != 0
	axisAttr := a.Int("axis", 1)
	if a.Err != nil {
		return nil, a.Err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("DFT needs an input")
		}
		x := in[0]
		axis := axisAttr
		if n.Version >= 20 {
			axis = -2
			if len(in) > 2 && in[2] != nil {
				v, err := opsutil.ScalarInt(in[2], "axis")
				if err != nil {
					return nil, err
				}
				axis = v
			}
		}
		r := x.Rank()
		if r < 2 {
			return nil, op.Errorf("DFT input must have rank >= 2, got %v", x.Shape())
		}
		ax, err := opsutil.NormAxis(axis, r)
		if err != nil || ax == r-1 {
			return nil, op.Errorf("DFT axis %d is invalid for rank %d (the last dim holds complex components)", axis, r)
		}
		sh := x.Shape()
		comps := sh[r-1]
		if comps != 1 && comps != 2 {
			return nil, op.Errorf("DFT input's last dim must be 1 (real) or 2 (complex), got %d", comps)
		}
		dim := sh[ax]
		length := dim
		irfft := inverse && onesided
		if irfft {
			length = 2 * (dim - 1)
		}
		if len(in) > 1 && in[1] != nil {
			v, err := opsutil.ScalarInt(in[1], "dft_length")
			if err != nil {
				return nil, err
			}
			length = int(v)
		}
		if length < 1 {
			return nil, op.Errorf("DFT length must be positive, got %d", length)
		}
		outLen, outComps := length, 2
		switch {
		case irfft:
			outComps = 1
		case onesided:
			outLen = length/2 + 1
		}
		osh := append([]int(nil), sh...)
		osh[ax] = outLen
		osh[r-1] = outComps
		out := ctx.New(x.DType(), osh...)
		xs, err := floats(x, "DFT input")
		if err != nil {
			return nil, err
		}
		outer := opsutil.Product(sh[:ax])
		inner := opsutil.Product(sh[ax+1 : r-1])
		res := make([]float64, out.Len())
		// The work buffers hold length complex128 values each: a huge
		// dft_length must be refused like a huge output.
		if _, err := ctx.CheckShape(tensor.Complex128, []int{3, length}); err != nil {
			return nil, err
		}
		tw := twiddles(length)
		sig := make([]complex128, length)
		spec := make([]complex128, length)
		for o := 0; o < outer; o++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for i := 0; i < inner; i++ {
				// Gather the signal along the axis, truncated or zero-padded to length.
				for k := range sig {
					sig[k] = 0
				}
				avail := min(dim, length)
				if irfft {
					avail = min(dim, length/2+1)
				}
				for k := 0; k < avail; k++ {
					p := ((o*dim+k)*inner + i) * comps
					if comps == 2 {
						sig[k] = complex(xs[p], xs[p+1])
					} else {
						sig[k] = complex(xs[p], 0)
					}
				}
				if irfft {
					// Rebuild the full spectrum from its conjugate-symmetric half.
					for k := avail; k < length; k++ {
						if length-k < avail {
							c := sig[length-k]
							sig[k] = complex(real(c), -imag(c))
						}
					}
				}
				dft(spec, sig, tw, inverse)
				for k := 0; k < outLen; k++ {
					p := ((o*outLen+k)*inner + i) * outComps
					res[p] = real(spec[k])
					if outComps == 2 {
						res[p+1] = imag(spec[k])
					}
				}
			}
		}
		if err := fill(out, res); err != nil {
			return nil, err
		}
		return ctx.One(out), nil
	}), nil
}

// twiddles returns e^{-2πik/n} for k in [0,n); indexing it with (j*k) mod n
// keeps every angle exact to the table's precision instead of accumulating
// rounding over large products.
func twiddles(n int) []complex128 {
	tw := make([]complex128, n)
	for k := range tw {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		tw[k] = complex(c, s)
	}
	return tw
}

// dft computes the forward (or, scaled by 1/n, the inverse) transform of x
// into y. Signals in the conformance suite and in audio front ends are short
// (frames of a few hundred samples), so the direct O(n²) sum is adequate.
// Zero samples are skipped: a short signal zero-padded to a long dft_length
// then costs n·(its length), not n².
func dft(y, x, tw []complex128, inverse bool) {
	n := len(x)
	var nz []int
	for j, v := range x {
		if v != 0 {
			nz = append(nz, j)
		}
	}
	for k := 0; k < n; k++ {
		var acc complex128
		for _, j := range nz {
			w := tw[j*k%n]
			if inverse {
				w = complex(real(w), -imag(w))
			}
			acc += x[j] * w
		}
		if inverse {
			acc /= complex(float64(n), 0)
		}
		y[k] = acc
	}
}
