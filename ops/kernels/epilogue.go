package kernels

import (
	"math"

	"github.com/chewxy/math32"
)

// Act is an activation a GEMM or convolution applies in its output loop.
type Act uint8

// The fusable activations. Each computes exactly what the float32 (and
// float64) loop of the matching ONNX operator in ops/elementwise computes, so
// a fused result is bit for bit the result of the separate ops.
const (
	ActNone        Act = iota
	ActRelu            // x < 0 ? 0 : x
	ActClip            // min(max(x, Alpha), Beta), NaN stays NaN
	ActLeakyRelu       // x < 0 ? Alpha·x : x
	ActSigmoid         //
	ActHardSigmoid     // max(0, min(1, Alpha·x + Beta))
	ActHardSwish       // x · max(0, min(1, x/6 + 1/2))
	ActTanh            //
)

// Epilogue is the work fused into the output loop of Sgemm-based kernels:
//
//	C[i][j] = act(C[i][j] + RowBias[i] + ColBias[j] + Residual[i][j])
//
// with each term present only when set, added in that order (the bias, then
// the residual, then the activation, as the separate ops would compute it).
// Row and column indices are those of the C the kernel is given.
type Epilogue struct {
	RowBias  []float32 // one per row of C (a convolution's output channels)
	ColBias  []float32 // one per column of C (a Gemm's bias of shape [N])
	Residual []float32 // same layout as C, leading dimension LdR
	LdR      int
	Act      Act
	Alpha    float32 // Clip min, LeakyRelu slope, HardSigmoid alpha
	Beta     float32 // Clip max, HardSigmoid beta
}

// active reports whether the epilogue does anything.
func (e *Epilogue) active() bool {
	return e != nil && (e.RowBias != nil || e.ColBias != nil || e.Residual != nil || e.Act != ActNone)
}

// fusable reports whether the GEMM's micro-kernel applies e to each full
// tile as it stores it (a row bias, a residual, Relu, HardSwish or no
// activation: a convolution's usual tails), instead of a separate pass over
// C that reloads it: that pass cost up to a fifth of a small-depth
// convolution in wasm (SqueezeNet's stem 2.05 → 1.6 ms), and with
// HardSwish, whose pass branched per vector on the activation, two thirds
// of MobileNetV3's expansions. Tiles the micro-kernel does not store
// directly (the edges) still take apply.
func (e *Epilogue) fusable() bool {
	return e != nil && e.ColBias == nil && (e.Act == ActNone || e.Act == ActRelu || e.Act == ActHardSwish)
}

// ApplyEpilogue applies e to the rows×cols matrix c (leading dimension ldc),
// for kernels whose output loop cannot carry it (ConvTranspose scatters its
// sums, so it applies the epilogue once they are complete).
func ApplyEpilogue(c []float32, rows, cols, ldc int, e *Epilogue) {
	if !e.active() || rows <= 0 || cols <= 0 {
		return
	}
	e.apply(c, ldc, 0, rows, 0, cols)
}

// apply runs the epilogue on the block of C rows [i0, i0+mb), columns
// [j0, j0+nb); c is the whole of C.
func (e *Epilogue) apply(c []float32, ldc, i0, mb, j0, nb int) {
	var colBias []float32
	if e.ColBias != nil {
		colBias = e.ColBias[j0 : j0+nb]
	}
	if e.RowBias == nil && e.Act == ActNone {
		for i := i0; i < i0+mb; i++ {
			var res []float32
			if e.Residual != nil {
				res = e.Residual[i*e.LdR+j0 : i*e.LdR+j0+nb]
			}
			addRow(c[i*ldc+j0:i*ldc+j0+nb], colBias, res)
		}
		return
	}
	// Rows shorter than a vector (a GEMM's last one or two columns) go
	// straight to the scalar loop, which epilogueRow would reach only after
	// setting up its vectors.
	row := epilogueRow
	if nb < 4 {
		row = epilogueRowScalar
	}
	for i := i0; i < i0+mb; i++ {
		var bias float32
		if e.RowBias != nil {
			bias = e.RowBias[i]
		}
		var res []float32
		if e.Residual != nil {
			res = e.Residual[i*e.LdR+j0 : i*e.LdR+j0+nb]
		}
		row(c[i*ldc+j0:i*ldc+j0+nb], e.RowBias != nil, bias, colBias, res, e.Act, e.Alpha, e.Beta)
	}
}

