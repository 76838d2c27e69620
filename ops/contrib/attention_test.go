package contrib_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gort-dev/gort/ops/contrib"
	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The attention forms onnxruntime's CPU kernels do not run (so the
// differential test cannot check them), each checked against a form it
// does run that must give the same result.

func mha(t *testing.T, attrs optest.A, nOut int, in ...*tensor.Tensor) []*tensor.Tensor {
	t.Helper()
	return optest.MustRun(t, optest.Call{Domain: contrib.Domain, Op: "MultiHeadAttention", Opset: 1, Attrs: attrs, NOut: nOut, In: in})
}

// pack interleaves tensors of shape (B, S, N·H) into (B, S, N, len(ts), H).
func pack(ts []*tensor.Tensor, n int) *tensor.Tensor {
	sh := ts[0].Shape()
	b, s, h := sh[0], sh[1], sh[2]/n
	out := make([]float32, 0, len(ts)*ts[0].Len())
	for bs := 0; bs < b*s; bs++ {
		for hd := 0; hd < n; hd++ {
			for _, t := range ts {
				out = append(out, t.F32()[bs*n*h+hd*h:][:h]...)
			}
		}
	}
	return tensor.Of([]int{b, s, n, len(ts), h}, out)
}

func TestMHAPackedForms(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	b, s, n, h := 2, 3, 2, 5
	q, k, v := randT(r, 1, 0, b, s, n*h), randT(r, 1, 0, b, s, n*h), randT(r, 1, 0, b, s, n*h)
	bias := randT(r, 0.5, 0, 3*n*h)
	attrs := optest.A{"num_heads": n, "unidirectional": 1}
	want := mha(t, attrs, 3, q, k, v, bias)
	gotKV := mha(t, attrs, 3, q, pack([]*tensor.Tensor{k, v}, n), nil, bias)
	gotQKV := mha(t, attrs, 3, pack([]*tensor.Tensor{q, k, v}, n), nil, nil, bias)
	for i := range want {
		optest.Expect(t, "packed KV", gotKV[i], want[i])
		optest.Expect(t, "packed QKV", gotQKV[i], want[i])
	}
}

// causalMask is the (B, S, T) 0/1 mask of unidirectional with past keys.
func causalMask(b, s, total, past int) *tensor.Tensor {
	m := make([]int32, b*s*total)
	for i := range m {
		q, j := i/total%s, i%total
		if j <= past+q {
			m[i] = 1
		}
	}
	return tensor.Of([]int{b, s, total}, m)
}

// With more keys than queries (cross attention), unidirectional masks key
// j > i for every query; onnxruntime's kernel leaves the last query
// unmasked.
func TestMHACausalMoreKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	b, s, l, n, h := 2, 3, 6, 2, 3
	q, k, v := randT(r, 1, 0, b, s, n*h), randT(r, 1, 0, b, l, n*h), randT(r, 1, 0, b, l, n*h)
	got := mha(t, optest.A{"num_heads": n, "unidirectional": 1}, 1, q, k, v)
	want := mha(t, optest.A{"num_heads": n}, 1, q, k, v, nil, causalMask(b, s, l, 0))
	optest.Expect(t, "causal", got[0], want[0])
}

