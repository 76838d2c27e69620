package attention

import (
	"strings"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// CausalConvWithState-27: depthwise causal 1-D convolution over
// concat(past_state or zeros, input) along the length axis, returning the
// last k-1 columns of that concatenation as the carry for the next step.
func init() { op.Register("CausalConvWithState", []int{27}, buildCausalConv) }

func buildCausalConv(n *op.Node) (any, error) {
	act, err := n.String("activation", "none")
	if err != nil {
		return nil, err
	}
	silu := false
	switch strings.ToLower(act) {
	case "none", "":
	case "silu", "swish":
		silu = true
	default:
		return nil, n.Errorf("activation must be silu, swish or none, got %q", act)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("CausalConvWithState needs input and weight")
		}
		x, w := in[0], in[1]
		var bias, past *tensor.Tensor
		if len(in) > 2 {
			bias = in[2]
		}
		if len(in) > 3 {
			past = in[3]
		}
		if err := checkFloat("CausalConvWithState", x, w, bias, past); err != nil {
			return nil, err
		}
		xs, err := dims(x, "input", 3)
		if err != nil {
			return nil, err
		}
		nb, c, l := xs[0], xs[1], xs[2]
		ws, err := dims(w, "weight", 3)
		if err != nil {
			return nil, err
		}
		if ws[0] != c || ws[1] != 1 || ws[2] < 1 {
			return nil, op.Errorf("weight must have shape [%d, 1, k] with k >= 1, got %v", c, ws)
		}
		k := ws[2]
		if bias != nil && (bias.Rank() != 1 || bias.Shape()[0] != c) {
			return nil, op.Errorf("bias must have shape [%d], got %v", c, bias.Shape())
		}
		if past != nil {
			ps := past.Shape()
			if len(ps) != 3 || ps[0] != nb || ps[1] != c || ps[2] != k-1 {
				return nil, op.Errorf("past_state must have shape [%d, %d, %d], got %v", nb, c, k-1, ps)
			}
		}
		y := ctx.New(x.DType(), nb, c, l)
		st := ctx.New(x.DType(), nb, c, k-1)
		if x.DType() == tensor.Double {
			causalConv(y.F64(), st.F64(), x, w, bias, past, nb, c, l, k, silu)
		} else {
			causalConv(y.F32(), st.F32(), x, w, bias, past, nb, c, l, k, silu)
		}
		return []*tensor.Tensor{y, st}, nil
	}), nil
}

func causalConv[E real](y, state []E, xt, wt, bt, pt *tensor.Tensor, nb, c, l, k int, silu bool) {
	x, w := values[E](xt), values[E](wt)
	var bias, past []E
	if bt != nil {
		bias = values[E](bt)
	}
	if pt != nil {
		past = values[E](pt)
	}
	pad := make([]float64, k-1+l) // one channel's padded sequence
	for b := 0; b < nb; b++ {
		for ch := 0; ch < c; ch++ {
			for i := 0; i < k-1; i++ {
				pad[i] = 0
				if past != nil {
					pad[i] = float64(past[(b*c+ch)*(k-1)+i])
				}
			}
			xo := (b*c + ch) * l
			for t := 0; t < l; t++ {
				pad[k-1+t] = float64(x[xo+t])
			}
			wr := w[ch*k : ch*k+k]
			for t := 0; t < l; t++ {
				var s float64
				for i, wv := range wr {
					s += float64(wv) * pad[t+i]
				}
				if bias != nil {
					s += float64(bias[ch])
				}
				if silu {
					s *= sigmoid(s)
				}
				y[xo+t] = E(s)
			}
			so := (b*c + ch) * (k - 1)
			for i := 0; i < k-1; i++ {
				state[so+i] = E(pad[l+i])
			}
		}
	}
}
