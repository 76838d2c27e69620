package attention

import (
	"math"

	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Attention-23 is the base operator; 24 adds the nonpad_kv_seqlen input (and
// masks whose last dim is shorter than the key length, padded as disallowed);
// 25 adds left_window_size/right_window_size. The errata of all three
// (bottom-right causal alignment, zero rows for fully masked queries, mode-3
// qk output at T1 precision) are implemented for every version.
func init() {
	op.Register("Attention", []int{23, 24, 25}, buildAttention)
	shapes.Register("", "Attention", inferAttention)
}

type attnParams struct {
	version         int
	causal          bool
	qHeads, kvHeads int // attributes; needed only for 3-D inputs
	scale           float64
	hasScale        bool
	softcap         float64
	mode            int          // qk_matmul_output_mode
	softmaxPrec     tensor.DType // Undefined: the precision of Q
	left, right     int          // window bounds; -1 is unbounded
	wantPK, wantPV  bool         // present_key / present_value requested
	wantQK          bool
	nOut            int
}

func buildAttention(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	p := &attnParams{
		version: n.Version,
		causal:  a.Int("is_causal", 0) != 0,
		qHeads:  int(a.Int("q_num_heads", 0)),
		kvHeads: int(a.Int("kv_num_heads", 0)),
		softcap: float64(a.Float("softcap", 0)),
		mode:    int(a.Int("qk_matmul_output_mode", 0)),
		left:    -1,
		right:   -1,
	}
	p.hasScale = n.Has("scale")
	p.scale = float64(a.Float("scale", 0))
	if n.Has("softmax_precision") {
		p.softmaxPrec = tensor.DType(a.Int("softmax_precision", 0))
	}
	if n.Version >= 25 {
		p.left = int(a.Int("left_window_size", -1))
		p.right = int(a.Int("right_window_size", -1))
	}
	if a.Err != nil {
		return nil, a.Err
	}
	switch p.softmaxPrec {
	case tensor.Undefined, tensor.Float, tensor.Float16, tensor.Double, tensor.BFloat16:
	default:
		return nil, n.Errorf("softmax_precision %d is not a float type", p.softmaxPrec)
	}
	if p.mode < 0 || p.mode > 3 {
		return nil, n.Errorf("qk_matmul_output_mode must be 0..3, got %d", p.mode)
	}
	if p.qHeads < 0 || p.kvHeads < 0 {
		return nil, n.Errorf("q_num_heads and kv_num_heads must be positive")
	}
	if p.left < -1 || p.right < -1 {
		return nil, n.Errorf("window sizes must be >= -1")
	}
	if n.HasInput(4) != n.HasInput(5) {
		return nil, n.Errorf("past_key and past_value must be given together")
	}
	p.wantPK, p.wantPV, p.wantQK = n.HasOutput(1), n.HasOutput(2), n.HasOutput(3)
	p.nOut = len(n.Outputs)
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("Attention needs Q, K and V")
		}
		if in[0].DType() == tensor.Double {
			return runAttention[float64](ctx, p, in)
		}
		return runAttention[float32](ctx, p, in)
	}), nil
}

// layout locates head h, position s of a 3-D (B, S, H*D) or 4-D (B, H, S, D)
// tensor without transposing it: offset = b*sb + h*sh + s*ss, the D values
// being contiguous in both layouts.
type layout struct {
	heads, seq, dim int
	sb, sh, ss      int
}

func (l layout) at(b, h, s int) int { return b*l.sb + h*l.sh + s*l.ss }

func makeLayout(shape []int, heads int, name string) (layout, error) {
	if len(shape) == 4 {
		h, s, d := shape[1], shape[2], shape[3]
		return layout{heads: h, seq: s, dim: d, sb: h * s * d, sh: s * d, ss: d}, nil
	}
	if heads <= 0 {
		return layout{}, op.Errorf("3-D %s needs the q_num_heads and kv_num_heads attributes", name)
	}
	if shape[2]%heads != 0 {
		return layout{}, op.Errorf("%s hidden size %d is not a multiple of %d heads", name, shape[2], heads)
	}
	s, d := shape[1], shape[2]/heads
	return layout{heads: heads, seq: s, dim: d, sb: s * heads * d, sh: d, ss: heads * d}, nil
}

// attnMask is the attn_mask input broadcast to (B, Hq, Lq, T): element
// (b, h, i, j) is at b*sb + h*sh + i*si + j*sj for j < cols; keys at or past
// cols are disallowed (a mask shorter than the key length is padded so).
type attnMask struct {
	bools          []bool
	adds           []float64
	sb, sh, si, sj int
	cols           int
}

