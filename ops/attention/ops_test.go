package attention_test

import (
	"math"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestSwiGLU(t *testing.T) {
	a := []float32{-2, -0.5, 0, 0.5, 2, 3}
	b := []float32{1, 2, 3, -1, 0.5, -2}
	for _, alpha := range []float32{1, 1.702} {
		want := make([]float64, len(a))
		for i := range a {
			x := float64(a[i])
			want[i] = x / (1 + math.Exp(-float64(alpha)*x)) * float64(b[i])
		}
		got := runOp(t, "SwiGLU", 28, []*pb.AttributeProto{fattr("alpha", alpha)},
			[]*tensor.Tensor{tensor.Of([]int{2, 3}, a), tensor.Of([]int{2, 3}, b)}, 1)
		expectClose(t, "Y", got[0], []int{2, 3}, want, 1e-6)
	}
	if _, err := tryOp("SwiGLU", 28, nil, []*tensor.Tensor{tensor.Of([]int{2, 3}, a), tensor.Of([]int{3}, b[:3])}, 1); err == nil {
		t.Fatal("SwiGLU broadcast: expected an error")
	}
}

func TestCausalConvWithState(t *testing.T) {
	const B, C, L, K = 2, 3, 4, 3
	x, w, bias, past := rnd(11, B*C*L), rnd(12, C*K), rnd(13, C), rnd(14, B*C*(K-1))
	// ref builds each channel's full sequence past||x explicitly.
	ref := func(withPast, withBias, silu bool) ([]float64, []float64) {
		y := make([]float64, B*C*L)
		st := make([]float64, B*C*(K-1))
		for b := 0; b < B; b++ {
			for c := 0; c < C; c++ {
				var full []float64
				for i := 0; i < K-1; i++ {
					if withPast {
						full = append(full, float64(past[(b*C+c)*(K-1)+i]))
					} else {
						full = append(full, 0)
					}
				}
				for i := 0; i < L; i++ {
					full = append(full, float64(x[(b*C+c)*L+i]))
				}
				for tt := 0; tt < L; tt++ {
					s := 0.0
					for i := 0; i < K; i++ {
						s += float64(w[c*K+i]) * full[tt+i]
					}
					if withBias {
						s += float64(bias[c])
					}
					if silu {
						s = s / (1 + math.Exp(-s))
					}
					y[(b*C+c)*L+tt] = s
				}
				copy(st[(b*C+c)*(K-1):], full[len(full)-(K-1):])
			}
		}
		return y, st
	}
	xt, wt := tensor.Of([]int{B, C, L}, x), tensor.Of([]int{C, 1, K}, w)
	bt, pt := tensor.Of([]int{C}, bias), tensor.Of([]int{B, C, K - 1}, past)
	for _, tc := range []struct {
		name             string
		act              string
		ins              []*tensor.Tensor
		past, bias, silu bool
	}{
		{"plain", "none", []*tensor.Tensor{xt, wt}, false, false, false},
		{"bias and past", "none", []*tensor.Tensor{xt, wt, bt, pt}, true, true, false},
		{"silu past only", "silu", []*tensor.Tensor{xt, wt, nil, pt}, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wy, ws := ref(tc.past, tc.bias, tc.silu)
			got := runOp(t, "CausalConvWithState", 27, []*pb.AttributeProto{sattr("activation", tc.act)}, tc.ins, 2)
			expectClose(t, "output", got[0], []int{B, C, L}, wy, 1e-6)
			expectClose(t, "present_state", got[1], []int{B, C, K - 1}, ws, 0)
		})
	}
	// An input shorter than k-1 keeps part of the past in the new state.
	short := tensor.Of([]int{1, 1, 1}, []float32{5})
	got := runOp(t, "CausalConvWithState", 27, nil, []*tensor.Tensor{short, tensor.Of([]int{1, 1, 4}, []float32{1, 2, 3, 4}), nil,
		tensor.Of([]int{1, 1, 3}, []float32{7, 8, 9})}, 2)
	expectClose(t, "short output", got[0], []int{1, 1, 1}, []float64{1*7 + 2*8 + 3*9 + 4*5}, 0)
	expectClose(t, "short state", got[1], []int{1, 1, 3}, []float64{8, 9, 5}, 0)
}

