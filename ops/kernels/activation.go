package kernels

import (
	"math"

	"github.com/chewxy/math32"
)

// Act is an activation a GEMM or convolution applies in its output loop,
// and the standalone elementwise op of the same name computes.
type Act uint8

// The fusable activations, in the order of acts. Their parameters are
// Alpha and Beta with the meaning of the ONNX op's attributes (Clip's
// bounds, which are inputs from Clip-11, become Alpha and Beta).
const (
	ActNone Act = iota
	ActRelu
	ActClip
	ActLeakyRelu
	ActSigmoid
	ActHardSigmoid
	ActHardSwish
	ActTanh
	ActGelu     // Gelu, approximate = "none"
	ActGeluTanh // Gelu, approximate = "tanh"
	numActs
)

// actForm is everything gort knows about one fusable activation. It is
// the single description of it: the ONNX op (ops/elementwise) computes
// f32 and f64, the fused epilogues of Conv, ConvTranspose, Gemm, MatMul
// and BatchNormalization apply the same functions (or, for the
// piecewise-linear ones, vector loops tested bit for bit against them:
// activateSimple and the GEMM micro-kernel's tile store), and the WebGPU
// kernels paste wgsl into their shaders. A fused result is therefore bit
// for bit the result of the separate ops on the CPU.
//
// Adding an activation: a row here, and in its op's builder a kernel
// that declares it (ops/elementwise: activationKernel). The plan fuses
// any activation a kernel declares; the GPU accepts it, standalone and
// fused, when wgsl is set.
type actForm struct {
	// name is the op.Activation the plan records: the ONNX op type, and
	// "/variant" where an attribute selects another formula.
	name string
	// piecewise marks the activations activateSimple vectorises.
	piecewise bool
	f32       func(x, alpha, beta float32) float32
	f64       func(x, alpha, beta float64) float64
	// wgsl is the body of `fn act(v: f32) -> f32`, reading the parameters
	// as u.alpha and u.beta; "" when WebGPU has no form of it.
	wgsl string
}

var acts = [numActs]actForm{
	ActNone: {
		f32:  func(x, _, _ float32) float32 { return x },
		f64:  func(x, _, _ float64) float64 { return x },
		wgsl: "return v;",
	},
	ActRelu: {
		name: "Relu", piecewise: true,
		// x < 0 keeps NaN and −0, as the op's float32 loop does; the
		// float64 loop is max(x, 0), which turns −0 into +0.
		f32: func(x, _, _ float32) float32 {
			if x < 0 {
				return 0
			}
			return x
		},
		f64:  func(x, _, _ float64) float64 { return max(x, 0) },
		wgsl: "return max(v, 0.0);",
	},
	ActClip: {
		name: "Clip", piecewise: true,
		f32:  clip[float32],
		f64:  clip[float64],
		wgsl: "return min(max(v, u.alpha), u.beta);",
	},
	ActLeakyRelu: {
		name: "LeakyRelu", piecewise: true,
		f32:  leakyRelu[float32],
		f64:  leakyRelu[float64],
		wgsl: "if (v < 0.0) { return u.alpha * v; } return v;",
	},
	ActSigmoid: {
		name: "Sigmoid",
		f32:  func(x, _, _ float32) float32 { return Sigmoid32(x) },
		f64:  func(x, _, _ float64) float64 { return sigmoid64(x) },
		wgsl: "return 1.0 / (1.0 + exp(-v));",
	},
	ActHardSigmoid: {
		name: "HardSigmoid", piecewise: true,
		f32:  func(x, al, be float32) float32 { return max(0, min(1, al*x+be)) },
		f64:  func(x, al, be float64) float64 { return max(0, min(1, al*x+be)) },
		wgsl: "return max(0.0, min(1.0, u.alpha * v + u.beta));",
	},
	ActHardSwish: {
		name: "HardSwish", piecewise: true,
		f32:  func(x, _, _ float32) float32 { return x * max(0, min(1, x/6+0.5)) },
		f64:  func(x, _, _ float64) float64 { return x * max(0, min(1, x/6+0.5)) },
		wgsl: "return v * max(0.0, min(1.0, v / 6.0 + 0.5));",
	},
	ActTanh: {
		name: "Tanh",
		f32:  func(x, _, _ float32) float32 { return math32.Tanh(x) },
		f64:  func(x, _, _ float64) float64 { return math.Tanh(x) },
		wgsl: "return tanh(v);",
	},
	// Gelu is computed in float64 and rounded once, which keeps float32
	// within the conformance tolerance where erf and tanh flatten out.
	// WGSL has no erf: the shader uses Abramowitz and Stegun's 7.1.26
	// (|error| ≤ 1.5e-7), and clamps tanh's argument, whose exp-based
	// form overflows on some devices (tanh(±10) is ±1 in float32).
	ActGelu: {
		name: "Gelu",
		f32:  func(x, _, _ float32) float32 { return float32(gelu64(float64(x))) },
		f64:  func(x, _, _ float64) float64 { return gelu64(x) },
		wgsl: "let z = abs(v) * 0.70710678118654752; let t = 1.0 / (1.0 + 0.3275911 * z); " +
			"let e = 1.0 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-z * z); " +
			"return 0.5 * v * (1.0 + sign(v) * e);",
	},
	ActGeluTanh: {
		name: "Gelu/tanh",
		f32:  func(x, _, _ float32) float32 { return float32(geluTanh64(float64(x))) },
		f64:  func(x, _, _ float64) float64 { return geluTanh64(x) },
		wgsl: "return 0.5 * v * (1.0 + tanh(clamp(0.7978845608028654 * (v + 0.044715 * v * v * v), -10.0, 10.0)));",
	},
}

