package webgpu

import (
	"fmt"
	"strings"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/op"
)

// The WGSL sources. Every kernel takes its shapes, strides, pads and float
// parameters (activation alpha/beta, extrapolation value) from the uniform
// buffer at binding 0, so a source depends only on the op, its
// attribute-chosen code paths and the ranks: one pipeline serves every
// shape. Float values never appear as literals (a decimal literal would
// round a float32 attribute twice); the literals that do appear (0.0,
// 1.0, 0.5, 6.0) are exact.

// prelude computes the flat invocation index i over a grid that may span
// two dimensions (more than maxComputeWorkgroupsPerDimension workgroups).
const prelude = `
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 64u;
  if (i >= u.total) { return; }
`

// actFn returns a WGSL function act(v) for a fused or standalone
// activation, reading its parameters from u.alpha and u.beta: the form
// written in ops/kernels' table of activations, beside the CPU's.
func actFn(a op.Activation) (string, error) {
	act, ok := kernels.ActNamed(string(a))
	body, hasWGSL := act.WGSL()
	if !ok || !hasWGSL {
		return "", fmt.Errorf("activation %q has no WGSL form", a)
	}
	return "fn act(v: f32) -> f32 { " + body + " }\n", nil
}

func bindings(names ...string) string {
	var b strings.Builder
	for i, n := range names {
		access := "read"
		if strings.HasPrefix(n, "out:") {
			n, access = n[4:], "read_write"
		}
		typ := "f32"
		if strings.HasPrefix(n, "i32:") {
			n, typ = n[4:], "i32"
		} else if strings.HasPrefix(n, "u32:") {
			n, typ = n[4:], "u32"
		}
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, %s> %s: array<%s>;\n", i+1, access, n, typ)
	}
	return b.String()
}

// geomFields are the uniform fields filled by geom.words.
const geomFields = `in0: i32, in1: i32, in2: i32, out0: i32, out1: i32, out2: i32,
  k0: i32, k1: i32, k2: i32, s0: i32, s1: i32, s2: i32, d0: i32, d1: i32, d2: i32,
  pb0: i32, pb1: i32, pb2: i32, pe0: i32, pe1: i32, pe2: i32,`

// convWGSL is a direct convolution, one output element per invocation:
// y = act(Σ x·w + bias [+ residual]). Groups (depthwise included),
// strides, dilations and begin pads come from the uniforms.
func convWGSL(act op.Activation, residual bool) (string, error) {
	af, err := actFn(act)
	if err != nil {
		return "", err
	}
	names := []string{"x", "w", "b", "out:y"}
	res := ""
	if residual {
		names = []string{"x", "w", "b", "r", "out:y"}
		res = " + r[i]"
	}
	return `struct U { total: u32, n: i32, c: i32, m: i32, cg: i32, mg: i32, alpha: f32, beta: f32,
  ` + geomFields + ` }
@group(0) @binding(0) var<uniform> u: U;
` + bindings(names...) + af + prelude + `
  var t = i32(i);
  let o2 = t % u.out2; t = t / u.out2;
  let o1 = t % u.out1; t = t / u.out1;
  let o0 = t % u.out0; t = t / u.out0;
  let oc = t % u.m; let nb = t / u.m;
  let g = oc / u.mg;
  let b0 = o0 * u.s0 - u.pb0; let b1 = o1 * u.s1 - u.pb1; let b2 = o2 * u.s2 - u.pb2;
  var acc = 0.0;
  for (var ci = 0; ci < u.cg; ci++) {
    let xc = (nb * u.c + g * u.cg + ci) * u.in0;
    let wc = (oc * u.cg + ci) * u.k0;
    for (var k0 = 0; k0 < u.k0; k0++) {
      let p0 = b0 + k0 * u.d0;
      if (p0 < 0 || p0 >= u.in0) { continue; }
      for (var k1 = 0; k1 < u.k1; k1++) {
        let p1 = b1 + k1 * u.d1;
        if (p1 < 0 || p1 >= u.in1) { continue; }
        let xrow = ((xc + p0) * u.in1 + p1) * u.in2;
        let wrow = ((wc + k0) * u.k1 + k1) * u.k2;
        for (var k2 = 0; k2 < u.k2; k2++) {
          let p2 = b2 + k2 * u.d2;
          if (p2 < 0 || p2 >= u.in2) { continue; }
          acc = acc + x[xrow + p2] * w[wrow + k2];
        }
      }
    }
  }
  y[i] = act(acc + b[oc]` + res + `);
}
`, nil
}

