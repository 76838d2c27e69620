package kernels

// convVec is Conv for a pointwise convolution of a single pixel (the 1×1
// feature maps of squeeze-and-excitation blocks, after a global pool), for
// output channels [lo, hi): per image and output channel one dot product
// of its weights with the input channels. The GEMM would pad the single
// output column to a full panel of NR and compute all of it.
func convVec(cw *ConvWeights, a *ConvArgs, lo, hi int) error {
	cg, mg := a.C/cw.Group, cw.M/cw.Group
	ep := Epilogue{Act: a.Act, Alpha: a.Alpha, Beta: a.Beta, LdR: cw.M}
	if a.Bias != nil {
		ep.ColBias = a.Bias[lo:hi]
	}
	for n := 0; n < a.N; n++ {
		if a.Checkpoint != nil {
			if err := a.Checkpoint(); err != nil {
				return err
			}
		}
		y := a.Y[n*cw.M+lo : n*cw.M+hi]
		for g := lo / mg; g*mg < hi; g++ {
			x := a.X[n*a.C+g*cg : n*a.C+(g+1)*cg]
			for m := max(lo, g*mg); m < min(hi, (g+1)*mg); m++ {
				y[m-lo] = dot(cw.W[m*cg:(m+1)*cg], x)
			}
		}
		if a.Residual != nil {
			ep.Residual = a.Residual[n*cw.M+lo : n*cw.M+hi]
		}
		if ep.active() {
			ep.apply(y, hi-lo, 0, 1, 0, hi-lo)
		}
	}
	return nil
}
