// Command gort runs and inspects ONNX models natively.
//
//	gort info model.onnx                 inputs, outputs, opsets, unsupported nodes
//	gort run  model.onnx [-data dir]     run with the test data set in dir (inputs
//	                                     input_<i>.pb, expected output_<i>.pb, compared
//	                                     with rtol 1e-3 / atol 1e-7) or random inputs
package main

import (
	"context"
	"flag"
	"fmt"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/compare"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

func main() {
	if len(os.Args) < 3 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "info":
		err = info(os.Args[2])
	case "run":
		fs := flag.NewFlagSet("run", flag.ExitOnError)
		data := fs.String("data", "", "test data directory (input_<i>.pb, output_<i>.pb)")
		repeat := fs.Int("repeat", 1, "number of timed runs")
		fs.Parse(os.Args[3:])
		err = run(os.Args[2], *data, *repeat)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gort:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: gort info model.onnx | gort run model.onnx [-data dir] [-repeat n]")
	os.Exit(2)
}

func load(path string) (*runtime.Session, time.Duration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	t0 := time.Now()
	s, err := runtime.Load(b, nil)
	return s, time.Since(t0), err
}

func info(path string) error {
	s, d, err := load(path)
	if err != nil {
		return err
	}
	m := s.Model()
	fmt.Printf("%s: IR %d, opsets %v, %d nodes, loaded in %v\n", path, m.IRVersion, m.Opsets, len(m.Graph.Nodes), d.Round(time.Microsecond))
	for _, in := range s.Inputs() {
		fmt.Printf("  input  %s: %s\n", in.Name, in.Type)
	}
	for _, in := range s.OverridableInitializers() {
		fmt.Printf("  input  %s: %s (initializer; a feed overrides it)\n", in.Name, in.Type)
	}
	for _, out := range s.Outputs() {
		fmt.Printf("  output %s: %s\n", out.Name, out.Type)
	}
	for _, p := range s.Unsupported() {
		fmt.Printf("  unsupported: %v\n", p)
	}
	return nil
}

func run(path, dataDir string, repeat int) error {
	s, loadTime, err := load(path)
	if err != nil {
		return err
	}
	feeds := map[string]tensor.Value{}
	// input_<i>.pb feeds the i-th input that is not an initializer, as in the ONNX backend runner.
	for i, in := range s.Inputs() {
		if dataDir != "" {
			b, err := os.ReadFile(filepath.Join(dataDir, fmt.Sprintf("input_%d.pb", i)))
			if err != nil {
				if os.IsNotExist(err) {
					continue
				}
				return err
			}
			v, err := protoconv.DecodeValue(b, protoconv.TensorValue, 0)
			if err != nil {
				return err
			}
			feeds[in.Name] = v
			continue
		}
		t, err := randomTensor(in)
		if err != nil {
			return err
		}
		feeds[in.Name] = t
	}
	var out map[string]tensor.Value
	var best time.Duration
	for r := 0; r < max(repeat, 1); r++ {
		t0 := time.Now()
		out, err = s.Run(context.Background(), feeds)
		if err != nil {
			return err
		}
		if d := time.Since(t0); r == 0 || d < best {
			best = d
		}
	}
	fmt.Printf("%s: loaded in %v, ran in %v (best of %d)\n", path, loadTime.Round(time.Microsecond), best.Round(time.Microsecond), max(repeat, 1))
	names := make([]string, 0, len(out))
	for k := range out {
		names = append(names, k)
	}
	sort.Strings(names)
	failed := 0
	for i, o := range s.Outputs() {
		t, ok := out[o.Name].(*tensor.Tensor)
		if !ok {
			fmt.Printf("  %s: %T\n", o.Name, out[o.Name])
			continue
		}
		fmt.Printf("  %s: %s%v checksum %.6g\n", o.Name, t.DType(), t.Shape(), checksum(t))
		if dataDir != "" {
			b, err := os.ReadFile(filepath.Join(dataDir, fmt.Sprintf("output_%d.pb", i)))
			if err != nil {
				continue
			}
			want, err := protoconv.DecodeValue(b, protoconv.TensorValue, 0)
			if err != nil {
				return err
			}
			if d := compare.Compare(t, want, compare.DefaultTolerance); d != "" {
				fmt.Printf("    MISMATCH with expected output: %s\n", d)
				failed++
			} else {
				fmt.Printf("    matches the expected output (rtol 1e-3, atol 1e-7)\n")
			}
		}
	}
	if failed > 0 {
		return errs.New(errs.Runtime, "%d outputs differ from the expected ones", failed)
	}
	return nil
}

// randomTensor makes a feed for a declared input: symbolic or unknown dims become 1.
func randomTensor(in runtime.IOInfo) (*tensor.Tensor, error) {
	if in.Type.Kind != graph.KindTensor {
		return nil, fmt.Errorf("input %q is a %s; random feeds are only made for tensors", in.Name, in.Type.Kind)
	}
	shape := make([]int, len(in.Type.Shape))
	for i, d := range in.Type.Shape {
		shape[i] = 1
		if d.Known() {
			shape[i] = int(d.Value)
		}
	}
	if _, ok := tensor.Size(shape); !ok {
		return nil, fmt.Errorf("input %q has an invalid shape %v", in.Name, shape)
	}
	t := tensor.New(in.Type.Elem, shape...)
	r := rand.New(rand.NewPCG(1, 2))
	switch d := t.Data().(type) {
	case []float32:
		for i := range d {
			d[i] = r.Float32()*2 - 1
		}
		// float16 and bfloat16 are stored as float32: hold them to values
		// of their own type, as a real feed would be (and as gort's JS CLI,
		// which must produce the same inputs, can only send them).
		tensor.RoundTo(in.Type.Elem, d)
	case []float64:
		for i := range d {
			d[i] = r.Float64()*2 - 1
		}
	case []int64:
		for i := range d {
			d[i] = r.Int64N(4)
		}
	case []int32:
		for i := range d {
			d[i] = r.Int32N(4)
		}
	case []bool:
		for i := range d {
			d[i] = r.IntN(2) == 1
		}
	}
	return t, nil
}

func checksum(t *tensor.Tensor) float64 {
	vals, err := t.Float64s()
	if err != nil {
		return 0
	}
	s := 0.0
	for _, v := range vals {
		s += v
	}
	return s
}