// convBlockWGSL is convWGSL with four consecutive output channels per
// invocation (for M/group divisible by 4): each input element loaded is
// used four times, and the per-channel loop overhead is paid once per
// four outputs.
func convBlockWGSL(act op.Activation, residual bool) (string, error) {
	af, err := actFn(act)
	if err != nil {
		return "", err
	}
	names := []string{"x", "w", "b", "out:y"}
	res := ""
	if residual {
		names = []string{"x", "w", "b", "r", "out:y"}
		res = " + r[o]"
	}
	return `struct U { total: u32, n: i32, c: i32, m: i32, cg: i32, mg: i32, alpha: f32, beta: f32,
  ` + geomFields + ` }
@group(0) @binding(0) var<uniform> u: U;
` + bindings(names...) + af + prelude + `
  var t = i32(i);
  let o2 = t % u.out2; t = t / u.out2;
  let o1 = t % u.out1; t = t / u.out1;
  let o0 = t % u.out0; t = t / u.out0;
  let m4 = u.m / 4;
  let oc = (t % m4) * 4; let nb = t / m4;
  let g = oc / u.mg;
  let ws = u.cg * u.k0 * u.k1 * u.k2;
  let b0 = o0 * u.s0 - u.pb0; let b1 = o1 * u.s1 - u.pb1; let b2 = o2 * u.s2 - u.pb2;
  var acc = vec4<f32>(0.0, 0.0, 0.0, 0.0);
  for (var ci = 0; ci < u.cg; ci++) {
    let xc = (nb * u.c + g * u.cg + ci) * u.in0;
    let wc = (oc * u.cg + ci) * u.k0;
    for (var k0 = 0; k0 < u.k0; k0++) {
      let p0 = b0 + k0 * u.d0;
      if (p0 < 0 || p0 >= u.in0) { continue; }
      for (var k1 = 0; k1 < u.k1; k1++) {
        let p1 = b1 + k1 * u.d1;
        if (p1 < 0 || p1 >= u.in1) { continue; }
        let xrow = ((xc + p0) * u.in1 + p1) * u.in2;
        let wrow = ((wc + k0) * u.k1 + k1) * u.k2;
        for (var k2 = 0; k2 < u.k2; k2++) {
          let p2 = b2 + k2 * u.d2;
          if (p2 < 0 || p2 >= u.in2) { continue; }
          let wi = wrow + k2;
          acc = acc + x[xrow + p2] * vec4<f32>(w[wi], w[wi + ws], w[wi + 2 * ws], w[wi + 3 * ws]);
        }
      }
    }
  }
  let osz = u.out0 * u.out1 * u.out2;
  let base = (nb * u.m + oc) * osz + (o0 * u.out1 + o1) * u.out2 + o2;
  for (var j = 0; j < 4; j++) {
    let o = base + j * osz;
    y[o] = act(acc[j] + b[oc + j]` + res + `);
  }
}
`, nil
}

