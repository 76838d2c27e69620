package op

// ConstReleaser is implemented by kernels that keep, of some constant
// inputs, everything they need in a form of their own (weights packed for
// the GEMM, Winograd-transformed filters). Holding the constant as well would
// keep the weights twice for the session's life. At compile time the plan
// asks CanRelease for each constant input and, where no other step reads
// that constant, calls Release and drops it: from then on the kernel
// receives nil for that input and must not keep the constant reachable.
type ConstReleaser interface {
	CanRelease(i int) bool
	Release(i int)
}