func makeMask(m *tensor.Tensor, version, batch, heads, lq, total int) (*attnMask, error) {
	if m.Rank() > 4 {
		return nil, op.Errorf("attn_mask has rank %d, more than 4", m.Rank())
	}
	shape := make([]int, 4)
	for i := range shape {
		shape[i] = 1
	}
	copy(shape[4-m.Rank():], m.Shape())
	target := []int{batch, heads, lq, total}
	for i := 0; i < 3; i++ {
		if shape[i] != 1 && shape[i] != target[i] {
			return nil, op.Errorf("attn_mask shape %v does not broadcast to %v", m.Shape(), target)
		}
	}
	mk := &attnMask{cols: shape[3], sj: 1}
	switch {
	case shape[3] == total:
	case shape[3] == 1 && version == 23:
		// Attention-23 only broadcasts; later versions pad short masks.
		mk.cols, mk.sj = total, 0
	case shape[3] > total:
		return nil, op.Errorf("attn_mask shape %v is longer than the %d keys", m.Shape(), total)
	case version == 23:
		return nil, op.Errorf("attn_mask shape %v does not broadcast to %v", m.Shape(), target)
	}
	stride := shape[3]
	st := make([]int, 3)
	for i := 2; i >= 0; i-- {
		if shape[i] != 1 {
			st[i] = stride
		}
		stride *= shape[i]
	}
	mk.sb, mk.sh, mk.si = st[0], st[1], st[2]
	if m.DType() == tensor.Bool {
		mk.bools = m.Bools()
		return mk, nil
	}
	v, err := m.Float64s()
	if err != nil {
		return nil, op.Errorf("attn_mask: %v", err)
	}
	mk.adds = v
	return mk, nil
}

