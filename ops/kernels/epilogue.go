package kernels

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
