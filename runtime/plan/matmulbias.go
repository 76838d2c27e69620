package plan

import (
	"slices"

	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/tensor"
)

// biasFuser is implemented by a MatMul kernel that accepts a third input: a
// constant bias of N values (one per output column) added in its output
// loop. ONNX's MatMul has two inputs; only this rewrite writes a third, and
// only for a kernel that says it takes one (a registry may replace MatMul).
type biasFuser interface{ FusesBias() bool }

// matMulBias folds the bias Add that follows a MatMul into the MatMul when
// A has rank ≥ 3 (rank 2 becomes a Gemm, matMulAddToGemm), B is a constant
// float32 matrix and the Add's other operand is a constant float32 of N
// values that broadcasts along the last axis only ([N], [1, N], [1, 1, N]…,
// never a rank above the output's). This is the transformer's projection
// y = x·W + b on x of shape [batch, seq, d]: the bias is then added in the
// GEMM's output loop, in the same float32 operation as the separate Add,
// and a following residual Add can fuse too (fuseActivations runs after).
func (c *compiler) matMulBias(w *workGraph, rep *Report) {
	idx := w.index()
	drop := map[*graph.Node]bool{}
	for _, mm := range w.nodes {
		if drop[mm] || mm.OpType != "MatMul" || mm.Domain != "" || mm.Builder == nil || mm.Fused != nil || len(mm.Inputs) != 2 || len(mm.Outputs) != 1 {
			continue
		}
		a, okA := w.shapeOf(mm.Inputs[0])
		b := w.constTensor(mm.Inputs[1])
		if !okA || len(a) < 3 || b == nil || b.Rank() != 2 || b.DType() != tensor.Float || w.dtypeOf(mm.Inputs[0]) != tensor.Float {
			continue
		}
		add := w.soleReader(idx, mm.Outputs[0])
		if add == nil || add.OpType != "Add" || add.Domain != "" || add.Builder == nil || add.Version < 7 || len(add.Inputs) != 2 || len(add.Outputs) != 1 {
			continue
		}
		cName := add.Inputs[1]
		if cName == mm.Outputs[0] {
			cName = add.Inputs[0]
		}
		bias := w.constTensor(cName)
		if bias == nil || bias.DType() != tensor.Float || !lastAxisBias(bias.Shape(), len(a), b.Shape()[1]) {
			continue
		}
		fused := *mm
		fused.Inputs = []string{mm.Inputs[0], mm.Inputs[1], cName}
		fused.Outputs = []string{add.Outputs[0]}
		fused.Reads = replaceUnique(append(slices.Clone(mm.Reads), cName), "", "")
		if !c.kernelTakesBias(&fused) {
			continue
		}
		w.replace(mm, &fused)
		drop[add] = true
		rep.Fused = append(rep.Fused, mm.Name+"+"+add.Name+" (bias Add fused into MatMul)")
	}
	w.remove(drop)
}

// lastAxisBias reports whether a constant of this shape, added to an output
// of the given rank whose last axis has n elements, is one value per column:
// n values on the last axis, every other axis 1, rank not above the output's.
func lastAxisBias(shape []int, rank, n int) bool {
	if len(shape) == 0 || len(shape) > rank || shape[len(shape)-1] != n {
		return false
	}
	for _, d := range shape[:len(shape)-1] {
		if d != 1 {
			return false
		}
	}
	return true
}

// kernelTakesBias builds the node's kernel (without constants, so nothing
// is packed) to ask whether it takes the bias input.
func (c *compiler) kernelTakesBias(n *graph.Node) bool {
	bf, ok := probeKernel(n, nil).(biasFuser)
	return ok && bf.FusesBias()
}