// Attention's Megatron mask (B, 1, M, M) reads rows P..P+S, columns 0..T.
func TestAttentionMegatronMask(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	b, s, n, h, hin, past, mm := 2, 3, 2, 3, 5, 2, 7
	total := past + s
	x, w, bias := randT(r, 1, 0, b, s, hin), randT(r, 0.5, 0, hin, 3*n*h), randT(r, 0.5, 0, 3*n*h)
	pst := randT(r, 1, 0, 2, b, n, past, h)
	m4 := make([]int32, b*mm*mm)
	m3 := make([]int32, b*s*total)
	for i := range m4 {
		m4[i] = int32(r.IntN(3) % 2)
	}
	for bb := 0; bb < b; bb++ {
		for i := 0; i < s; i++ {
			for j := 0; j < total; j++ {
				m3[(bb*s+i)*total+j] = m4[(bb*mm+past+i)*mm+j]
			}
		}
	}
	run := func(mask *tensor.Tensor) []*tensor.Tensor {
		return optest.MustRun(t, optest.Call{Domain: contrib.Domain, Op: "Attention", Opset: 1, Attrs: optest.A{"num_heads": n}, NOut: 2,
			In: []*tensor.Tensor{x, w, bias, mask, pst}})
	}
	got, want := run(tensor.Of([]int{b, 1, mm, mm}, m4)), run(tensor.Of([]int{b, s, total}, m3))
	optest.Expect(t, "output", got[0], want[0])
	optest.Expect(t, "present", got[1], want[1])
}

// A right-padded first prompt: batch 1 holds 2 real tokens of 4; its real
// rows are those of a prompt of 2 tokens alone.
func TestGQAPaddedPrompt(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	n, kvN, h, s := 4, 2, 8, 4
	q, k, v := randT(r, 1, 0, 2, s, n*h), randT(r, 1, 0, 2, s, kvN*h), randT(r, 1, 0, 2, s, kvN*h)
	attrs := optest.A{"num_heads": n, "kv_num_heads": kvN, "softcap": float32(2)}
	gqa := func(q, k, v *tensor.Tensor, lens []int32, total int32) []*tensor.Tensor {
		return optest.MustRun(t, optest.Call{Domain: contrib.Domain, Op: "GroupQueryAttention", Opset: 1, Attrs: attrs, NOut: 3,
			In: []*tensor.Tensor{q, k, v, nil, nil, tensor.Of([]int{len(lens)}, lens), tensor.Of([]int{1}, []int32{total})}})
	}
	got := gqa(q, k, v, []int32{3, 1}, int32(s))
	one := func(x *tensor.Tensor, rows int) *tensor.Tensor {
		d := x.Shape()[2]
		return tensor.Of([]int{1, rows, d}, append([]float32(nil), x.F32()[s*d:s*d+rows*d]...))
	}
	want := gqa(one(q, 2), one(k, 2), one(v, 2), []int32{1}, 2)
	y := got[0].F32()[s*n*h:][:2*n*h]
	optest.Expect(t, "output", tensor.Of([]int{1, 2, n * h}, append([]float32(nil), y...)), want[0])
	for kvh := 0; kvh < kvN; kvh++ {
		pk := got[1].F32()[(kvN+kvh)*s*h:][:2*h]
		wk := want[1].F32()[kvh*2*h:][:2*h]
		optest.Expect(t, "present_key", tensor.Of([]int{2, h}, append([]float32(nil), pk...)), tensor.Of([]int{2, h}, wk))
	}
}

func TestAttentionDeclines(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	x, w := randT(r, 1, 0, 1, 2, 4), randT(r, 1, 0, 4, 6)
	for _, attrs := range []optest.A{{"num_heads": 1, "do_rotary": 1}, {"num_heads": 1, "past_present_share_buffer": 1}, {"num_heads": 0}} {
		if _, err := optest.Run(optest.Call{Domain: contrib.Domain, Op: "Attention", Opset: 1, Attrs: attrs, NOut: 1, In: []*tensor.Tensor{x, w}}); err == nil {
			t.Errorf("Attention %v: no error", attrs)
		}
	}
	if _, err := optest.Run(optest.Call{Domain: contrib.Domain, Op: "RotaryEmbedding", Opset: 1, Attrs: optest.A{"is_packed_batching": 1},
		NOut: 1, In: []*tensor.Tensor{x, tensor.Of([]int{1}, []int64{0}), randT(r, 1, 0, 4, 2), randT(r, 1, 0, 4, 2)}}); err == nil {
		t.Errorf("RotaryEmbedding is_packed_batching: no error")
	}
}
