package elementwise

import (
	"reflect"
	"testing"

	"github.com/gort-dev/gort/runtime/op"
)

// TestAllSpecVersions guards the promise that every since_version of these
// ops is implemented, so no model is refused for a missing version.
func TestAllSpecVersions(t *testing.T) {
	names := []string{"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Mean", "PRelu",
		"BitShift", "And", "Or", "Xor", "Not", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
		"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "Where", "Abs", "Neg", "Exp", "Log", "Sqrt",
		"Reciprocal", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
		"Cosh", "Asinh", "Acosh", "Atanh", "Erf", "IsNaN", "IsInf", "Relu", "Sigmoid", "Tanh", "LeakyRelu",
		"Elu", "Selu", "Celu", "HardSigmoid", "HardSwish", "Softplus", "Softsign", "Mish", "Gelu",
		"ThresholdedRelu", "Clip", "Swish", "Softmax", "LogSoftmax", "Hardmax", "Cast", "CastLike"}
	for _, n := range names {
		if got, want := op.Default.Versions("", n), op.SpecVersions("", n); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: registered %v, spec %v", n, got, want)
		}
	}
}