// convTransposeWGSL gathers, for each output element, the input elements
// whose scattered taps land on it: y[o] += x[i]·w[k] where
// o + pb = i·s + k·d. W is (C, M/group, k...).
func convTransposeWGSL(act op.Activation, block bool) (string, error) {
	af, err := actFn(act)
	if err != nil {
		return "", err
	}
	// block: four consecutive output channels of one group per
	// invocation (M/group divisible by 4), as convBlockWGSL.
	head := `  let oc = t % u.m; let nb = t / u.m;
  var acc = 0.0;`
	mac := `acc = acc + x[xrow + j2 / u.s2] * w[wrow + k2];`
	tail := `  y[i] = act(acc + b[oc]);`
	if block {
		head = `  let m4 = u.m / 4;
  let oc = (t % m4) * 4; let nb = t / m4;
  let ks = u.k0 * u.k1 * u.k2;
  var acc = vec4<f32>(0.0, 0.0, 0.0, 0.0);`
		mac = `let wi = wrow + k2;
          acc = acc + x[xrow + j2 / u.s2] * vec4<f32>(w[wi], w[wi + ks], w[wi + 2 * ks], w[wi + 3 * ks]);`
		tail = `  let osz = u.out0 * u.out1 * u.out2;
  let base = (nb * u.m + oc) * osz + (o0 * u.out1 + o1) * u.out2 + o2;
  for (var j = 0; j < 4; j++) { y[base + j * osz] = act(acc[j] + b[oc + j]); }`
	}
	return `struct U { total: u32, n: i32, c: i32, m: i32, cg: i32, mg: i32, alpha: f32, beta: f32,
  ` + geomFields + ` }
@group(0) @binding(0) var<uniform> u: U;
` + bindings("x", "w", "b", "out:y") + af + prelude + `
  var t = i32(i);
  let o2 = t % u.out2; t = t / u.out2;
  let o1 = t % u.out1; t = t / u.out1;
  let o0 = t % u.out0; t = t / u.out0;
` + head + `
  let g = oc / u.mg; let ocg = oc % u.mg;
  for (var ci = 0; ci < u.cg; ci++) {
    let ch = g * u.cg + ci;
    let xc = (nb * u.c + ch) * u.in0;
    let wc = (ch * u.mg + ocg) * u.k0;
    for (var k0 = 0; k0 < u.k0; k0++) {
      let j0 = o0 + u.pb0 - k0 * u.d0;
      if (j0 < 0 || j0 % u.s0 != 0 || j0 / u.s0 >= u.in0) { continue; }
      for (var k1 = 0; k1 < u.k1; k1++) {
        let j1 = o1 + u.pb1 - k1 * u.d1;
        if (j1 < 0 || j1 % u.s1 != 0 || j1 / u.s1 >= u.in1) { continue; }
        let xrow = ((xc + j0 / u.s0) * u.in1 + j1 / u.s1) * u.in2;
        let wrow = ((wc + k0) * u.k1 + k1) * u.k2;
        for (var k2 = 0; k2 < u.k2; k2++) {
          let j2 = o2 + u.pb2 - k2 * u.d2;
          if (j2 < 0 || j2 % u.s2 != 0 || j2 / u.s2 >= u.in2) { continue; }
          ` + mac + `
        }
      }
    }
  }
` + tail + `
}
`, nil
}

// poolWGSL is MaxPool or AveragePool over (N·C) planes. Average counts
// the taps inside the input, plus (count_include_pad) those in the
// explicit padding but not those past it (ceil_mode overhang), as the CPU
// kernel does; a max window with no tap inside the input is u.low
// (-Inf, passed as bits: it has no WGSL literal).
func poolWGSL(max bool) string {
	body := `
      let v = x[xrow + p2];
      if (!found || v > best) { best = v; found = true; }`
	final := `  if (!found) { best = u.low; }
  y[i] = best;`
	if !max {
		body = `
      sum = sum + x[xrow + p2]; cnt = cnt + 1;`
		final = `  if (cnt > 0) { y[i] = sum / f32(cnt); } else { y[i] = 0.0; }`
	}
	return `struct U { total: u32, incpad: i32, low: f32, pad1: i32,
  ` + geomFields + ` }
@group(0) @binding(0) var<uniform> u: U;
` + bindings("x", "out:y") + `
fn inpad(p: i32, n: i32, pb: i32, pe: i32) -> bool { return p >= -pb && p < n + pe; }
` + prelude + `
  var t = i32(i);
  let o2 = t % u.out2; t = t / u.out2;
  let o1 = t % u.out1; t = t / u.out1;
  let o0 = t % u.out0; t = t / u.out0;
  let plane = t * u.in0;
  let b0 = o0 * u.s0 - u.pb0; let b1 = o1 * u.s1 - u.pb1; let b2 = o2 * u.s2 - u.pb2;
  var best = 0.0; var found = false; var sum = 0.0; var cnt = 0;
  for (var k0 = 0; k0 < u.k0; k0++) {
    let p0 = b0 + k0 * u.d0;
    let ok0 = p0 >= 0 && p0 < u.in0;
    let pad0 = inpad(p0, u.in0, u.pb0, u.pe0);
    for (var k1 = 0; k1 < u.k1; k1++) {
      let p1 = b1 + k1 * u.d1;
      let ok1 = ok0 && p1 >= 0 && p1 < u.in1;
      let pad1 = pad0 && inpad(p1, u.in1, u.pb1, u.pe1);
      let xrow = ((plane + p0) * u.in1 + p1) * u.in2;
      for (var k2 = 0; k2 < u.k2; k2++) {
        let p2 = b2 + k2 * u.d2;
        if (!ok1 || p2 < 0 || p2 >= u.in2) {
          if (u.incpad != 0 && pad1 && inpad(p2, u.in2, u.pb2, u.pe2)) { cnt = cnt + 1; }
          continue;
        }` + body + `
      }
    }
  }
` + final + `
}
`
}

