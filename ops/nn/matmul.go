package nn

import (
	"slices"
	"sync"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// MatMul-1/9/13 differ only in the types allowed (9 adds integers, 13
// bfloat16). Gemm-1/6 carried a `broadcast` flag that 7 made the default;
// we always apply unidirectional broadcasting of C, which is what every
// valid older model asked for. Gemm-11 made C optional.
func init() {
	op.Register("MatMul", []int{1, 9, 13}, buildMatMul)
	shapes.Register("", "MatMul", shapes.MatMul)
	op.Register("Gemm", []int{1, 6, 7, 9, 11, 13}, buildGemm)
	shapes.Register("", "Gemm", inferGemm)
	op.Register("MatMulInteger", []int{10}, buildMatMulInteger)
	shapes.Register("", "MatMulInteger", shapes.MatMul)
	op.Register("QLinearMatMul", []int{10, 21}, buildQLinearMatMul)
	shapes.Register("", "QLinearMatMul", shapes.MatMulOf(0, 3))
}

// mmPlan is a numpy-style batched matmul: batch dims broadcast, 1-D
// operands promoted (and the promoted dim dropped from the output).
type mmPlan struct {
	m, k, n               int
	aBatch, bBatch, batch []int
	out                   []int
}

func planMatMul(as, bs []int) (*mmPlan, error) {
	if len(as) == 0 || len(bs) == 0 {
		return nil, op.Errorf("MatMul operands must have rank ≥ 1, got %v and %v", as, bs)
	}
	a, b := as, bs
	if len(a) == 1 {
		a = []int{1, a[0]}
	}
	if len(b) == 1 {
		b = []int{b[0], 1}
	}
	p := &mmPlan{m: a[len(a)-2], k: a[len(a)-1], n: b[len(b)-1]}
	if b[len(b)-2] != p.k {
		return nil, op.Errorf("MatMul inner dims differ: %v × %v", as, bs)
	}
	p.aBatch, p.bBatch = a[:len(a)-2], b[:len(b)-2]
	var err error
	if p.batch, err = opsutil.BroadcastShape(p.aBatch, p.bBatch); err != nil {
		return nil, err
	}
	p.out = append([]int(nil), p.batch...)
	if len(as) > 1 {
		p.out = append(p.out, p.m)
	}
	if len(bs) > 1 {
		p.out = append(p.out, p.n)
	}
	return p, nil
}

// run calls f for each output matrix with the element offsets of its A and B
// operands. When B is a single matrix shared by every batch entry and A's
// batches are contiguous, the whole batch is folded into one tall GEMM.
func (p *mmPlan) run(f func(m, aOff, bOff, cOff int)) {
	if opsutil.Product(p.bBatch) == 1 && slices.Equal(p.aBatch, p.batch) {
		f(p.m*opsutil.Product(p.batch), 0, 0, 0)
		return
	}
	opsutil.BroadcastIndex(p.aBatch, p.bBatch, p.batch, func(o, ia, ib int) {
		f(p.m, ia*p.m*p.k, ib*p.k*p.n, o*p.m*p.n)
	})
}

type intElem interface {
	~int32 | ~int64 | ~uint32 | ~uint64
}

// naiveMatMul is the integer path (Gemm/MatMul on int32/int64/uint32/uint64
// tensors, which are rare enough that a plain i-k-j loop suffices).
func naiveMatMul[T intElem](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		for p := 0; p < k; p++ {
			var av T
			if transA {
				av = a[p*lda+i]
			} else {
				av = a[i*lda+p]
			}
			av *= alpha
			if av == 0 {
				continue
			}
			for j := range row {
				if transB {
					row[j] += av * b[j*ldb+p]
				} else {
					row[j] += av * b[p*ldb+j]
				}
			}
		}
	}
}