// clip is min(max(x, lo), hi) by comparisons, so that NaN stays NaN.
func clip[T float32 | float64](x, lo, hi T) T {
	if x < lo {
		x = lo
	}
	if x > hi {
		x = hi
	}
	return x
}

func leakyRelu[T float32 | float64](x, alpha, _ T) T {
	if x < 0 {
		return x * alpha
	}
	return x
}

func gelu64(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }

func geluTanh64(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

// ActNamed returns the activation an op.Activation names ("" is ActNone).
func ActNamed(name string) (Act, bool) {
	for a := range numActs {
		if acts[a].name == name {
			return a, true
		}
	}
	return ActNone, false
}

// Activations lists every activation of the table but ActNone.
func Activations() []Act {
	out := make([]Act, 0, numActs-1)
	for a := ActNone + 1; a < numActs; a++ {
		out = append(out, a)
	}
	return out
}

// String is the name the plan records (op.Activation).
func (a Act) String() string { return acts[a].name }

// F32 is the activation of one float32 value, as the op computes it.
func (a Act) F32(x, alpha, beta float32) float32 { return acts[a].f32(x, alpha, beta) }

// F64 is the activation of one float64 value, as the op computes it.
func (a Act) F64(x float64, alpha, beta float32) float64 {
	return acts[a].f64(x, float64(alpha), float64(beta))
}

// WGSL returns the body of a WGSL `fn act(v: f32) -> f32` reading the
// parameters as u.alpha and u.beta; false when there is none.
func (a Act) WGSL() (string, bool) { return acts[a].wgsl, acts[a].wgsl != "" }

// Activate applies act in place to x, with the float32 semantics of the
// matching ONNX operator in ops/elementwise.
func Activate(x []float32, act Act, alpha, beta float32) {
	switch {
	case act == ActNone:
	case acts[act].piecewise && len(x) >= 4:
		activateSimple(x, act, alpha, beta)
	case act == ActSigmoid:
		sigmoidSlice(x)
	default:
		activateScalar(x, act, alpha, beta)
	}
}

// activateScalar is the reference loop: the table's float32 function,
// one element at a time.
func activateScalar(x []float32, act Act, alpha, beta float32) {
	f := acts[act].f32
	for i, v := range x {
		x[i] = f(v, alpha, beta)
	}
}

// Activate64 applies act in place with the float64 semantics of the ONNX
// operators in ops/elementwise (for double-precision convolutions and GEMMs,
// which apply a fused epilogue as a separate pass).
func Activate64(x []float64, act Act, alpha, beta float32) {
	if act == ActNone {
		return
	}
	f, al, be := acts[act].f64, float64(alpha), float64(beta)
	for i, v := range x {
		x[i] = f(v, al, be)
	}
}
