package attention

import (
	"math"
	"slices"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// LinearAttention-27 runs the recurrence token by token (the chunk_size
// attribute is a GPU tuning hint that the spec says does not change results).
// The state is kept in float64 whatever the activation dtype, as the spec
// recommends a wide state for long sequences.
func init() { op.Register("LinearAttention", []int{27}, buildLinearAttention) }

type linRule struct{ gated, delta bool }

func buildLinearAttention(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	qHeads := int(a.Int("q_num_heads", 0))
	kvHeads := int(a.Int("kv_num_heads", 0))
	scale := float64(a.Float("scale", 0))
	ruleName := a.String("update_rule", "gated_delta")
	a.Int("chunk_size", 64)
	if a.Err != nil {
		return nil, a.Err
	}
	if !n.Has("q_num_heads") || !n.Has("kv_num_heads") || qHeads <= 0 || kvHeads <= 0 || qHeads%kvHeads != 0 {
		return nil, n.Errorf("q_num_heads (%d) must be a positive multiple of kv_num_heads (%d); both are required", qHeads, kvHeads)
	}
	var rule linRule
	switch ruleName {
	case "linear":
	case "gated":
		rule.gated = true
	case "delta":
		rule.delta = true
	case "gated_delta":
		rule = linRule{true, true}
	default:
		return nil, n.Errorf("update_rule must be linear, gated, delta or gated_delta, got %q", ruleName)
	}
	if rule.gated != n.HasInput(4) {
		return nil, n.Errorf("update_rule %s %s the decay input", ruleName, map[bool]string{true: "requires", false: "forbids"}[rule.gated])
	}
	if rule.delta != n.HasInput(5) {
		return nil, n.Errorf("update_rule %s %s the beta input", ruleName, map[bool]string{true: "requires", false: "forbids"}[rule.delta])
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		get := func(i int) *tensor.Tensor {
			if i < len(in) {
				return in[i]
			}
			return nil
		}
		q, k, v, past, decay, beta := get(0), get(1), get(2), get(3), get(4), get(5)
		if q == nil || k == nil || v == nil {
			return nil, op.Errorf("LinearAttention needs query, key and value")
		}
		if err := checkFloat("LinearAttention", q, k, v, past, decay, beta); err != nil {
			return nil, err
		}
		qs, err := dims(q, "query", 3)
		if err != nil {
			return nil, err
		}
		ks, err := dims(k, "key", 3)
		if err != nil {
			return nil, err
		}
		vs, err := dims(v, "value", 3)
		if err != nil {
			return nil, err
		}
		nb, nt := qs[0], qs[1]
		if qs[2]%qHeads != 0 || vs[2]%kvHeads != 0 {
			return nil, op.Errorf("query %v / value %v last dims are not multiples of the head counts %d / %d", qs, vs, qHeads, kvHeads)
		}
		dk, dv := qs[2]/qHeads, vs[2]/kvHeads
		if ks[0] != nb || ks[1] != nt || ks[2] != kvHeads*dk || vs[0] != nb || vs[1] != nt {
			return nil, op.Errorf("key %v and value %v do not match query %v with %d kv heads", ks, vs, qs, kvHeads)
		}
		if past != nil && !slices.Equal(past.Shape(), []int{nb, kvHeads, dk, dv}) {
			return nil, op.Errorf("past_state must have shape [%d %d %d %d], got %v", nb, kvHeads, dk, dv, past.Shape())
		}
		decayPerKey := false
		if decay != nil {
			ds := decay.Shape()
			if decay.Rank() != 3 || ds[0] != nb || ds[1] != nt || (ds[2] != kvHeads && ds[2] != kvHeads*dk) {
				return nil, op.Errorf("decay must have shape [%d %d %d] or [%d %d %d], got %v", nb, nt, kvHeads, nb, nt, kvHeads*dk, ds)
			}
			decayPerKey = ds[2] == kvHeads*dk && dk != 1
		}
		betaHeads := 0
		if beta != nil {
			bs := beta.Shape()
			if beta.Rank() != 3 || bs[0] != nb || bs[1] != nt || (bs[2] != kvHeads && bs[2] != 1) {
				return nil, op.Errorf("beta must have shape [%d %d %d] or [%d %d 1], got %v", nb, nt, kvHeads, nb, nt, bs)
			}
			betaHeads = bs[2]
		}
		sc := scale
		if sc == 0 {
			sc = 1 / math.Sqrt(float64(dk))
		}
		stDT := q.DType()
		if past != nil {
			stDT = past.DType()
		}
		out := ctx.New(q.DType(), nb, nt, qHeads*dv)
		present := ctx.New(stDT, nb, kvHeads, dk, dv)
		state := make([]float64, present.Len())
		if past != nil {
			pv, _ := past.Float64s()
			copy(state, pv)
		}
		la := linAttn{rule: rule, nb: nb, nt: nt, hq: qHeads, hkv: kvHeads, dk: dk, dv: dv,
			scale: sc, decayPerKey: decayPerKey, betaHeads: betaHeads}
		y := make([]float64, out.Len())
		f := func(t *tensor.Tensor) []float64 {
			if t == nil {
				return nil
			}
			d, _ := t.Float64s()
			return d
		}
		la.run(y, state, f(q), f(k), f(v), f(decay), f(beta))
		store(out, y)
		store(present, state)
		return []*tensor.Tensor{out, present}, nil
	}), nil
}