// constB is a MatMul's or Gemm's constant float32 right operand (a fully
// connected layer's weights), and the decision of how the GEMM reads it:
//
//   - a run with at most kernels.GemvMaxM rows of A (batch 1) reads B in
//     place (kernels.SgemvB: bound by memory like the packed product, up
//     to a third slower; see kernels.GemvMaxM), so a
//     batch-1 session holds the weights once, as the model stores them
//     (float32 initializers alias the file's bytes). Packing them at load
//     made loading AlexNet, VGG-19 or ZFNet, whose fully connected weights
//     are most of the file, peak at twice the file.
//   - the first run with more rows packs B (kernels.PackB) and keeps the
//     packed copy for the session's life: packing per run instead costs
//     20–40 % at 8 to 128 rows (wasm SIMD, 768² to 9216×4096).
//
// The constant is never released to the plan (the kernels are not
// op.ConstReleaser): small runs read it.
type constB struct {
	src   *float32 // the constant's first element
	shape []int
	trans bool
	once  sync.Once // packs pb: concurrent first runs wait for one packing
	pb    *kernels.PackedB
}

// newConstB returns the constB for B when it is a non-empty constant
// float32 matrix (batch dimensions, if any, all 1), nil otherwise.
func newConstB(b *tensor.Tensor, trans bool) *constB {
	if b == nil || b.DType() != tensor.Float || b.Rank() == 0 || b.Len() == 0 {
		return nil
	}
	if s := b.Shape(); len(s) > 2 && opsutil.Product(s[:len(s)-2]) != 1 {
		return nil
	}
	return &constB{src: &b.F32()[0], shape: b.Shape(), trans: trans}
}

// is reports whether b is the constant (an overridable initializer may be
// replaced by a run's input).
func (c *constB) is(b *tensor.Tensor) bool {
	return c != nil && b != nil && b.DType() == tensor.Float && b.Len() > 0 && &b.F32()[0] == c.src
}

// inPlace reports whether a run with m rows of A reads b, the constant, in
// place.
func (c *constB) inPlace(b *tensor.Tensor, m int) bool { return m <= kernels.GemvMaxM && c.is(b) }

// packed returns the constant packed as op(B) (k×n), packing it on first
// use, or nil when b is not the constant.
func (c *constB) packed(b *tensor.Tensor, k, n int) *kernels.PackedB {
	if !c.is(b) {
		return nil
	}
	c.once.Do(func() {
		kk, nn := c.shape[0], 1
		if len(c.shape) >= 2 {
			kk, nn = c.shape[len(c.shape)-2], c.shape[len(c.shape)-1]
		}
		ldb := nn
		if c.trans {
			kk, nn = nn, kk
		}
		c.pb = kernels.PackB(c.trans, kk, nn, b.F32(), ldb)
	})
	if c.pb.K != k || c.pb.N != n {
		return nil
	}
	return c.pb
}