func TestRotaryEmbedding(t *testing.T) {
	const B, H, S, D, MaxPos = 2, 3, 4, 8, 10
	angle := func(pos, i, half int) float64 { return float64(pos) * math.Pow(10000, -float64(i)/float64(half)) }
	caches := func(rows, half int, posOf func(r int) int) ([]float32, []float32) {
		c, s := make([]float32, rows*half), make([]float32, rows*half)
		for r := 0; r < rows; r++ {
			for i := 0; i < half; i++ {
				c[r*half+i] = float32(math.Cos(angle(posOf(r), i, half)))
				s[r*half+i] = float32(math.Sin(angle(posOf(r), i, half)))
			}
		}
		return c, s
	}
	x := rnd(21, B*H*S*D)
	pos := []int64{3, 0, 9, 4, 1, 1, 2, 7}
	// ref rotates, for each (b, h, s), the pairs of the first rd features as
	// complex numbers multiplied by e^{i*angle}.
	ref := func(rd int, interleaved bool) []float64 {
		y := f64s(x)
		half := rd / 2
		for b := 0; b < B; b++ {
			for h := 0; h < H; h++ {
				for s := 0; s < S; s++ {
					o := ((b*H+h)*S + s) * D
					for i := 0; i < half; i++ {
						a, c := o+i, o+i+half
						if interleaved {
							a, c = o+2*i, o+2*i+1
						}
						z := complex(float64(x[a]), float64(x[c])) * complex(math.Cos(angle(int(pos[b*S+s]), i, half)), math.Sin(angle(int(pos[b*S+s]), i, half)))
						y[a], y[c] = real(z), imag(z)
					}
				}
			}
		}
		return y
	}
	for _, tc := range []struct {
		name        string
		rd          int
		interleaved bool
	}{{"full", 0, false}, {"interleaved", 0, true}, {"partial", 4, false}, {"partial interleaved", 6, true}} {
		rd := tc.rd
		if rd == 0 {
			rd = D
		}
		want := ref(rd, tc.interleaved)
		il := int64(0)
		if tc.interleaved {
			il = 1
		}
		attrs := []*pb.AttributeProto{iattr("interleaved", il), iattr("rotary_embedding_dim", int64(tc.rd))}
		t.Run(tc.name+"/4-D position_ids", func(t *testing.T) {
			c, s := caches(MaxPos, rd/2, func(r int) int { return r })
			got := runOp(t, "RotaryEmbedding", 23, attrs, []*tensor.Tensor{tensor.Of([]int{B, H, S, D}, x),
				tensor.Of([]int{MaxPos, rd / 2}, c), tensor.Of([]int{MaxPos, rd / 2}, s), tensor.Of([]int{B, S}, pos)}, 1)
			expectClose(t, "Y", got[0], []int{B, H, S, D}, want, 1e-5)
		})
		t.Run(tc.name+"/3-D caches per token", func(t *testing.T) {
			c, s := caches(B*S, rd/2, func(r int) int { return int(pos[r]) })
			got := runOp(t, "RotaryEmbedding", 23, append(attrs, iattr("num_heads", H)), []*tensor.Tensor{
				tensor.Of([]int{B, S, H * D}, to3D(x, B, H, S, D)),
				tensor.Of([]int{B, S, rd / 2}, c), tensor.Of([]int{B, S, rd / 2}, s)}, 1)
			expectClose(t, "Y", got[0], []int{B, S, H * D}, to3D64(want, B, H, S, D), 1e-5)
		})
	}
	c, s := caches(MaxPos, D/2, func(r int) int { return r })
	if _, err := tryOp("RotaryEmbedding", 23, nil, []*tensor.Tensor{tensor.Of([]int{B, H, S, D}, x),
		tensor.Of([]int{MaxPos, D / 2}, c), tensor.Of([]int{MaxPos, D / 2}, s), tensor.Of([]int{B, S}, []int64{0, 1, 2, 10, 0, 0, 0, 0})}, 1); err == nil {
		t.Fatal("position id past the cache: expected an error")
	}
}