// binaryWGSL is a broadcasting elementwise a OP b for outputs of the
// given rank: per dim the uniforms hold the output extent and each
// input's stride (0 where it broadcasts).
func binaryWGSL(opSym string, rank int) string {
	var f, idx strings.Builder
	for d := 0; d < rank; d++ {
		fmt.Fprintf(&f, " d%d: u32, a%d: u32, b%d: u32,", d, d, d)
	}
	for d := rank - 1; d >= 0; d-- {
		fmt.Fprintf(&idx, "  { let c = t %% u.d%d; t = t / u.d%d; ia = ia + c * u.a%d; ib = ib + c * u.b%d; }\n", d, d, d, d)
	}
	return `struct U { total: u32,` + f.String() + ` }
@group(0) @binding(0) var<uniform> u: U;
` + bindings("a", "b", "out:y") + prelude + `
  var t = i; var ia = 0u; var ib = 0u;
` + idx.String() + `  y[i] = a[ia] ` + opSym + ` b[ib];
}
`
}

// unaryWGSL applies an activation elementwise.
func unaryWGSL(act op.Activation) (string, error) {
	af, err := actFn(act)
	if err != nil {
		return "", err
	}
	return `struct U { total: u32, alpha: f32, beta: f32 }
@group(0) @binding(0) var<uniform> u: U;
` + bindings("x", "out:y") + af + prelude + `
  y[i] = act(x[i]);
}
`, nil
}

// concatWGSL copies one input into its slab of the output: the input is
// outer × seg elements (seg = its axis length × inner), written at offset
// off of each outer row of length row.
const concatWGSL = `struct U { total: u32, seg: u32, row: u32, off: u32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
` + prelude + `
  y[(i / u.seg) * u.row + u.off + i % u.seg] = x[i];
}
`

// resampleWGSL runs one axis of a resampling plan (ops/resample.AxisPlan):
// output index o along the axis reads taps source indices idx[o·taps+k]
// weighted by wt[o·taps+k]. The first tap starts the sum, so a
// nearest-mode tap (weight 1) copies its element bit for bit, -0 included.
// Indices flagged outside (tf_crop_and_resize) take the extrapolation
// value.
const resampleWGSL = `struct U { total: u32, inN: u32, outN: u32, inner: u32, taps: u32, hasOut: u32, extrap: f32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> idx: array<i32>;
@group(0) @binding(3) var<storage, read> wt: array<f32>;
@group(0) @binding(4) var<storage, read> outside: array<u32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
` + prelude + `
  let inn = i % u.inner;
  let t = i / u.inner;
  let o = t % u.outN;
  let base = (t / u.outN) * u.inN * u.inner + inn;
  if (u.hasOut != 0u && outside[o] != 0u) { y[i] = u.extrap; return; }
  let r = o * u.taps;
  var acc = wt[r] * x[base + u32(idx[r]) * u.inner];
  for (var k = 1u; k < u.taps; k++) {
    acc = acc + wt[r + k] * x[base + u32(idx[r + k]) * u.inner];
  }
  y[i] = acc;
}
`

// affineWGSL is y = act(x·a[c] + b[c] [+ r]) over channel axis c
// (inference BatchNormalization with a and b folded from its constants at
// build, and the epilogue the plan fused into it: DenseNet's BN→Relu).
func affineWGSL(act op.Activation, residual bool) (string, error) {
	af, err := actFn(act)
	if err != nil {
		return "", err
	}
	names, res := []string{"x", "a", "b"}, ""
	if residual {
		names, res = append(names, "r"), " + r[i]"
	}
	return `struct U { total: u32, c: u32, inner: u32, alpha: f32, beta: f32 }
@group(0) @binding(0) var<uniform> u: U;
` + bindings(append(names, "out:y")...) + af + prelude + `
  let c = (i / u.inner) % u.c;
  y[i] = act(x[i] * a[c] + b[c]` + res + `);
}
`, nil
}

