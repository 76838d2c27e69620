package printer

import (
	"fmt"
	"strings"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
)

// tensorValues lists a small attribute tensor's values: "{1, 2, 3}".
func tensorValues(t *pb.TensorProto) (string, error) {
	if t.GetDataLocation() == pb.TensorProto_EXTERNAL {
		return "", fmt.Errorf("external")
	}
	v, err := protoconv.Tensor(t, 1<<16)
	if err != nil {
		return "", err
	}
	var parts []string
	if f, err := v.Float64s(); err == nil {
		for _, x := range f {
			parts = append(parts, fmt.Sprint(x))
		}
	} else if ss, ok := v.Data().([]string); ok {
		for _, s := range ss {
			parts = append(parts, fmt.Sprintf("%q", s))
		}
	} else {
		return "", err
	}
	return "{" + strings.Join(parts, ", ") + "}", nil
}