func TestLinearAttention(t *testing.T) {
	const B, T, HQ, HKV, DK, DV = 2, 4, 4, 2, 3, 2
	q, k, v := rnd(31, B*T*HQ*DK), rnd(32, B*T*HKV*DK), rnd(33, B*T*HKV*DV)
	past := rnd(34, B*HKV*DK*DV)
	gHead, gKey := rnd(35, B*T*HKV), rnd(36, B*T*HKV*DK)
	beta := rnd(37, B*T*HKV)
	for i := range beta {
		beta[i] = 0.5 + beta[i]/4 // in (0.25, 0.75) like a sigmoid output
	}
	qa := func(b, t, h, i int) float64 { return float64(q[((b*T+t)*HQ+h)*DK+i]) }
	ka := func(b, t, h, i int) float64 { return float64(k[((b*T+t)*HKV+h)*DK+i]) }
	va := func(b, t, h, j int) float64 { return float64(v[((b*T+t)*HKV+h)*DV+j]) }
	scale := 1 / math.Sqrt(DK)

	// Closed form for "linear"/"gated" with per-head decay and no past:
	// o_t = scale * sum_{s<=t} exp(sum_{s<r<=t} g_r) (q_t.k_s) v_s.
	closed := func(gated bool) []float64 {
		y := make([]float64, B*T*HQ*DV)
		for b := 0; b < B; b++ {
			for h := 0; h < HQ; h++ {
				kh := h / (HQ / HKV)
				for tt := 0; tt < T; tt++ {
					for s := 0; s <= tt; s++ {
						f := 1.0
						if gated {
							for r := s + 1; r <= tt; r++ {
								f *= math.Exp(float64(gHead[(b*T+r)*HKV+kh]))
							}
						}
						dot := 0.0
						for i := 0; i < DK; i++ {
							dot += qa(b, tt, h, i) * ka(b, s, kh, i)
						}
						for j := 0; j < DV; j++ {
							y[((b*T+tt)*HQ+h)*DV+j] += scale * f * dot * va(b, s, kh, j)
						}
					}
				}
			}
		}
		return y
	}
	// Matrix recurrence for gated_delta with per-key decay and a past state.
	gatedDelta := func() ([]float64, []float64) {
		y := make([]float64, B*T*HQ*DV)
		st := f64s(past)
		for b := 0; b < B; b++ {
			for kh := 0; kh < HKV; kh++ {
				S := make([][]float64, DK)
				for i := range S {
					S[i] = st[((b*HKV+kh)*DK+i)*DV : ((b*HKV+kh)*DK+i+1)*DV]
				}
				for tt := 0; tt < T; tt++ {
					for i := 0; i < DK; i++ {
						for j := 0; j < DV; j++ {
							S[i][j] *= math.Exp(float64(gKey[((b*T+tt)*HKV+kh)*DK+i]))
						}
					}
					bt := float64(beta[(b*T+tt)*HKV+kh])
					u := make([]float64, DV)
					for j := 0; j < DV; j++ {
						r := 0.0
						for i := 0; i < DK; i++ {
							r += S[i][j] * ka(b, tt, kh, i)
						}
						u[j] = bt * (va(b, tt, kh, j) - r)
					}
					for i := 0; i < DK; i++ {
						for j := 0; j < DV; j++ {
							S[i][j] += ka(b, tt, kh, i) * u[j]
						}
					}
					for h := kh * (HQ / HKV); h < (kh+1)*(HQ/HKV); h++ {
						for j := 0; j < DV; j++ {
							o := 0.0
							for i := 0; i < DK; i++ {
								o += qa(b, tt, h, i) * S[i][j]
							}
							y[((b*T+tt)*HQ+h)*DV+j] = 0.7 * o
						}
					}
				}
			}
		}
		return y, st
	}
	qt := tensor.Of([]int{B, T, HQ * DK}, q)
	kt := tensor.Of([]int{B, T, HKV * DK}, k)
	vt := tensor.Of([]int{B, T, HKV * DV}, v)
	heads := []*pb.AttributeProto{iattr("q_num_heads", HQ), iattr("kv_num_heads", HKV)}
	t.Run("linear", func(t *testing.T) {
		got := runOp(t, "LinearAttention", 27, append(heads, sattr("update_rule", "linear")), []*tensor.Tensor{qt, kt, vt}, 2)
		expectClose(t, "output", got[0], []int{B, T, HQ * DV}, closed(false), 1e-5)
	})
	t.Run("gated per-head decay", func(t *testing.T) {
		got := runOp(t, "LinearAttention", 27, append(heads, sattr("update_rule", "gated")),
			[]*tensor.Tensor{qt, kt, vt, nil, tensor.Of([]int{B, T, HKV}, gHead)}, 2)
		expectClose(t, "output", got[0], []int{B, T, HQ * DV}, closed(true), 1e-5)
	})
	t.Run("gated_delta per-key decay with past", func(t *testing.T) {
		wy, ws := gatedDelta()
		got := runOp(t, "LinearAttention", 27, append(heads, fattr("scale", 0.7)),
			[]*tensor.Tensor{qt, kt, vt, tensor.Of([]int{B, HKV, DK, DV}, past), tensor.Of([]int{B, T, HKV * DK}, gKey), tensor.Of([]int{B, T, HKV}, beta)}, 2)
		expectClose(t, "output", got[0], []int{B, T, HQ * DV}, wy, 1e-5)
		expectClose(t, "present_state", got[1], []int{B, HKV, DK, DV}, ws, 1e-5)
	})
	t.Run("gated without decay is an error", func(t *testing.T) {
		if _, err := tryOp("LinearAttention", 27, append(heads, sattr("update_rule", "gated")), []*tensor.Tensor{qt, kt, vt}, 2); err == nil {
			t.Fatal("expected an error")
		}
	})
}

// FlexAttention without modifiers is plain attention with GQA.
func TestFlexAttention(t *testing.T) {
	const B, HQ, HKV, L, S, D, DV = 2, 4, 2, 3, 5, 4, 3
	q, k, v := rnd(41, B*HQ*L*D), rnd(42, B*HKV*S*D), rnd(43, B*HKV*S*DV)
	want, _ := refAttn{b: B, hq: HQ, hkv: HKV, lq: L, t: S, d: D, dv: DV, scale: 0.25}.run(q, k, v)
	got, err := tryFlex([]*pb.AttributeProto{fattr("scale", 0.25)}, []*tensor.Tensor{
		tensor.Of([]int{B, HQ, L, D}, q), tensor.Of([]int{B, HKV, S, D}, k), tensor.Of([]int{B, HKV, S, DV}, v)})
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "Y", got, []int{B, HQ, L, DV}, want, 1e-5)
}
