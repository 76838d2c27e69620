package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gort-dev/gort/runtime"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

func marshal(t *testing.T, m *pb.ModelProto) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Same seed, same bytes; another seed, other weights.
func TestDeterministic(t *testing.T) {
	for _, s := range specs {
		a, _ := s.build()
		b, _ := s.build()
		if !bytes.Equal(marshal(t, a), marshal(t, b)) {
			t.Errorf("%s: two builds differ", s.name)
		}
	}
	a, _ := transformer(12, 32, 4, 2, 5)
	b, _ := transformer(12, 32, 4, 2, 6)
	if bytes.Equal(marshal(t, a), marshal(t, b)) {
		t.Error("transformer: seeds 5 and 6 give the same model")
	}
}

// The segmentation network has what issue 9 describes: ~120 Conv (some
// dilated), ~40 Resize linear half_pixel with sizes, MaxPool, Concat, float16
// weights cast before each conv, and 64×512×512 as its largest maps.
func TestU2NetShape(t *testing.T) {
	m, _ := u2net(1024, 101)
	count := map[string]int{}
	dilated, f16 := 0, 0
	for _, n := range m.Graph.Node {
		count[n.OpType]++
		for _, a := range n.Attribute {
			if n.OpType == "Conv" && a.Name == "dilations" && a.Ints[0] > 1 {
				dilated++
			}
			if n.OpType == "Resize" && a.Name == "mode" && string(a.S) != "linear" {
				t.Errorf("Resize %s: mode %s", n.Name, a.S)
			}
		}
		if n.OpType == "Resize" && (len(n.Input) != 4 || n.Input[3] == "" || n.Input[2] != "") {
			t.Errorf("Resize %s: inputs %q, want sizes only", n.Name, n.Input)
		}
	}
	for _, in := range m.Graph.Initializer {
		if in.DataType == int32(tensor.Float16) {
			f16++
		}
	}
	if count["Conv"] != 119 || count["Resize"] != 39 || count["MaxPool"] == 0 || count["Concat"] == 0 {
		t.Errorf("op counts %v", count)
	}
	if dilated < 10 || f16 != 2*count["Conv"] || count["Cast"] != 2*count["Conv"] {
		t.Errorf("%d dilated convs, %d float16 initializers, %d Cast for %d Conv", dilated, f16, count["Cast"], count["Conv"])
	}
	// The largest map: what the first (stride-2) conv makes of 1024×1024.
	u := &unet{graph: newGraph("probe", 0)}
	if y := u.conv(fmap{"x", 3, 1024}, 64, 3, 1, 2, true); y.c*y.h*y.h != 64*512*512 {
		t.Errorf("first conv gives %d×%d×%d", y.c, y.h, y.h)
	}
}

// Every generated architecture loads and runs in gort, and (where
// onnxruntime-node is installed, as tools/difftest/run.sh does) gives the
// same outputs as onnxruntime within float32 tolerance.
func TestAgainstOnnxruntime(t *testing.T) {
	haveORT := true
	if _, err := exec.LookPath("node"); err != nil {
		haveORT = false
	} else if _, err := os.Stat("../difftest/node_modules/onnxruntime-node"); err != nil {
		haveORT = false
	}
	if !haveORT && os.Getenv("GORT_REQUIRE_ORT") != "" {
		t.Fatal("GORT_REQUIRE_ORT is set but node or tools/difftest/node_modules/onnxruntime-node is missing (run tools/difftest/run.sh once)")
	}
	for _, c := range smallSpecs {
		t.Run(c.name, func(t *testing.T) {
			m, feeds := c.build()
			dir := t.TempDir()
			if _, err := write(dir, m, feeds); err != nil {
				t.Fatal(err)
			}
			s, err := runtime.Load(marshal(t, m), nil)
			if err != nil {
				t.Fatal(err)
			}
			in := map[string]tensor.Value{}
			for k, v := range feeds {
				in[k] = v
			}
			got, err := s.Run(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			// Finite and not flat: saturated activations would make the
			// comparison below vacuous.
			for name, v := range got {
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, x := range v.(*tensor.Tensor).F32() {
					if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
						t.Fatalf("%s: non-finite output", name)
					}
					lo, hi = min(lo, float64(x)), max(hi, float64(x))
				}
				if hi-lo < 1e-2*max(math.Abs(lo), math.Abs(hi)) {
					t.Errorf("%s: output nearly constant, in [%g, %g]", name, lo, hi)
				}
			}
			if !haveORT {
				t.Skip("gort runs it; no onnxruntime-node to compare with (run tools/difftest/run.sh once)")
			}
			out := filepath.Join(dir, "ort.json")
			cmd := exec.Command("node", "ort_run.mjs", dir, out)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("onnxruntime-node: %v\n%s", err, msg)
			}
			want := readORT(t, out)
			if len(want) != len(got) {
				t.Fatalf("onnxruntime gives %d outputs, gort %d", len(want), len(got))
			}
			for name, w := range want {
				g, ok := got[name]
				if !ok {
					t.Fatalf("gort has no output %q", name)
				}
				if err := close(g.(*tensor.Tensor), w, 1e-4, 1e-3); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		})
	}
}