func buildMatMul(n *op.Node) (any, error) {
	f, err := parseFusion(n)
	if err != nil {
		return nil, err
	}
	cb := newConstB(n.ConstInput(1), false)
	var plans planCache[*mmPlan]
	return matMulKernel{fusingKernel{op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		in, r, err := f.split(in)
		if err != nil {
			return nil, err
		}
		if len(in) < 2 || len(in) > 3 {
			return nil, op.Errorf("MatMul needs two inputs (and a fused bias)")
		}
		a, b, bias := in[0], in[1], optIn(in, 2)
		if a == nil || b == nil || a.DType() != b.DType() {
			return nil, op.Errorf("MatMul needs two inputs of one dtype")
		}
		p, ok := plans.get(a.Shape(), b.Shape(), nil)
		if !ok {
			if p, err = planMatMul(a.Shape(), b.Shape()); err != nil {
				return nil, err
			}
			plans.put(a.Shape(), b.Shape(), nil, p)
		}
		if f != nil && !isFloatish(a.DType()) {
			return nil, op.Errorf("MatMul cannot fuse an epilogue on %s", a.DType())
		}
		if err := checkResidual(r, a.DType(), p.out); err != nil {
			return nil, err
		}
		if err := checkBias(bias, a.DType(), p); err != nil {
			return nil, err
		}
		y := ctx.New(a.DType(), p.out...)
		switch ad := a.Data().(type) {
		case []float32:
			bd, yd := b.F32(), y.F32()
			var ep *kernels.Epilogue
			var res []float32
			if f.inLoop(a.DType()) || bias != nil {
				ep = &kernels.Epilogue{LdR: p.n}
				res, ep.Act, ep.Alpha, ep.Beta = f.epilogue(r)
			}
			if bias != nil {
				ep.ColBias = bias.F32()
			}
			p.run(func(m, ao, bo, co int) {
				if ep != nil && res != nil {
					ep.Residual = res[co:]
				}
				if bo == 0 && cb.inPlace(b, m) {
					kernels.SgemvB(false, false, m, p.n, p.k, 1, ad[ao:], p.k, bd, p.n, 0, yd[co:], p.n, ep)
					return
				}
				if bo == 0 {
					if pb := cb.packed(b, p.k, p.n); pb != nil {
						kernels.SgemmPackedB(false, m, 1, ad[ao:], p.k, pb, 0, yd[co:], p.n, ep)
						return
					}
				}
				kernels.SgemmEpi(false, false, m, p.n, p.k, 1, ad[ao:], p.k, bd[bo:], p.n, 0, yd[co:], p.n, ep)
			})
			if !f.inLoop(a.DType()) {
				f.applySeparately(y, r)
			}
		case []float64:
			bd, yd := b.F64(), y.F64()
			p.run(func(m, ao, bo, co int) {
				kernels.Dgemm(false, false, m, p.n, p.k, 1, ad[ao:], p.k, bd[bo:], p.n, 0, yd[co:], p.n)
			})
			f.applySeparately(y, r)
		case []int32:
			intMatMul(p, ad, tensor.Data[int32](b), tensor.Data[int32](y))
		case []int64:
			intMatMul(p, ad, tensor.Data[int64](b), tensor.Data[int64](y))
		case []uint32:
			intMatMul(p, ad, tensor.Data[uint32](b), tensor.Data[uint32](y))
		case []uint64:
			intMatMul(p, ad, tensor.Data[uint64](b), tensor.Data[uint64](y))
		default:
			return nil, op.Errorf("MatMul does not support %s", a.DType())
		}
		return ctx.One(y), nil
	}), 1, 3}}, nil
}

// matMulKernel is MatMul's kernel. Besides the residual and activation
// epilogue (fusingKernel) it takes an optional third input that ONNX's
// MatMul does not have: a float32 bias, one value per output column, which
// the plan folds in from the Add that follows a projection x·W (runtime/plan
// matMulBias) so that the GEMM adds it in its output loop.
type matMulKernel struct{ fusingKernel }

// FusesBias tells the plan that this kernel takes the bias input.
func (matMulKernel) FusesBias() bool { return true }

// checkBias verifies a fused bias (nil: none): float32 like the output, N
// values on the last axis and 1 on every other, of rank at most the
// output's, so that adding it never broadcasts the output itself.
func checkBias(bias *tensor.Tensor, dt tensor.DType, p *mmPlan) error {
	if bias == nil {
		return nil
	}
	s := bias.Shape()
	ok := bias.DType() == tensor.Float && dt == tensor.Float && len(p.out) >= 2 && p.out[len(p.out)-1] == p.n &&
		len(s) >= 1 && len(s) <= len(p.out) && s[len(s)-1] == p.n && bias.Len() == p.n
	if !ok {
		return op.Errorf("MatMul's fused bias %s%v does not fit a %s output %v", bias.DType(), s, dt, p.out)
	}
	return nil
}

func intMatMul[T intElem](p *mmPlan, a, b, y []T) {
	p.run(func(m, ao, bo, co int) {
		naiveMatMul(false, false, m, p.n, p.k, 1, a[ao:], p.k, b[bo:], p.n, y[co:], p.n)
	})
}

// GemmAttrs are Gemm's attributes as its builder parsed them; the WebGPU
// kernel reads them from the CPU kernel (op.AttrsKernel).
type GemmAttrs struct {
	Alpha, Beta    float32
	TransA, TransB bool
}

