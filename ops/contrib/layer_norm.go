package contrib

import (
	"maps"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
)

// LayerNormalization in com.microsoft: onnxruntime registers its
// LayerNormalization kernel there too (exported models from before ONNX
// opset 17 carry it), with the inputs, attributes (axis −1, epsilon 1e-5,
// stash_type 1) and outputs (Y, Mean?, InvStdDev?) of ONNX
// LayerNormalization-17. The node is built by ops/nn's LayerNormalization,
// so both compute with nn.NormRow.
func init() {
	op.Default.Register(Domain, "LayerNormalization", []int{1}, buildMSLayerNorm)
	shapes.Register(Domain, "LayerNormalization", inferMSLayerNorm)
}

func buildMSLayerNorm(n *op.Node) (any, error) {
	res := op.Default.Resolve("", "LayerNormalization", 17)
	if res.Builder == nil {
		return nil, n.Errorf("LayerNormalization: %s", res.Problem)
	}
	onnx := *n
	onnx.Domain, onnx.Version, onnx.Opset = "", res.Version, 17
	onnx.Attrs = maps.Clone(n.Attrs)
	return res.Builder(&onnx)
}

// inferMSLayerNorm: Y of X's shape and type; Mean and InvStdDev of X's
// shape with the normalised dims 1, float32 (float64 for float64 X).
func inferMSLayerNorm(c *shapes.Ctx) {
	x, statElem := normOutput(c)
	for i := 1; i <= 2; i++ {
		c.SetElem(i, statElem)
		if x == nil {
			c.Set(i, nil, "X's rank is unknown")
			continue
		}
		axis, ok := c.Axis(c.AttrInt("axis", -1), len(x))
		if !ok {
			return
		}
		c.Set(i, statShape(x, axis), "")
	}
}
