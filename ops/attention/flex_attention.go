package attention

import (
	"math"
	"slices"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// ai.onnx.preview FlexAttention-1: scaled dot-product attention whose scores
// and probabilities pass through optional user subgraphs (score_mod,
// prob_mod). The scores are materialised as one (B, Hq, L, S) tensor because
// that is what the subgraphs take.
func init() { op.Default.Register("ai.onnx.preview", "FlexAttention", []int{1}, buildFlexAttention) }

func buildFlexAttention(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	scale := float64(a.Float("scale", 0))
	prec := tensor.DType(a.Int("softmax_precision", 0))
	if a.Err != nil {
		return nil, a.Err
	}
	hasScale := n.Has("scale")
	switch prec {
	case tensor.Undefined, tensor.Float, tensor.Float16, tensor.BFloat16, tensor.Double:
	default:
		return nil, n.Errorf("softmax_precision %d is not a float type", prec)
	}
	scoreMod, probMod := n.Graph("score_mod"), n.Graph("prob_mod")
	for name, g := range map[string]op.Subgraph{"score_mod": scoreMod, "prob_mod": probMod} {
		if g != nil && (len(g.InputNames()) != 1 || len(g.OutputNames()) != 1) {
			return nil, n.Errorf("%s must have one input and one output", name)
		}
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("FlexAttention needs Q, K and V")
		}
		q, k, v := in[0], in[1], in[2]
		if err := checkFloat("FlexAttention", q, k, v); err != nil {
			return nil, err
		}
		if q.Rank() != 4 || k.Rank() != 4 || v.Rank() != 4 {
			return nil, op.Errorf("FlexAttention needs 4-D Q, K and V, got %v, %v, %v", q.Shape(), k.Shape(), v.Shape())
		}
		qs, ks, vs := q.Shape(), k.Shape(), v.Shape()
		nb, hq, l, d := qs[0], qs[1], qs[2], qs[3]
		hkv, s, dv := ks[1], ks[2], vs[3]
		if ks[0] != nb || vs[0] != nb || ks[3] != d || vs[1] != hkv || vs[2] != s {
			return nil, op.Errorf("Q %v, K %v and V %v do not match", qs, ks, vs)
		}
		if hkv == 0 || hq%hkv != 0 {
			return nil, op.Errorf("Q heads %d are not a multiple of K/V heads %d", hq, hkv)
		}
		sdt := prec
		if sdt == tensor.Undefined {
			sdt = tensor.Float
			if q.DType() == tensor.Double {
				sdt = tensor.Double
			}
		}
		sc := scale
		if !hasScale {
			sc = 1 / math.Sqrt(float64(d))
		}
		group := hq / hkv
		qd, kd, vd := values[float64](q), values[float64](k), values[float64](v)
		scores := make([]float64, nb*hq*l*s)
		for b := 0; b < nb; b++ {
			for h := 0; h < hq; h++ {
				kb := (b*hkv + h/group) * s * d
				for i := 0; i < l; i++ {
					qr := qd[((b*hq+h)*l+i)*d : ((b*hq+h)*l+i+1)*d]
					row := scores[((b*hq+h)*l+i)*s : ((b*hq+h)*l+i+1)*s]
					for j := range row {
						kr := kd[kb+j*d : kb+(j+1)*d]
						var dot float64
						for x, qv := range qr {
							dot += qv * kr[x]
						}
						row[j] = dot * sc
					}
				}
			}
		}
		var err error
		if scoreMod != nil {
			if scores, err = applyMod(ctx, scoreMod, "score_mod", sdt, scores, nb, hq, l, s); err != nil {
				return nil, err
			}
		}
		for r := 0; r < nb*hq*l; r++ {
			softmaxRow(scores[r*s : (r+1)*s])
		}
		if probMod != nil {
			if scores, err = applyMod(ctx, probMod, "prob_mod", sdt, scores, nb, hq, l, s); err != nil {
				return nil, err
			}
		}
		out := ctx.New(q.DType(), nb, hq, l, dv)
		y := make([]float64, out.Len())
		for b := 0; b < nb; b++ {
			for h := 0; h < hq; h++ {
				vb := (b*hkv + h/group) * s * dv
				for i := 0; i < l; i++ {
					r := (b*hq+h)*l + i
					yr := y[r*dv : (r+1)*dv]
					for j, pj := range scores[r*s : (r+1)*s] {
						vr := vd[vb+j*dv : vb+(j+1)*dv]
						for x, vv := range vr {
							yr[x] += pj * vv
						}
					}
				}
			}
		}
		store(out, y)
		return ctx.One(out), nil
	}), nil
}

// softmaxRow is a plain softmax, as FlexAttention specifies Softmax itself;
// rows that a score_mod masks entirely therefore come out NaN, as they would
// from the ONNX Softmax operator.
func softmaxRow(row []float64) {
	m := math.Inf(-1)
	for _, x := range row {
		if x > m || math.IsNaN(x) {
			m = x
		}
	}
	var sum float64
	for j, x := range row {
		e := math.Exp(x - m)
		row[j] = e
		sum += e
	}
	for j := range row {
		row[j] /= sum
	}
}

// applyMod runs a score_mod/prob_mod subgraph on vals, handed over as a
// (B, Hq, L, S) tensor of the softmax precision dtype.
func applyMod(ctx *op.Context, g op.Subgraph, name string, dt tensor.DType, vals []float64, nb, hq, l, s int) ([]float64, error) {
	t := ctx.New(dt, nb, hq, l, s)
	store(t, vals)
	if dt.IsFloat() {
		tensor.RoundTo(dt, t.F32())
	}
	outs, err := ctx.RunSubgraph(g, []tensor.Value{t})
	if err != nil {
		return nil, err
	}
	if len(outs) != 1 {
		return nil, op.Errorf("%s returned %d values, want 1", name, len(outs))
	}
	r, ok := outs[0].(*tensor.Tensor)
	if !ok || !slices.Equal(r.Shape(), t.Shape()) || !isFloat(r.DType()) {
		return nil, op.Errorf("%s must return a float tensor of shape %v", name, t.Shape())
	}
	return r.Float64s()
}