func buildGemm(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	alpha := a.Float("alpha", 1)
	beta := a.Float("beta", 1)
	transA := a.Int("transA", 0) != 0
	transB := a.Int("transB", 0) != 0
	if a.Err != nil {
		return nil, a.Err
	}
	f, err := parseFusion(n)
	if err != nil {
		return nil, err
	}
	var cB *constB
	if b := n.ConstInput(1); b != nil && b.Rank() == 2 {
		cB = newConstB(b, transB)
	}
	var plans planCache[*gemmPlan]
	return attrsFusingKernel{fusingKernel{op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		in, r, err := f.split(in)
		if err != nil {
			return nil, err
		}
		if len(in) < 2 {
			return nil, op.Errorf("Gemm needs A and B")
		}
		A, B, C := in[0], in[1], optIn(in, 2)
		if A == nil || B == nil || A.Rank() != 2 || B.Rank() != 2 {
			return nil, op.Errorf("Gemm needs 2-D A and B")
		}
		bShape := B.Shape()
		if B.DType() != A.DType() || (C != nil && C.DType() != A.DType()) {
			return nil, op.Errorf("Gemm inputs must share a dtype")
		}
		if f != nil && !isFloatish(A.DType()) {
			return nil, op.Errorf("Gemm cannot fuse an epilogue on %s", A.DType())
		}
		var cShape []int
		if C != nil && beta != 0 {
			cShape = C.Shape()
			if cShape == nil {
				cShape = []int{} // a scalar C, told apart from no C
			}
		}
		p, ok := plans.get(A.Shape(), bShape, cShape)
		if !ok {
			if p, err = planGemm(A.Shape(), bShape, cShape, transA, transB); err != nil {
				return nil, err
			}
			plans.put(A.Shape(), bShape, cShape, p)
		}
		m, k, nn, lda, ldb, cs := p.m, p.k, p.n, p.lda, p.ldb, p.cs
		if err := checkResidual(r, A.DType(), p.out); err != nil {
			return nil, err
		}
		y := ctx.New(A.DType(), m, nn)
		switch ad := A.Data().(type) {
		case []float32:
			ep := &kernels.Epilogue{LdR: nn}
			cbeta := float32(0)
			switch {
			case cs == nil:
			case beta == 1 && C.Len() == nn && (len(cs) == 1 || len(cs) == 2 && cs[0] == 1) && nn > 1: // not a scalar C (cs = [])
				ep.ColBias = C.F32() // the usual fully connected bias
			case beta == 1 && len(cs) == 2 && cs[0] == m && cs[1] == 1 && m > 1:
				ep.RowBias = C.F32()
			default:
				cbeta = fillC(C, cs, y, m, nn, beta, func(t *tensor.Tensor) []float32 { return t.F32() })
			}
			if f.inLoop(A.DType()) {
				ep.Residual, ep.Act, ep.Alpha, ep.Beta = f.epilogue(r)
			}
			if cB.inPlace(B, m) {
				kernels.SgemvB(transA, transB, m, nn, k, alpha, ad, lda, B.F32(), ldb, cbeta, y.F32(), nn, ep)
			} else if pb := cB.packed(B, k, nn); pb != nil {
				kernels.SgemmPackedB(transA, m, alpha, ad, lda, pb, cbeta, y.F32(), nn, ep)
			} else {
				kernels.SgemmEpi(transA, transB, m, nn, k, alpha, ad, lda, B.F32(), ldb, cbeta, y.F32(), nn, ep)
			}
			if !f.inLoop(A.DType()) {
				f.applySeparately(y, r)
			}
		case []float64:
			cb := fillC(C, cs, y, m, nn, float64(beta), func(t *tensor.Tensor) []float64 { return t.F64() })
			kernels.Dgemm(transA, transB, m, nn, k, float64(alpha), ad, lda, B.F64(), ldb, cb, y.F64(), nn)
			f.applySeparately(y, r)
		case []int32:
			intGemm(transA, transB, m, nn, k, alpha, beta, ad, lda, tensor.Data[int32](B), ldb, C, cs, y)
		case []int64:
			intGemm(transA, transB, m, nn, k, alpha, beta, ad, lda, tensor.Data[int64](B), ldb, C, cs, y)
		case []uint32:
			intGemm(transA, transB, m, nn, k, alpha, beta, ad, lda, tensor.Data[uint32](B), ldb, C, cs, y)
		case []uint64:
			intGemm(transA, transB, m, nn, k, alpha, beta, ad, lda, tensor.Data[uint64](B), ldb, C, cs, y)
		default:
			return nil, op.Errorf("Gemm does not support %s", A.DType())
		}
		return ctx.One(y), nil
	}), 1, 3}, GemmAttrs{Alpha: alpha, Beta: beta, TransA: transA, TransB: transB}}, nil
}

