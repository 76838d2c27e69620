package random

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// source is a node's generator; kernels may run concurrently in different
// sessions' runs, so draws are serialised.
type source struct {
	mu sync.Mutex
	r  *rand.Rand
}

// newSource reads the optional float seed attribute. The seed's bits, not
// its value, key the stream so that 1.5 and 1.25 give different streams.
func newSource(n *op.Node) (*source, error) {
	seed, err := n.Float("seed", 0)
	if err != nil {
		return nil, err
	}
	var pcg *rand.PCG
	if n.Has("seed") {
		pcg = rand.NewPCG(uint64(math.Float32bits(seed)), 0x9e3779b97f4a7c15)
	} else {
		pcg = rand.NewPCG(rand.Uint64(), rand.Uint64())
	}
	return &source{r: rand.New(pcg)}, nil
}

// draw fills v from f with the lock held.
func (s *source) draw(v []float64, f func(r *rand.Rand) float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range v {
		v[i] = f(s.r)
	}
}

// floatDType validates a dtype attribute for the float-valued generators.
func floatDType(n *op.Node, def tensor.DType) (tensor.DType, error) {
	v, err := n.Int("dtype", int64(def))
	if err != nil {
		return 0, err
	}
	dt := tensor.DType(v)
	if !dt.IsFloat() && dt != tensor.Double {
		return 0, n.Errorf("dtype %s is not a float type", dt)
	}
	return dt, nil
}

// fill stores v into t of any numeric or bool dtype (bool: v != 0).
func fill(t *tensor.Tensor, v []float64) error {
	if err := tensor.StoreFloat64s(t, v); err != nil {
		return op.Errorf("output type %s is not supported", t.DType())
	}
	return nil
}