// softmaxWGSL normalises one row (n elements, stride inner) per
// invocation: max, then Σ exp(x - max), then the quotients.
const softmaxWGSL = `struct U { total: u32, n: u32, inner: u32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
` + prelude + `
  let base = (i / u.inner) * u.n * u.inner + i % u.inner;
  var m = x[base];
  for (var k = 1u; k < u.n; k++) { m = max(m, x[base + k * u.inner]); }
  var s = 0.0;
  for (var k = 0u; k < u.n; k++) { s = s + exp(x[base + k * u.inner] - m); }
  for (var k = 0u; k < u.n; k++) { y[base + k * u.inner] = exp(x[base + k * u.inner] - m) / s; }
}
`

// matmulParts returns what matmulWGSL and matmulTiledWGSL share: the
// uniform struct, bindings and act function (head), the unrolled batch
// indexing of ia and ib from t (idx) and the terms added to the product
// (cterm): Gemm's C (or MatMul's fused bias), then the fused residual, read
// at the output index o that each kernel defines.
func matmulParts(batch int, act op.Activation, hasC, residual bool) (head, idx, cterm string, err error) {
	af, err := actFn(act)
	if err != nil {
		return "", "", "", err
	}
	var f, ix strings.Builder
	for d := 0; d < batch; d++ {
		fmt.Fprintf(&f, " d%d: u32, a%d: u32, b%d: u32,", d, d, d)
	}
	for d := batch - 1; d >= 0; d-- {
		fmt.Fprintf(&ix, "  { let c = t %% u.d%d; t = t / u.d%d; ia = ia + c * u.a%d; ib = ib + c * u.b%d; }\n", d, d, d, d)
	}
	names := []string{"a", "b"}
	if hasC {
		names = append(names, "cc")
		cterm = " + u.gbeta * cc[row * u.cm + col * u.cn]"
	}
	if residual {
		// The fused residual (op.Fusion): the output's shape, read at the
		// output's index o, added after C as the CPU's epilogue adds it.
		names = append(names, "r")
		cterm += " + r[o]"
	}
	names = append(names, "out:y")
	head = `struct U { total: u32, m: u32, n: u32, k: u32, am: u32, ak: u32, bk: u32, bn: u32, cm: u32, cn: u32, alpha: f32, beta: f32, galpha: f32, gbeta: f32,` + f.String() + ` }
@group(0) @binding(0) var<uniform> u: U;
` + bindings(names...) + af
	return head, ix.String(), cterm, nil
}

// matmulWGSL is a batched matrix product, one output element per
// invocation: y[b, i, j] = act(α·Σ_k A[b, i, k]·B[b, k, j] + β·C[i, j])
// (Gemm's α and β are galpha and gbeta; alpha and beta are the fused
// activation's).
// A and B are addressed through strides (so transA/transB and batch
// broadcasting are strides, 0 where a batch dim broadcasts); batch dims
// are unrolled per rank. Gemm's C is bound only when hasC.
func matmulWGSL(batch int, act op.Activation, hasC, residual bool) (string, error) {
	head, idx, cterm, err := matmulParts(batch, act, hasC, residual)
	if err != nil {
		return "", err
	}
	return head + prelude + `
  let col = i % u.n;
  let row = (i / u.n) % u.m;
  var t = i / (u.n * u.m); var ia = 0u; var ib = 0u;
` + idx + `  ia = ia + row * u.am;
  ib = ib + col * u.bn;
  var acc = 0.0;
  for (var k = 0u; k < u.k; k++) { acc = acc + a[ia + k * u.ak] * b[ib + k * u.bk]; }
  let o = i;
  y[o] = act(u.galpha * acc` + cterm + `);
}
`, nil
}

// tile is the edge of the tiled matrix product's square workgroup.
const tile = 16