// gemmPlan is a Gemm's dims worked out from its input shapes: op(A) m×k,
// op(B) k×n, and C's shape when it is used (nil otherwise).
type gemmPlan struct {
	m, k, n, lda, ldb int
	cs, out           []int
}

func planGemm(as, bs, cShape []int, transA, transB bool) (*gemmPlan, error) {
	p := &gemmPlan{m: as[0], k: as[1], lda: as[1], ldb: bs[1]}
	if transA {
		p.m, p.k = p.k, p.m
	}
	kb, n := bs[0], bs[1]
	if transB {
		kb, n = n, kb
	}
	if kb != p.k {
		return nil, op.Errorf("Gemm inner dims differ: A %v (transA=%v), B %v (transB=%v)", as, transA, bs, transB)
	}
	p.n, p.out = n, []int{p.m, n}
	if cShape != nil {
		p.cs = append([]int{}, cShape...) // non-nil even for a scalar C
		if len(p.cs) > 2 {
			return nil, op.Errorf("Gemm C of shape %v cannot broadcast to [%d %d]", p.cs, p.m, n)
		}
		if bs, err := opsutil.BroadcastShape(p.cs, p.out); err != nil || bs[0] != p.m || bs[1] != n {
			return nil, op.Errorf("Gemm C of shape %v cannot broadcast to [%d %d]", p.cs, p.m, n)
		}
	}
	return p, nil
}

// fillC writes beta·C broadcast over Y and returns the beta the GEMM must
// use: 1 if Y now holds the scaled C, 0 if there is no C.
func fillC[T kernels.Float](C *tensor.Tensor, cs []int, y *tensor.Tensor, m, n int, beta T, data func(*tensor.Tensor) []T) T {
	if cs == nil {
		return 0
	}
	cd, yd := data(C), data(y)
	broadcastInto(cd, cs, yd, m, n, func(v T) T { return beta * v })
	return 1
}

func broadcastInto[T any](cd []T, cs []int, yd []T, m, n int, f func(T) T) {
	full := append(make([]int, 2-len(cs)), cs...)
	for i := range full[:2-len(cs)] {
		full[i] = 1
	}
	rs, cst := 0, 0
	if full[0] != 1 {
		rs = full[1]
	}
	if full[1] != 1 {
		cst = 1
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			yd[i*n+j] = f(cd[i*rs+j*cst])
		}
	}
}

func intGemm[T intElem](transA, transB bool, m, n, k int, alpha, beta float32, a []T, lda int, b []T, ldb int, C *tensor.Tensor, cs []int, y *tensor.Tensor) {
	yd := tensor.Data[T](y)
	if cs != nil {
		bt := T(beta)
		broadcastInto(tensor.Data[T](C), cs, yd, m, n, func(v T) T { return bt * v })
	}
	naiveMatMul(transA, transB, m, n, k, T(alpha), a, lda, b, ldb, yd, n)
}

// quantMatMul returns the exact integer product (A - azp)(B - bzp) as an
// int32 tensor (MatMulInteger's output; QLinearMatMul requantizes it).
// Zero points may be per-tensor, per row of A (length M) or per column of
// B (length N), as MatMulInteger and QLinearMatMul allow. The operands
// minus their zero points are int16 (kernels.GemmI16), 2 bytes a value
// instead of the 16 of the float64 copies this used to make.
func quantMatMul(ctx *op.Context, a, azp, b, bzp *tensor.Tensor) (*tensor.Tensor, *mmPlan, error) {
	return quantMatMulPrepared(ctx, a, azp, b, bzp, nil)
}

