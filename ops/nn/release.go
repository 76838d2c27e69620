package nn

// releasingKernel is a fusing kernel that keeps its constant weights (input
// 1) in a form of its own (packed for the GEMM, Winograd-transformed), so
// that the plan may drop the constant (op.ConstReleaser): after release the
// kernel receives nil for input 1 and runs from its own form.
type releasingKernel struct {
	fusingKernel
	// release, when set, forgets every reference the kernel holds to the
	// constant weights; nil when the kernel keeps no form of its own.
	release func()
	// attrs are the parsed attributes the kernel exposes (op.AttrsKernel).
	attrs any
}

// Attrs implements op.AttrsKernel.
func (k releasingKernel) Attrs() any { return k.attrs }

// CanRelease implements op.ConstReleaser.
func (k releasingKernel) CanRelease(i int) bool { return i == 1 && k.release != nil }

// Release implements op.ConstReleaser.
func (k releasingKernel) Release(i int) {
	if k.CanRelease(i) {
		k.release()
	}
}
