package contrib

import (
	"math"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// What the attention ops (Attention, MultiHeadAttention, GroupQueryAttention)
// share: head views of their inputs, the gathering of heads into (B, N, S, H)
// buffers (which for keys and values are the present outputs), onnxruntime's
// masks, and the loop that runs kernels.Attend per (batch, head).

// headView locates head n, position s of batch b in a tensor that holds
// heads of h values contiguously: at off + b·sb + n·sn + s·ss. It reads
// (B, S, N·H), (B, N, S, H) and the packed (B, S, N, 3, H) layouts alike.
type headView struct {
	off, sb, sn, ss int
}

func (v headView) at(b, n, s int) int { return v.off + b*v.sb + n*v.sn + s*v.ss }

// bsnh is the view of a (B, S, N·H) tensor; bnsh of a (B, N, S, H) one.
func bsnh(s, n, h int) headView { return headView{sb: s * n * h, sn: h, ss: n * h} }
func bnsh(s, n, h int) headView { return headView{sb: n * s * h, sn: s * h, ss: h} }

// gather copies heads of h values from src (seen through v) into dst as
// (B, N, total, H) at positions from..from+s, adding bias[n·h + x] (bias
// may be nil).
func gather(dst, src []float32, v headView, batch, heads, s, h, total, from int, bias []float32) {
	for b := 0; b < batch; b++ {
		for n := 0; n < heads; n++ {
			for p := 0; p < s; p++ {
				o := v.at(b, n, p)
				d := dst[((b*heads+n)*total+from+p)*h:][:h]
				copy(d, src[o:o+h])
				if bias != nil {
					bb := bias[n*h : n*h+h]
					for x := range d {
						d[x] += bb[x]
					}
				}
			}
		}
	}
}

// copyPast copies a (B, N, P, H) past into the first P positions of dst
// (B, N, total, H).
func copyPast(dst, past []float32, batch, heads, p, h, total int) {
	for bn := 0; bn < batch*heads; bn++ {
		copy(dst[bn*total*h:][:p*h], past[bn*p*h:][:p*h])
	}
}

// attnBias is an additive bias of shape (B or 1, N or 1, S, cols), read
// for (b, n, i) as one row of cols values.
type attnBias struct {
	data   []float32
	sb, sn int
	cols   int
}

func makeAttnBias(name string, t *tensor.Tensor, batch, heads, s, total int) (*attnBias, error) {
	if t == nil {
		return nil, nil
	}
	sh := t.Shape()
	if len(sh) != 4 || (sh[0] != 1 && sh[0] != batch) || (sh[1] != 1 && sh[1] != heads) || sh[2] != s || sh[3] != total {
		return nil, op.Errorf("%s: attention_bias must have shape [%d or 1, %d or 1, %d, %d], got %v", name, batch, heads, s, total, sh)
	}
	ab := &attnBias{data: t.F32(), cols: total}
	if sh[1] != 1 {
		ab.sn = s * total
	}
	if sh[0] != 1 {
		ab.sb = sh[1] * s * total
	}
	return ab, nil
}

func (a *attnBias) row(b, n, i int) []float32 {
	return a.data[b*a.sb+n*a.sn+i*a.cols:][:a.cols]
}

// ortMask is the mask of onnxruntime's Attention and MultiHeadAttention:
// keys it excludes get mask_filter_value added to their scores (a finite
// value by default, -10000, so a row excluding every key still softmaxes
// its scores; onnxruntime's CPU kernels do the same). A key the causal rule
// excludes is out of the softmax altogether, as in onnxruntime-node 1.23: a
// row whose every key is padded puts its weight on the padded keys it may
// see, not on later ones (checked with a differential case whose first batch
// pads every key). Key j of query i is
// excluded by the causal rule when j > past + i (applied only when there is
// more than one query, as onnxruntime does), by an end position (1-D (B)
// masks, and left padding by a start position with (2B)), or by a 0 in a
// raw mask of shape (B, T), (B, S, T) or (B, 1, M, M) (rows past..past+S,
// columns 0..T of the M×M matrix).
type ortMask struct {
	filter       float32
	causal       bool
	past         int
	ends, starts []int32
	raw          []int32
	rb, ri       int // raw strides of a batch and a query row
	rawOff       int // offset of the first row used in a batch
}

// makeORTMask reads mask (int32, may be nil) for batch × s queries against
// total keys, past of them from the cache.
func makeORTMask(name string, mask *tensor.Tensor, filter float32, causal bool, batch, s, total, past int, fourD bool) (*ortMask, error) {
	m := &ortMask{filter: filter, causal: causal && s > 1, past: past}
	if mask == nil {
		return m, nil
	}
	if mask.DType() != tensor.Int32 {
		return nil, op.Errorf("%s: the mask must be int32, got %s", name, mask.DType())
	}
	d := mask.I32()
	sh := mask.Shape()
	switch {
	case len(sh) == 1 && sh[0] == batch:
		m.ends = d
	case len(sh) == 1 && sh[0] == 2*batch:
		m.ends, m.starts = d[:batch], d[batch:]
	case len(sh) == 2 && sh[0] == batch && sh[1] == total:
		m.raw, m.rb = d, total
	case len(sh) == 3 && sh[0] == batch && sh[1] == s && sh[2] == total:
		m.raw, m.rb, m.ri = d, s*total, total
	case fourD && len(sh) == 4 && sh[0] == batch && sh[1] == 1 && sh[2] == sh[3] && sh[2] >= total:
		mm := sh[2]
		m.raw, m.rb, m.ri, m.rawOff = d, mm*mm, mm, past*mm
	default:
		return nil, op.Errorf("%s: mask of shape %v fits none of the forms for batch %d, %d queries, %d keys", name, sh, batch, s, total)
	}
	return m, nil
}

// active reports whether the mask excludes anything at all.
func (m *ortMask) active() bool { return m.causal || m.ends != nil || m.raw != nil }

// apply adds the filter value to the excluded keys of row (query i of batch b).
func (m *ortMask) apply(b, i int, row []float32) {
	if !m.active() {
		return
	}
	f := m.filter
	for j := range row {
		out := false
		switch {
		case m.raw != nil:
			out = m.raw[m.rawOff+b*m.rb+i*m.ri+j] == 0
		case m.ends != nil:
			out = j >= int(m.ends[b]) || (m.starts != nil && j < int(m.starts[b]))
		}
		if m.causal && j > m.past+i {
			row[j] = negInf32
		} else if out {
			row[j] += f
		}
	}
}

// attendAll runs the heads: q (B, N, S, D), k (B, Nkv, T, D), v (B, Nkv, T,
// Dv), query head n reading kv head n/(N/Nkv); out is (B, S, N·Dv). row
// (may be nil) finishes the scores of query i of (b, n). keys (may be nil)
// bounds the keys batch b looks at to its first keys(b): the others must be
// ones row would disallow.
func attendAll(ctx *op.Context, out, q, k, v []float32, batch, heads, kvHeads, s, total, d, dv int, scale, softcap float64, smooth bool,
	row func(b, n, i int, scores []float32), keys func(b int) int) error {
	group := heads / kvHeads
	var scratch []float32
	for b := 0; b < batch; b++ {
		for n := 0; n < heads; n++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			kv := b*kvHeads + n/group
			h := &kernels.AttnHead[float32]{
				Q: q[(b*heads+n)*s*d:], K: k[kv*total*d:], V: v[kv*total*dv:], Out: out[b*s*heads*dv+n*dv:],
				LdQ: d, LdK: d, LdV: dv, LdOut: heads * dv, S: s, T: total, D: d, Dv: dv,
				Scale: scale, Softcap: softcap, Smooth: smooth,
			}
			if keys != nil {
				h.T = keys(b)
			}
			if row != nil {
				b, n := b, n
				h.Row = func(i int, sc []float32) { row(b, n, i, sc) }
			}
			scratch = kernels.Attend(h, scratch)
		}
	}
	return nil
}

// defaultScale is 1/√head_size, the scale when the attribute is 0 or absent.
func defaultScale(scale float32, d int) float64 {
	if scale == 0 {
		return 1 / math.Sqrt(float64(d))
	}
	return float64(scale)
}

// checkAttnFloat accepts float32-stored tensors (float32, float16,
// bfloat16) of one dtype: onnxruntime's kernels have no float64.
func checkAttnFloat(name string, x *tensor.Tensor, others ...*tensor.Tensor) error {
	if !x.DType().IsFloat() {
		return op.Errorf("%s needs float32, float16 or bfloat16 tensors, got %s", name, x.DType())
	}
	return checkFloat(name, x, others...)
}

// newF32 allocates a tensor of dt and shape, returning it with its float32
// storage.
func newF32(ctx *op.Context, dt tensor.DType, shape ...int) (*tensor.Tensor, []float32) {
	t := ctx.New(dt, shape...)
	return t, t.F32()
}

var negInf32 = float32(math.Inf(-1))