// quantMatMulPrepared is quantMatMul running from q, the prepared B, when
// b is q's constant.
func quantMatMulPrepared(ctx *op.Context, a, azp, b, bzp *tensor.Tensor, q *quantWeights) (*tensor.Tensor, *mmPlan, error) {
	prepared := q.is(b)
	for _, t := range []*tensor.Tensor{a, b} {
		if t == nil || t.DType() != tensor.Uint8 && t.DType() != tensor.Int8 {
			return nil, nil, op.Errorf("quantized MatMul needs int8/uint8 A and B")
		}
	}
	p, err := planMatMul(a.Shape(), b.Shape())
	if err != nil {
		return nil, nil, err
	}
	az, err := quantZeroPoints(azp, a.DType(), p.m, "a_zero_point")
	if err != nil {
		return nil, nil, err
	}
	var bi []int16
	if prepared {
		bi = q.ws
	} else if bi, err = matMulBI16(b, bzp, p.n); err != nil {
		return nil, nil, err
	}
	ai := make([]int16, a.Len())
	if p.k > 0 {
		for r := range len(ai) / p.k { // the rows of every batch of A
			quantRow(ai[r*p.k:(r+1)*p.k], a, r*p.k, az[r%p.m%len(az)])
		}
	}
	y := ctx.New(tensor.Int32, p.out...)
	yd := y.I32()
	p.run(func(m, ao, bo, co int) {
		kernels.GemmI16(m, p.n, p.k, ai[ao:], p.k, bi[bo:], p.n, yd[co:], p.n)
	})
	return y, p, nil
}

// matMulBI16 returns B (n columns) minus its zero points (one, or one per
// column) as int16.
func matMulBI16(b, bzp *tensor.Tensor, n int) ([]int16, error) {
	bz, err := quantZeroPoints(bzp, b.DType(), n, "b_zero_point")
	if err != nil {
		return nil, err
	}
	bi := make([]int16, b.Len())
	quantRow(bi, b, 0, 0)
	if len(bz) > 1 || bz[0] != 0 {
		for i := range bi {
			bi[i] -= bz[i%n%len(bz)]
		}
	}
	return bi, nil
}

// prepareMatMulB prepares a constant B and its zero points (inputs bi and
// zi) once, or returns nil when they are fed at run time or malformed.
// The constant stays (B is small beside a convolution's activations, and
// the plan's checks read its shape).
func prepareMatMulB(n *op.Node, bi, zi int) *quantWeights {
	b := n.ConstInput(bi)
	bzp, ok := constOrAbsent(n, zi)
	if b == nil || !ok || b.Rank() == 0 || (b.DType() != tensor.Uint8 && b.DType() != tensor.Int8) {
		return nil
	}
	cols := 1
	if b.Rank() > 1 {
		cols = b.Shape()[b.Rank()-1]
	}
	ws, err := matMulBI16(b, bzp, cols)
	if err != nil {
		return nil
	}
	return &quantWeights{src: b, shape: b.Shape(), dt: b.DType(), ws: ws}
}

// quantRow writes t's values [off, off+len(dst)) minus zp into dst.
func quantRow(dst []int16, t *tensor.Tensor, off int, zp int16) {
	switch d := t.Data().(type) {
	case []uint8:
		kernels.SubZeroPoint(dst, d[off:off+len(dst)], zp)
	case []int8:
		kernels.SubZeroPoint(dst, d[off:off+len(dst)], zp)
	}
}

func buildMatMulInteger(n *op.Node) (any, error) {
	q := prepareMatMulB(n, 1, 3)
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		y, _, err := quantMatMulPrepared(ctx, in[0], optIn(in, 2), in[1], optIn(in, 3), q)
		if err != nil {
			return nil, err
		}
		return ctx.One(y), nil
	}), nil
}