type linAttn struct {
	rule                    linRule
	nb, nt, hq, hkv, dk, dv int
	scale                   float64
	decayPerKey             bool
	betaHeads               int
}

// run advances state (B, Hkv, dk, dv) over the nt tokens, writing the
// output (B, T, Hq*dv). All slices are the packed 3-D inputs.
func (la *linAttn) run(y, state, q, k, v, decay, beta []float64) {
	dk, dv, hkv, hq, nt := la.dk, la.dv, la.hkv, la.hq, la.nt
	group := hq / hkv
	vt := make([]float64, dv)
	g := make([]float64, dk)
	for b := 0; b < la.nb; b++ {
		for t := 0; t < nt; t++ {
			bt := b*nt + t
			for h := 0; h < hkv; h++ {
				s := state[(b*hkv+h)*dk*dv : (b*hkv+h+1)*dk*dv]
				kr := k[(bt*hkv+h)*dk : (bt*hkv+h+1)*dk]
				copy(vt, v[(bt*hkv+h)*dv:(bt*hkv+h+1)*dv])
				if la.rule.gated {
					for i := range g {
						if la.decayPerKey {
							g[i] = math.Exp(decay[(bt*hkv+h)*dk+i])
						} else {
							g[i] = math.Exp(decay[bt*hkv+h])
						}
					}
					for i := 0; i < dk; i++ {
						for j := 0; j < dv; j++ {
							s[i*dv+j] *= g[i]
						}
					}
				}
				if la.rule.delta {
					bv := beta[bt*la.betaHeads+h%la.betaHeads]
					for j := 0; j < dv; j++ {
						var r float64 // (S^T k)_j with the decayed state
						for i := 0; i < dk; i++ {
							r += s[i*dv+j] * kr[i]
						}
						vt[j] = bv * (vt[j] - r)
					}
				}
				for i := 0; i < dk; i++ {
					for j := 0; j < dv; j++ {
						s[i*dv+j] += kr[i] * vt[j]
					}
				}
				for qh := h * group; qh < (h+1)*group; qh++ {
					qr := q[(bt*hq+qh)*dk : (bt*hq+qh+1)*dk]
					yo := (bt*hq + qh) * dv
					for j := 0; j < dv; j++ {
						var o float64
						for i := 0; i < dk; i++ {
							o += qr[i] * s[i*dv+j]
						}
						y[yo+j] = la.scale * o
					}
				}
			}
		}
	}
}
