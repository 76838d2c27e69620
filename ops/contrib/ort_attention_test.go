package contrib_test

import (
	"math"
	"math/rand/v2"

	"github.com/gort-dev/gort/ops/contrib"
	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The attention ops' differential cases. Each draws shapes with batch > 1,
// S ≠ T and odd head sizes where onnxruntime's CPU kernels allow them, and
// keeps out the forms those kernels refuse or compute against their
// documentation (docs/contrib.md lists them).
func init() {
	moreDiffCases = append(moreDiffCases, rotaryCases, mhaCases, gqaCases, bertCases)
}

func i32T(shape []int, v ...int32) *tensor.Tensor { return tensor.Of(shape, v) }
func i64T(shape []int, v ...int64) *tensor.Tensor { return tensor.Of(shape, v) }

// rotaryCaches are cos/sin caches of maxPos rows and width w, from angles
// pos·θᵢ as models build them.
func rotaryCaches(maxPos, w int) (*tensor.Tensor, *tensor.Tensor) {
	c, s := make([]float32, maxPos*w), make([]float32, maxPos*w)
	for p := 0; p < maxPos; p++ {
		for i := 0; i < w; i++ {
			a := float64(p) * math.Pow(10000, -float64(i)/float64(w))
			c[p*w+i], s[p*w+i] = float32(math.Cos(a)), float32(math.Sin(a))
		}
	}
	return tensor.Of([]int{maxPos, w}, c), tensor.Of([]int{maxPos, w}, s)
}

func rotaryCases(r *rand.Rand, add func(dcase)) {
	for i := 0; i < 24; i++ {
		b, s, n := 1+r.IntN(3), 1+r.IntN(6), 1+r.IntN(4)
		h := []int{2, 4, 6, 8, 10, 16}[r.IntN(6)]
		attrs := optest.A{"interleaved": r.IntN(2)}
		rd := h
		if i%3 == 1 {
			rd = 2 * (1 + r.IntN(h/2))
			attrs["rotary_embedding_dim"] = rd
			attrs["num_heads"] = n
		} else if i%3 == 2 {
			attrs["num_heads"] = n
		}
		maxPos := s + 8
		cos, sin := rotaryCaches(maxPos, rd/2)
		var x *tensor.Tensor
		if i%4 == 3 {
			x = randT(r, 2, 0, b, n, s, h)
		} else {
			x = randT(r, 2, 0, b, s, n*h)
		}
		var pos *tensor.Tensor
		if i%2 == 0 {
			pos = i64T([]int{1}, int64(r.IntN(8)))
		} else {
			ids := make([]int64, b*s)
			for j := range ids {
				ids[j] = int64(r.IntN(maxPos))
			}
			pos = i64T([]int{b, s}, ids...)
		}
		add(dcase{domain: contrib.Domain, op: "RotaryEmbedding", attrs: attrs, in: []*tensor.Tensor{x, pos, cos, sin}, outs: []bool{true}})
	}
}

// mhaCases covers separate and (B, N, L, H) key/value, bias, the mask
// forms, attention_bias, past and present, unidirectional, scale and
// mask_filter_value. Packed QKV and KV are left to the unit tests: the CPU
// kernel does not implement them.
func mhaCases(r *rand.Rand, add func(dcase)) {
	for i := 0; i < 28; i++ {
		b, s, n := 1+r.IntN(3), 1+r.IntN(5), 1+r.IntN(3)
		h, hv := 1+r.IntN(7), 1+r.IntN(7)
		l := 1 + r.IntN(6)
		attrs := optest.A{"num_heads": n}
		if r.IntN(3) == 0 {
			attrs["unidirectional"] = 1
			l = min(l, s) // the CPU kernel never masks the last query row (docs/contrib.md)
		}
		if r.IntN(4) == 0 {
			attrs["scale"] = float32(0.3)
		}
		if r.IntN(4) == 0 {
			attrs["mask_filter_value"] = float32(-500)
		}
		kvHeads := i%5 == 4
		past := 0
		if !kvHeads && r.IntN(2) == 0 {
			past = 1 + r.IntN(4)
		}
		if past > 0 || kvHeads {
			hv = h // the CPU kernel requires it (docs/contrib.md)
		}
		total := past + l
		in := make([]*tensor.Tensor, 8)
		in[0] = randT(r, 1, 0, b, s, n*h)
		if kvHeads {
			in[1], in[2] = randT(r, 1, 0, b, n, l, h), randT(r, 1, 0, b, n, l, hv)
		} else {
			in[1], in[2] = randT(r, 1, 0, b, l, n*h), randT(r, 1, 0, b, l, n*hv)
			if r.IntN(2) == 0 {
				in[3] = randT(r, 0.5, 0, 2*n*h+n*hv)
			}
		}
		maskForm := r.IntN(4)
		if maskForm == 3 && attrs["unidirectional"] != nil {
			maskForm = 2 // the CPU kernel drops a (B, S, T) mask under unidirectional (docs/contrib.md)
		}
		switch maskForm {
		case 1:
			ends := make([]int32, b)
			for j := range ends {
				ends[j] = int32(1 + r.IntN(total))
			}
			in[4] = i32T([]int{b}, ends...)
		case 2:
			m := make([]int32, b*total)
			for j := range m {
				m[j] = int32(r.IntN(4) % 3 & 1)
				if j%total == 0 {
					m[j] = 1
				}
			}
			in[4] = i32T([]int{b, total}, m...)
		case 3:
			m := make([]int32, b*s*total)
			for j := range m {
				m[j] = int32(min(1, r.IntN(3)))
			}
			in[4] = i32T([]int{b, s, total}, m...)
		}
		if r.IntN(2) == 0 {
			bb, bn := []int{1, b}[r.IntN(2)], []int{1, n}[r.IntN(2)]
			in[5] = randT(r, 1, 0, bb, bn, s, total)
		}
		if past > 0 {
			in[6], in[7] = randT(r, 1, 0, b, n, past, h), randT(r, 1, 0, b, n, past, hv)
		}
		outs := []bool{true, r.IntN(2) == 0, r.IntN(2) == 0}
		if past > 0 {
			outs[1], outs[2] = true, true // the CPU kernel reads the past only then (docs/contrib.md)
		}
		add(dcase{domain: contrib.Domain, op: "MultiHeadAttention", attrs: attrs, in: in, outs: outs})
	}
}

// gqaCases covers first prompts and decoding steps over a cache of unequal
// per-batch lengths, packed and separate QKV, kv_num_heads < num_heads,
// rotary (interleaved or not), local windows, softcap, smooth softmax,
// scale and attention_bias. Right-padded first prompts are left to the unit
// tests (docs/contrib.md).
func gqaCases(r *rand.Rand, add func(dcase)) {
	for i := 0; i < 32; i++ {
		b := 1 + r.IntN(3)
		kvN := 1 + r.IntN(2)
		n := kvN * (1 + r.IntN(3))
		rotary := i%3 != 0
		// The CPU kernel wants head sizes that are multiples of 8 (16 with rotary).
		h := []int{8, 16, 24}[r.IntN(3)]
		if rotary {
			h = []int{16, 32}[r.IntN(2)]
		}
		attrs := optest.A{"num_heads": n, "kv_num_heads": kvN}
		prompt := i%4 == 0
		s := 1 + r.IntN(4)
		if !prompt && r.IntN(3) > 0 {
			s = 1
		}
		if !prompt && s > 1 {
			b = 1 // the CPU kernel's rule for prompts continuing a cache
		}
		pastOf := make([]int, b)
		pbuf := 0
		if !prompt {
			pbuf = 1 + r.IntN(6)
			for j := range pastOf {
				pastOf[j] = r.IntN(pbuf + 1)
			}
			pastOf[r.IntN(b)] = pbuf
		}
		total := 0
		lens := make([]int32, b)
		for j := range lens {
			lens[j] = int32(pastOf[j] + s - 1)
			total = max(total, pastOf[j]+s)
		}
		in := make([]*tensor.Tensor, 11)
		if i%2 == 0 {
			in[0] = randT(r, 1, 0, b, s, (n+2*kvN)*h)
		} else {
			in[0], in[1], in[2] = randT(r, 1, 0, b, s, n*h), randT(r, 1, 0, b, s, kvN*h), randT(r, 1, 0, b, s, kvN*h)
		}
		if !prompt {
			in[3], in[4] = randT(r, 1, 0, b, kvN, pbuf, h), randT(r, 1, 0, b, kvN, pbuf, h)
		}
		in[5] = i32T([]int{b}, lens...)
		in[6] = i32T([]int{1}, int32(total))
		if rotary {
			rd := h
			if h == 32 && r.IntN(2) == 0 {
				rd = 16 // the kernel wants rotary_dim/2 a multiple of 8
			}
			in[7], in[8] = rotaryCaches(total+4, rd/2)
			attrs["do_rotary"] = 1
			attrs["rotary_interleaved"] = r.IntN(2)
		}
		if r.IntN(3) == 0 {
			attrs["local_window_size"] = 1 + r.IntN(3)
		}
		if r.IntN(3) == 0 {
			attrs["softcap"] = float32(1 + r.IntN(3))
		}
		if r.IntN(4) == 0 {
			attrs["smooth_softmax"] = 1
		}
		if r.IntN(4) == 0 {
			attrs["scale"] = float32(0.4)
		}
		if r.IntN(3) == 0 {
			in[10] = randT(r, 1, 0, []int{1, b}[r.IntN(2)], []int{1, n}[r.IntN(2)], s, total)
		}
		add(dcase{domain: contrib.Domain, op: "GroupQueryAttention", attrs: attrs, in: in, outs: []bool{true, true, true}})
	}
}

// bertCases covers Attention: qkv_hidden_sizes with a different value
// size, optional bias, the 1-D, 2-D and 3-D mask forms, past and present,
// attention_bias, unidirectional, scale and mask_filter_value. The 4-D
// Megatron mask is left to the unit tests (the CPU kernel refuses it).
func bertCases(r *rand.Rand, add func(dcase)) {
	for i := 0; i < 28; i++ {
		b, s, n := 1+r.IntN(3), 1+r.IntN(5), 1+r.IntN(3)
		h, hin := 1+r.IntN(6), 1+r.IntN(9)
		hv := h
		attrs := optest.A{"num_heads": n}
		past := 0
		if r.IntN(2) == 0 {
			past = 1 + r.IntN(4)
		} else if r.IntN(2) == 0 {
			hv = 1 + r.IntN(6)
			attrs["qkv_hidden_sizes"] = []int64{int64(n * h), int64(n * h), int64(n * hv)}
		}
		causal := r.IntN(3) == 0
		if causal {
			attrs["unidirectional"] = 1
		}
		if r.IntN(4) == 0 {
			attrs["scale"] = float32(0.25)
		}
		if r.IntN(4) == 0 {
			attrs["mask_filter_value"] = float32(-300)
		}
		total := past + s
		dtot := 2*n*h + n*hv
		in := make([]*tensor.Tensor, 6)
		in[0], in[1] = randT(r, 1, 0, b, s, hin), randT(r, 0.5, 0, hin, dtot)
		in[2] = randT(r, 0.5, 0, dtot) // onnxruntime-node 1.23 crashes without it (docs/contrib.md)
		form := r.IntN(5)
		if form == 4 && causal {
			form = 3 // the CPU kernel drops a (B, S, T) mask under unidirectional (docs/contrib.md)
		}
		switch form {
		case 1, 2:
			k := b * form
			idx := make([]int32, k)
			for j := range idx {
				if j < b {
					idx[j] = int32(1 + r.IntN(total))
				} else {
					idx[j] = int32(r.IntN(int(idx[j-b])))
				}
			}
			in[3] = i32T([]int{k}, idx...)
		case 3:
			m := make([]int32, b*total)
			for j := range m {
				m[j] = int32(min(1, r.IntN(3)))
			}
			in[3] = i32T([]int{b, total}, m...)
		case 4:
			m := make([]int32, b*s*total)
			for j := range m {
				m[j] = int32(min(1, r.IntN(3)))
			}
			in[3] = i32T([]int{b, s, total}, m...)
		}
		if past > 0 {
			in[4] = randT(r, 1, 0, 2, b, n, past, h)
		}
		if past == 0 && r.IntN(2) == 0 { // the CPU kernel refuses past with attention_bias
			in[5] = randT(r, 1, 0, []int{1, b}[r.IntN(2)], []int{1, n}[r.IntN(2)], s, total)
		}
		outs := []bool{true}
		if hv == h {
			outs = append(outs, past > 0 || r.IntN(2) == 0)
		}
		add(dcase{domain: contrib.Domain, op: "Attention", attrs: attrs, in: in, outs: outs})
	}
}