func buildQLinearMatMul(n *op.Node) (any, error) {
	q := prepareMatMulB(n, 3, 5)
	// With constant scales and output zero point too, the per-column
	// multipliers (a per-tensor a_scale).
	var rq *requant
	if q != nil {
		in := make([]*tensor.Tensor, 8)
		ok := true
		for _, i := range []int{1, 4, 6, 7} {
			in[i] = n.ConstInput(i)
			ok = ok && in[i] != nil
		}
		if ok {
			cols := 1
			if len(q.shape) > 1 {
				cols = q.shape[len(q.shape)-1]
			}
			rq, _ = qmatmulRequant(in, cols)
		}
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 8 {
			return nil, op.Errorf("QLinearMatMul needs 8 inputs")
		}
		prepared := q.is(in[3])
		accT, p, err := quantMatMulPrepared(ctx, in[0], in[2], in[3], in[5], q)
		if err != nil {
			return nil, err
		}
		acc := accT.I32()
		r := rq
		if !prepared || r == nil {
			if r, err = qmatmulRequant(in, p.n); err != nil {
				return nil, err
			}
		}
		y := ctx.New(r.outDT, p.out...)
		if r.mult != nil {
			switch d := y.Data().(type) {
			case []uint8:
				requantCols(d, acc, r)
			case []int8:
				requantCols(d, acc, r)
			}
			return ctx.One(y), nil
		}
		// a_scale per row: the multiplier per element, as it was.
		as, _ := scaleValues(in[1], "a_scale")
		bs, _ := scaleValues(in[4], "b_scale")
		ys, _ := scaleValues(in[6], "y_scale")
		for i, v := range acc {
			row, col := (i/p.n)%p.m, i%p.n
			sc := as[row%len(as)] * bs[col%len(bs)] / ys[0]
			storeQuantized(y, i, float64(v)*sc+r.yz, r.lo, r.hi)
		}
		return ctx.One(y), nil
	}), nil
}

// qmatmulRequant reads QLinearMatMul's scales (inputs 1, 4, 6) and output
// zero point (7) for n columns; mult, per column, is set when a_scale is
// one value (as*bs[col]/ys, computed as each element's used to be).
func qmatmulRequant(in []*tensor.Tensor, n int) (*requant, error) {
	as, err := scaleValues(in[1], "a_scale")
	if err != nil {
		return nil, err
	}
	bs, err := scaleValues(in[4], "b_scale")
	if err != nil {
		return nil, err
	}
	ys, err := scaleValues(in[6], "y_scale")
	if err != nil {
		return nil, err
	}
	yz, err := zeroPoint(in[7], 1, "y_zero_point")
	if err != nil {
		return nil, err
	}
	if in[7] == nil {
		return nil, op.Errorf("QLinearMatMul needs y_zero_point")
	}
	lo, hi, ok := quantRange(in[7].DType())
	if !ok || in[7].DType() != tensor.Uint8 && in[7].DType() != tensor.Int8 {
		return nil, op.Errorf("QLinearMatMul output type %s is not int8/uint8", in[7].DType())
	}
	r := &requant{yz: yz[0], lo: lo, hi: hi, outDT: in[7].DType()}
	if len(as) == 1 {
		r.mult = make([]float64, n)
		for col := range r.mult {
			r.mult[col] = as[0] * bs[col%len(bs)] / ys[0]
		}
	}
	return r, nil
}

func inferGemm(c *shapes.Ctx) {
	a, b := c.Shape(0), c.Shape(1)
	if len(a) != 2 || len(b) != 2 {
		if a != nil && b != nil {
			c.Problem("RANK", "Gemm needs 2-D A and B, got %s and %s", shapes.ShapeString(a), shapes.ShapeString(b))
		}
		c.Set(0, nil, "")
		return
	}
	m, k1 := a[0], a[1]
	if c.AttrInt("transA", 0) != 0 {
		m, k1 = a[1], a[0]
	}
	k2, n := b[0], b[1]
	if c.AttrInt("transB", 0) != 0 {
		k2, n = b[1], b[0]
	}
	if shapes.IsKnown(k1) && shapes.IsKnown(k2) && k1.Value != k2.Value {
		c.Problem("MATMUL", "Gemm inner dimensions differ: %s and %s (transA=%d, transB=%d)", shapes.ShapeString(a), shapes.ShapeString(b), c.AttrInt("transA", 0), c.AttrInt("transB", 0))
	}
	out := []graph.Dim{m, n}
	if c.Has(2) {
		if cs := c.Shape(2); cs != nil {
			if _, ok := c.Broadcast(out, cs); !ok {
				return
			}
		}
	}
	c.Set(0, out, "")
}
