package kernels

import "math"

// AttnHead is one (batch, head) attention problem: S query rows of D values
// against T keys of D values and T value rows of Dv values, each matrix
// row-major with its own row stride (so a head can be read in place from a
// (B, S, N, D) tensor). Out receives S rows of Dv values.
//
// Scores are Scale·q·k, then Softcap·tanh(s/Softcap) when Softcap > 0, then
// Row (when set) adds the masks and biases of query row i, writing -Inf
// where a key is disallowed. A row whose every key is disallowed gets a zero
// output. Smooth adds a virtual key of score 0 and value 0 to every
// softmax (onnxruntime's smooth softmax).
type AttnHead[T Float] struct {
	Q, K, V, Out         []T
	LdQ, LdK, LdV, LdOut int
	S, T, D, Dv          int
	Scale, Softcap       float64
	Smooth               bool
	Row                  func(i int, scores []T)
}

// attnBlock is the number of query rows whose scores are held at once: the
// only scores materialised are attnBlock×T.
const attnBlock = 32

// Attend computes h in blocks of query rows: Q·Kᵀ for the block (one GEMM),
// the row finish and softmax (float64 sums), then P·V (a second GEMM) into
// Out. scratch is reused when it holds attnBlock·T values.
func Attend[T Float](h *AttnHead[T], scratch []T) []T {
	if h.S == 0 || h.Dv == 0 {
		return scratch
	}
	if h.T == 0 {
		for i := 0; i < h.S; i++ {
			clear(h.Out[i*h.LdOut : i*h.LdOut+h.Dv])
		}
		return scratch
	}
	rows := min(attnBlock, h.S)
	if cap(scratch) < rows*h.T {
		scratch = make([]T, rows*h.T)
	}
	sc := scratch[:rows*h.T]
	for i0 := 0; i0 < h.S; i0 += rows {
		m := min(rows, h.S-i0)
		gemm(false, true, m, h.T, h.D, T(h.Scale), h.Q[i0*h.LdQ:], h.LdQ, h.K, h.LdK, 0, sc, h.T)
		for r := 0; r < m; r++ {
			row := sc[r*h.T : (r+1)*h.T]
			if h.Softcap > 0 {
				c := h.Softcap
				for j, s := range row {
					row[j] = T(c * math.Tanh(float64(s)/c))
				}
			}
			if h.Row != nil {
				h.Row(i0+r, row)
			}
			softmaxRow(row, h.Smooth)
		}
		gemm(false, false, m, h.Dv, h.T, 1, sc, h.T, h.V, h.LdV, 0, h.Out[i0*h.LdOut:], h.LdOut)
	}
	return scratch
}

// softmaxRow turns scores into probabilities in place, summing in float64.
// All -Inf (every key disallowed) gives zeros; smooth counts an extra score
// of 0 in the denominator.
func softmaxRow[T Float](row []T, smooth bool) {
	mx := math.Inf(-1)
	for _, s := range row {
		if f := float64(s); f > mx || f != f {
			mx = f
		}
	}
	if smooth && mx < 0 {
		mx = 0
	}
	if math.IsInf(mx, -1) {
		clear(row)
		return
	}
	var sum float64
	for j, s := range row {
		e := math.Exp(float64(s) - mx)
		row[j] = T(e)
		sum += e
	}
	if smooth {
		sum += math.Exp(-mx)
	}
	inv := 1 / sum
	for j, e := range row {
		row[j] = T(float64(e) * inv)
	}
}

// gemm is Sgemm (packed, SIMD) for float32 and the generic Gemm otherwise.
func gemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if a32, ok := any(a).([]float32); ok {
		Sgemm(transA, transB, m, n, k, float32(alpha), a32, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
		return
	}
	Gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
