package numeric

import "github.com/gort-dev/gort/runtime/tensor"

// isReal reports whether t holds float32/float16/bfloat16 or float64.
func isReal(t *tensor.Tensor) bool { return t.DType().IsFloat() || t.DType() == tensor.Double }