func runAttention[E real](ctx *op.Context, p *attnParams, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
	get := func(i int) *tensor.Tensor {
		if i < len(in) {
			return in[i]
		}
		return nil
	}
	q, k, v := in[0], in[1], in[2]
	mask, pastK, pastV, nonpad := get(3), get(4), get(5), get(6)
	if p.version < 24 {
		nonpad = nil
	}
	if err := checkFloat("Attention", q, k, v, pastK, pastV); err != nil {
		return nil, err
	}
	rank := q.Rank()
	if (rank != 3 && rank != 4) || k.Rank() != rank || v.Rank() != rank {
		return nil, op.Errorf("Q, K and V must all be 3-D or all 4-D, got %v, %v, %v", q.Shape(), k.Shape(), v.Shape())
	}
	batch := q.Shape()[0]
	if k.Shape()[0] != batch || v.Shape()[0] != batch {
		return nil, op.Errorf("Q, K and V batch sizes differ: %v, %v, %v", q.Shape(), k.Shape(), v.Shape())
	}
	ql, err := makeLayout(q.Shape(), p.qHeads, "Q")
	if err != nil {
		return nil, err
	}
	kl, err := makeLayout(k.Shape(), p.kvHeads, "K")
	if err != nil {
		return nil, err
	}
	vl, err := makeLayout(v.Shape(), p.kvHeads, "V")
	if err != nil {
		return nil, err
	}
	hq, hkv, d, dv, lq, lkv := ql.heads, kl.heads, ql.dim, vl.dim, ql.seq, kl.seq
	if kl.dim != d {
		return nil, op.Errorf("Q head size %d differs from K head size %d", d, kl.dim)
	}
	if vl.heads != hkv || vl.seq != lkv {
		return nil, op.Errorf("K %v and V %v disagree on heads or sequence length", k.Shape(), v.Shape())
	}
	if hkv == 0 || hq%hkv != 0 {
		return nil, op.Errorf("q_num_heads %d is not a multiple of kv_num_heads %d", hq, hkv)
	}
	if (pastK == nil) != (pastV == nil) {
		return nil, op.Errorf("past_key and past_value must be given together")
	}
	past := 0
	if pastK != nil {
		ps, pv := pastK.Shape(), pastV.Shape()
		if len(ps) != 4 || len(pv) != 4 || ps[0] != batch || ps[1] != hkv || ps[3] != d ||
			pv[0] != batch || pv[1] != hkv || pv[3] != dv || pv[2] != ps[2] {
			return nil, op.Errorf("past_key %v / past_value %v do not match (batch %d, %d kv heads, head sizes %d, %d)", ps, pv, batch, hkv, d, dv)
		}
		past = ps[2]
	}
	total := past + lkv

	var seqlen []int64
	if nonpad != nil {
		if nonpad.Rank() != 1 || nonpad.Shape()[0] != batch {
			return nil, op.Errorf("nonpad_kv_seqlen must have shape [%d], got %v", batch, nonpad.Shape())
		}
		if seqlen, err = nonpad.Int64s(); err != nil {
			return nil, op.Errorf("nonpad_kv_seqlen: %v", err)
		}
	}
	var mk *attnMask
	if mask != nil {
		if mk, err = makeMask(mask, p.version, batch, hq, lq, total); err != nil {
			return nil, err
		}
	}

	// The whole key/value sequence, past then new, as (B, Hkv, T, D): it is
	// present_key/present_value, so it is built in their storage when asked for.
	presK, kall := newLike[E](ctx, k.DType(), batch, hkv, total, d)
	presV, vall := newLike[E](ctx, v.DType(), batch, hkv, total, dv)
	concatKV(kall, pastK, k, kl, batch, hkv, past, d)
	concatKV(vall, pastV, v, vl, batch, hkv, past, dv)

	qd := values[E](q)
	yShape := []int{batch, hq, lq, dv}
	if rank == 3 {
		yShape = []int{batch, lq, hq * dv}
	}
	yt, y := newLike[E](ctx, q.DType(), yShape...)
	var qkt *tensor.Tensor
	var qk []E
	if p.wantQK {
		qkt, qk = newLike[E](ctx, q.DType(), batch, hq, lq, total)
	}

	scale := 1 / math.Sqrt(float64(d))
	if p.hasScale {
		scale = p.scale
	}
	prec := p.softmaxPrec
	if prec == tensor.Undefined {
		prec = q.DType()
	}
	group := hq / hkv
	negInf := math.Inf(-1)
	scores := make([]float64, total)
	acc := make([]float64, dv)
	for b := 0; b < batch; b++ {
		offset := 0
		switch {
		case pastK != nil:
			offset = past
		case seqlen != nil:
			offset = int(seqlen[b]) - lq
		}
		for h := 0; h < hq; h++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			kvh := h / group
			kBase := (b*hkv + kvh) * total * d
			vBase := (b*hkv + kvh) * total * dv
			for i := 0; i < lq; i++ {
				qrow := qd[ql.at(b, h, i) : ql.at(b, h, i)+d]
				var qkRow []E
				if qk != nil {
					o := ((b*hq+h)*lq + i) * total
					qkRow = qk[o : o+total]
				}
				maxS := negInf
				for j := 0; j < total; j++ {
					krow := kall[kBase+j*d : kBase+j*d+d]
					var dot float64
					for x, qv := range qrow {
						dot += float64(qv) * float64(krow[x])
					}
					s := dot * scale
					if qkRow != nil && p.mode == 0 {
						qkRow[j] = E(s)
					}
					if p.softcap > 0 {
						s = p.softcap * math.Tanh(s/p.softcap)
					}
					if qkRow != nil && p.mode == 1 {
						qkRow[j] = E(s)
					}
					s += p.bias(mk, seqlen, b, h, i, j, offset)
					if qkRow != nil && p.mode == 2 {
						qkRow[j] = E(s)
					}
					s = roundPrec(prec, s)
					scores[j] = s
					if s > maxS || math.IsNaN(s) {
						maxS = s
					}
				}
				for x := range acc {
					acc[x] = 0
				}
				if maxS == negInf {
					// Every key is disallowed: the spec makes the row zero
					// rather than the NaN a plain softmax would give.
					for j := range scores {
						scores[j] = 0
					}
				} else {
					var sum float64
					for j, s := range scores {
						e := roundPrec(prec, math.Exp(s-maxS))
						scores[j] = e
						sum += e
					}
					sum = roundPrec(prec, sum)
					for j, e := range scores {
						pj := roundPrec(prec, e/sum)
						scores[j] = pj
						if pj == 0 {
							continue
						}
						vrow := vall[vBase+j*dv : vBase+j*dv+dv]
						for x, vv := range vrow {
							acc[x] += pj * float64(vv)
						}
					}
				}
				if qkRow != nil && p.mode == 3 {
					for j, pj := range scores {
						qkRow[j] = E(pj)
					}
				}
				var yo int
				if rank == 4 {
					yo = ((b*hq+h)*lq + i) * dv
				} else {
					yo = (b*lq+i)*hq*dv + h*dv
				}
				for x, a := range acc {
					y[yo+x] = E(a)
				}
			}
		}
	}

	out := make([]*tensor.Tensor, p.nOut)
	out[0] = finish(yt, y)
	if p.nOut > 1 && p.wantPK {
		out[1] = finish(presK, kall)
	}
	if p.nOut > 2 && p.wantPV {
		out[2] = finish(presV, vall)
	}
	if p.nOut > 3 && p.wantQK {
		out[3] = finish(qkt, qk)
	}
	return out, nil
}