// matmulTiledWGSL computes the same products as matmulWGSL with a 16×16
// workgroup per 16×16 block of outputs, staging 16-wide slices of A and B
// in workgroup memory; workgroup z is the batch index. The k-sum runs in
// the same order as matmulWGSL's (zero padding adds +0), so both give the
// same bits.
func matmulTiledWGSL(batch int, act op.Activation, hasC, residual bool) (string, error) {
	head, idx, cterm, err := matmulParts(batch, act, hasC, residual)
	if err != nil {
		return "", err
	}
	return head + `
var<workgroup> ta: array<f32, 256>;
var<workgroup> tb: array<f32, 256>;
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let row = wg.y * 16u + lid.y;
  let col = wg.x * 16u + lid.x;
  var t = wg.z; var ia = 0u; var ib = 0u;
` + idx + `  var acc = 0.0;
  for (var k0 = 0u; k0 < u.k; k0 = k0 + 16u) {
    let ka = k0 + lid.x;
    if (row < u.m && ka < u.k) { ta[lid.y * 16u + lid.x] = a[ia + row * u.am + ka * u.ak]; } else { ta[lid.y * 16u + lid.x] = 0.0; }
    let kb = k0 + lid.y;
    if (kb < u.k && col < u.n) { tb[lid.y * 16u + lid.x] = b[ib + kb * u.bk + col * u.bn]; } else { tb[lid.y * 16u + lid.x] = 0.0; }
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk++) { acc = acc + ta[lid.y * 16u + kk] * tb[kk * 16u + lid.x]; }
    workgroupBarrier();
  }
  if (row < u.m && col < u.n) {
    let o = (wg.z * u.m + row) * u.n + col;
    y[o] = act(u.galpha * acc` + cterm + `);
  }
}
`, nil
}

// convTiledWGSL is Conv as an implicit GEMM: per group, Y (M/group × out
// positions) = W (M/group × C/group·k) · im2col(X), in 16×16 workgroup
// tiles like matmulTiledWGSL, the im2col matrix gathered from X while
// its tile is staged (padding reads as 0). Workgroup z is (batch, group).
// The k-sum runs in the direct kernel's order (channel, then kernel
// taps), so both give the same values.
func convTiledWGSL(act op.Activation, residual bool) (string, error) {
	af, err := actFn(act)
	if err != nil {
		return "", err
	}
	names := []string{"x", "w", "b", "out:y"}
	res := ""
	if residual {
		names = []string{"x", "w", "b", "r", "out:y"}
		res = " + r[o]"
	}
	return `struct U { total: u32, n: i32, c: i32, m: i32, cg: i32, mg: i32, alpha: f32, beta: f32,
  ` + geomFields + ` kk: i32, osz: i32, group: i32 }
@group(0) @binding(0) var<uniform> u: U;
` + bindings(names...) + af + `
var<workgroup> ta: array<f32, 256>;
var<workgroup> tb: array<f32, 256>;
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let lx = i32(lid.x); let ly = i32(lid.y);
  let row = i32(wg.y) * 16 + ly;
  let col = i32(wg.x) * 16 + lx;
  let g = i32(wg.z) % u.group; let nb = i32(wg.z) / u.group;
  // The output position this invocation stages B for (column lx).
  let bcol = col;
  let c2 = bcol % u.out2; let c1 = (bcol / u.out2) % u.out1; let c0 = bcol / (u.out2 * u.out1);
  let b0 = c0 * u.s0 - u.pb0; let b1 = c1 * u.s1 - u.pb1; let b2 = c2 * u.s2 - u.pb2;
  let taps = u.k0 * u.k1 * u.k2;
  var acc = 0.0;
  for (var k0 = 0; k0 < u.kk; k0 = k0 + 16) {
    let ka = k0 + lx;
    if (row < u.mg && ka < u.kk) { ta[ly * 16 + lx] = w[(g * u.mg + row) * u.kk + ka]; } else { ta[ly * 16 + lx] = 0.0; }
    let kb = k0 + ly;
    var v = 0.0;
    if (kb < u.kk && bcol < u.osz) {
      let ci = kb / taps; let q = kb % taps;
      let q2 = q % u.k2; let q1 = (q / u.k2) % u.k1; let q0 = q / (u.k2 * u.k1);
      let p0 = b0 + q0 * u.d0; let p1 = b1 + q1 * u.d1; let p2 = b2 + q2 * u.d2;
      if (p0 >= 0 && p0 < u.in0 && p1 >= 0 && p1 < u.in1 && p2 >= 0 && p2 < u.in2) {
        v = x[(((nb * u.c + g * u.cg + ci) * u.in0 + p0) * u.in1 + p1) * u.in2 + p2];
      }
    }
    tb[ly * 16 + lx] = v;
    workgroupBarrier();
    for (var kk = 0; kk < 16; kk++) { acc = acc + ta[ly * 16 + kk] * tb[kk * 16 + lx]; }
    workgroupBarrier();
  }
  if (row < u.mg && col < u.osz) {
    let oc = g * u.mg + row;
    let o = (nb * u.m + oc) * u.osz + col;
    y[o] = act(acc + b[oc]` + res + `);
  }
}
`, nil
}