// epilogueRowScalar is epilogueRow one element at a time: the additions in
// order (bias, column bias, residual), then the activation.
func epilogueRowScalar(x []float32, hasBias bool, bias float32, colBias, res []float32, act Act, al, be float32) {
	for i := range x {
		v := x[i]
		if hasBias {
			v += bias
		}
		if colBias != nil {
			v += colBias[i]
		}
		if res != nil {
			v += res[i]
		}
		x[i] = v
	}
	Activate(x, act, al, be)
}

// Activate applies act in place to x, with the float32 semantics of the
// matching ONNX operator in ops/elementwise.
func Activate(x []float32, act Act, alpha, beta float32) {
	switch act {
	case ActNone:
	case ActSigmoid:
		for i, v := range x {
			x[i] = Sigmoid32(v)
		}
	case ActTanh:
		for i, v := range x {
			x[i] = math32.Tanh(v)
		}
	default:
		if len(x) < 4 {
			activateScalar(x, act, alpha, beta)
			return
		}
		activateSimple(x, act, alpha, beta)
	}
}

// activateScalar is the reference loop for the piecewise-linear activations;
// the SIMD build vectorises them with the same comparisons.
func activateScalar(x []float32, act Act, al, be float32) {
	switch act {
	case ActRelu:
		for i, v := range x {
			if v < 0 {
				v = 0
			}
			x[i] = v
		}
	case ActLeakyRelu:
		for i, v := range x {
			if v < 0 {
				v *= al
			}
			x[i] = v
		}
	case ActClip:
		for i, v := range x {
			if v < al {
				v = al
			}
			if v > be {
				v = be
			}
			x[i] = v
		}
	case ActHardSigmoid:
		for i, v := range x {
			x[i] = max(0, min(1, al*v+be))
		}
	case ActHardSwish:
		for i, v := range x {
			x[i] = v * max(0, min(1, v/6+0.5))
		}
	}
}

// Sigmoid32 is ops/elementwise's float32 Sigmoid: it never exponentiates a
// positive number, so it cannot overflow.
func Sigmoid32(x float32) float32 {
	if x >= 0 {
		return 1 / (1 + math32.Exp(-x))
	}
	e := math32.Exp(x)
	return e / (1 + e)
}

func sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Activate64 applies act in place with the float64 semantics of the ONNX
// operators in ops/elementwise (for double-precision convolutions and GEMMs,
// which apply a fused epilogue as a separate pass).
func Activate64(x []float64, act Act, alpha, beta float32) {
	switch act {
	case ActRelu:
		for i, v := range x {
			x[i] = max(v, 0)
		}
	case ActLeakyRelu:
		a := float64(alpha)
		for i, v := range x {
			if v < 0 {
				v *= a
			}
			x[i] = v
		}
	case ActClip:
		lo, hi := float64(alpha), float64(beta)
		for i, v := range x {
			if v < lo {
				v = lo
			}
			if v > hi {
				v = hi
			}
			x[i] = v
		}
	case ActSigmoid:
		for i, v := range x {
			x[i] = sigmoid64(v)
		}
	case ActHardSigmoid:
		al, be := float64(alpha), float64(beta)
		for i, v := range x {
			x[i] = max(0, min(1, al*v+be))
		}
	case ActHardSwish:
		for i, v := range x {
			x[i] = v * max(0, min(1, v/6+0.5))
		}
	case ActTanh:
		for i, v := range x {
			x[i] = math.Tanh(v)
		}
	}
}