// bias is the additive bias of key j for query i of batch b, head h: the
// mask value (or -inf where a boolean mask disallows the key), plus -inf
// where the causal frontier, the padding length or the window excludes it.
func (p *attnParams) bias(mk *attnMask, seqlen []int64, b, h, i, j, offset int) float64 {
	negInf := math.Inf(-1)
	pos := offset + i // absolute position of query i
	if p.causal && j > pos {
		return negInf
	}
	if seqlen != nil && int64(j) >= seqlen[b] {
		return negInf
	}
	if p.left >= 0 && j < pos-p.left {
		return negInf
	}
	if p.right >= 0 && j > pos+p.right {
		return negInf
	}
	if mk == nil {
		return 0
	}
	if j >= mk.cols {
		return negInf
	}
	o := b*mk.sb + h*mk.sh + i*mk.si + j*mk.sj
	if mk.bools != nil {
		if !mk.bools[o] {
			return negInf
		}
		return 0
	}
	return mk.adds[o]
}

// concatKV writes past (B, H, P, D) followed by cur (3-D or 4-D, see layout)
// into dst as (B, H, P+L, D).
func concatKV[E real](dst []E, past, cur *tensor.Tensor, cl layout, batch, heads, plen, d int) {
	total := plen + cl.seq
	var pd []E
	if past != nil {
		pd = values[E](past)
	}
	cd := values[E](cur)
	for b := 0; b < batch; b++ {
		for h := 0; h < heads; h++ {
			base := (b*heads + h) * total * d
			if plen > 0 {
				src := (b*heads + h) * plen * d
				copy(dst[base:base+plen*d], pd[src:src+plen*d])
			}
			for s := 0; s < cl.seq; s++ {
				o := cl.at(b, h, s)
				copy(dst[base+(plen+s)*d:base+(plen+s+1)*d], cd[o:o+d])
			}
		}
	}
}

// attentionRule (opset 23+): Y follows Q with V's head size; 3-D inputs
// pack heads into the hidden size.
func inferAttention(c *shapes.Ctx) {
	q, k, v := c.Shape(0), c.Shape(1), c.Shape(2)
	if q == nil || v == nil {
		for i := range c.NumOut() {
			c.Set(i, nil, "")
		}
		return
	}
	switch {
	case len(q) == 4 && len(v) == 4:
		c.Set(0, []graph.Dim{q[0], q[1], q[2], v[3]}, "")
	case len(q) == 3 && len(v) == 3:
		qh, kvh := c.AttrInt("q_num_heads", 0), c.AttrInt("kv_num_heads", 0)
		if qh > 0 && kvh > 0 {
			c.Set(0, []graph.Dim{q[0], q[1], shapes.DimMul(shapes.DimDiv(v[2], shapes.Known(kvh)), shapes.Known(qh))}, "")
		} else {
			c.Set(0, []graph.Dim{q[0], q[1], shapes.Unknown()}, "")
		}
	default:
		c.Set(0, nil, "")
	}
	// present_key / present_value: past length + current length, when both are 4-D.
	if c.NumOut() > 2 && k != nil && len(k) == 4 && len(v) == 4 {
		pk, pv := c.Shape(4), c.Shape(5)
		if pk != nil && pv != nil && len(pk) == 4 && len(pv) == 4 {
			c.Set(1, []graph.Dim{k[0], k[1], shapes.DimAdd(pk[2], k[2]), k[3]}, "")
			c.Set(2, []graph.Dim{v[0], v[1], shapes.DimAdd(pv[2], v[2]), v[3]}, "")
		} else if !c.Has(4) {
			c.Set(1, k, "")
			c.Set(2, v, "")
		}
	}
	for i := 3; i < c.NumOut(); i++ {
		c.Set(i, nil, "the attention-score output is not inferred")
	}
}