type ortOut struct {
	dims []int
	data []float32
}

func readORT(t *testing.T, path string) map[string]ortOut {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j map[string]struct {
		Dims []int
		Data string
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		t.Fatal(err)
	}
	res := map[string]ortOut{}
	for k, v := range j {
		b, err := base64.StdEncoding.DecodeString(v.Data)
		if err != nil {
			t.Fatal(err)
		}
		f := make([]float32, len(b)/4)
		for i := range f {
			f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		res[k] = ortOut{v.Dims, f}
	}
	return res
}

// close reports the first element where |g-w| > atol + rtol·|w|, or a shape
// mismatch.
func close(g *tensor.Tensor, w ortOut, atol, rtol float64) error {
	if fmt.Sprint(g.Shape()) != fmt.Sprint(w.dims) {
		return fmt.Errorf("shape %v, onnxruntime %v", g.Shape(), w.dims)
	}
	for i, x := range g.F32() {
		y := float64(w.data[i])
		if d := math.Abs(float64(x) - y); !(d <= atol+rtol*math.Abs(y)) {
			return fmt.Errorf("element %d: gort %g, onnxruntime %g", i, x, y)
		}
	}
	return nil
}

// The comparison can fail: a perturbed output is caught.
func TestCloseCatchesDifferences(t *testing.T) {
	g := tensor.Of([]int{1, 3}, []float32{0.5, 1, -2})
	if err := close(g, ortOut{[]int{1, 3}, []float32{0.5, 1, -2}}, 1e-4, 1e-3); err != nil {
		t.Fatal(err)
	}
	if close(g, ortOut{[]int{1, 3}, []float32{0.5, 1.01, -2}}, 1e-4, 1e-3) == nil {
		t.Error("a 1% difference passed")
	}
	if close(g, ortOut{[]int{3, 1}, []float32{0.5, 1, -2}}, 1e-4, 1e-3) == nil {
		t.Error("a shape difference passed")
	}
	if close(tensor.Of([]int{1}, []float32{float32(math.NaN())}), ortOut{[]int{1}, []float32{0}}, 1e-4, 1e-3) == nil {
		t.Error("NaN passed")
	}
}

// The -tfjs folders: the same bytes from two builds, and the tokenizers'
// vocabularies within the models' vocab_size.
func TestTfjsDeterministic(t *testing.T) {
	a, b := tfjsModels(), tfjsModels()
	for i, m := range a {
		for path, v := range m.files {
			if mp, ok := v.(*pb.ModelProto); ok {
				if !bytes.Equal(marshal(t, mp), marshal(t, b[i].files[path].(*pb.ModelProto))) {
					t.Errorf("%s/%s: two builds differ", m.name, path)
				}
			}
		}
		cfg := m.files["config.json"].(map[string]any)
		vocab := m.files["tokenizer.json"].(map[string]any)["model"].(map[string]any)["vocab"].(map[string]int)
		if n := cfg["vocab_size"].(int); len(vocab) != n {
			t.Errorf("%s: tokenizer has %d tokens, config.json's vocab_size is %d", m.name, len(vocab), n)
		}
	}
}
