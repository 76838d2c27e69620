package kernels

// convVec is Conv for a pointwise convolution of a single pixel (the 1×1
// feature maps of squeeze-and-excitation blocks, after a global pool): per
// image and output channel one dot product of its weights with the input
// channels. The GEMM would pad the single output column to a full panel of
// NR and compute all of it.
func convVec(cw *ConvWeights, a *ConvArgs) error {
	cg, mg := a.C/cw.Group, cw.M/cw.Group
	ep := Epilogue{ColBias: a.Bias, Act: a.Act, Alpha: a.Alpha, Beta: a.Beta, LdR: cw.M}
	for n := 0; n < a.N; n++ {
		if a.Checkpoint != nil {
			if err := a.Checkpoint(); err != nil {
				return err
			}
		}
		y := a.Y[n*cw.M : (n+1)*cw.M]
		for g := 0; g < cw.Group; g++ {
			x := a.X[n*a.C+g*cg : n*a.C+(g+1)*cg]
			for m := g * mg; m < (g+1)*mg; m++ {
				y[m] = dot(cw.W[m*cg:(m+1)*cg], x)
			}
		}
		if a.Residual != nil {
			ep.Residual = a.Residual[n*cw.M : (n+1)*cw.M]
		}
		if ep.active() {
			ep.apply(y, cw.M, 0, 1, 0, cw.M)
		}
	}
	return nil
}
