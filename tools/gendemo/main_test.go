package main

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gort-dev/gort"
	"github.com/gort-dev/gort/runtime/compare"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The committed demo/model files are exactly what the generator writes
// (the PNG is compared by pixels: its zlib stream may change with Go).
func TestCommittedFilesAreReproducible(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", "demo", "model", name))
		if err != nil {
			t.Fatalf("%s: %v (run go run ./tools/gendemo)", name, err)
		}
		if name == "sample.png" {
			if err := samePixels(got, want); err != nil {
				t.Errorf("demo/model/%s: %v (run go run ./tools/gendemo)", name, err)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("demo/model/%s differs from the generator's output (run go run ./tools/gendemo)", name)
		}
	}
}

// samePixels reports whether two PNG files hold the same image.
func samePixels(a, b []byte) error {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if ia.Bounds() != ib.Bounds() {
		return fmt.Errorf("size %v, want %v", ia.Bounds(), ib.Bounds())
	}
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if color.NRGBAModel.Convert(ia.At(x, y)) != color.NRGBAModel.Convert(ib.At(x, y)) {
				return fmt.Errorf("pixel (%d, %d) differs", x, y)
			}
		}
	}
	return nil
}

// gort's run of the bundled model matches the naive float64 reference, at
// the sample size and at a non-square odd size (symbolic height/width).
func TestToonModelMatchesReference(t *testing.T) {
	s, err := gort.Load(ToonModel(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, sz := range [][2]int{{sampleH, sampleW}, {7, 12}, {1, 3}} {
		h, w := sz[0], sz[1]
		x := make([]float32, 3*h*w)
		for i := range x {
			x[i] = float32((i*37)%101) / 100
		}
		wantEdges, wantToon := Reference(x, h, w)
		out, err := s.Run(context.Background(), map[string]tensor.Value{"image": tensor.Of([]int{1, 3, h, w}, x)})
		if err != nil {
			t.Fatalf("%dx%d: %v", h, w, err)
		}
		for name, want := range map[string][]float32{"edges": wantEdges, "toon": wantToon} {
			got := out[name].(*tensor.Tensor)
			shape := []int{1, 3, 2 * h, 2 * w}
			if name == "edges" {
				shape = []int{1, 1, h, w}
			}
			// The ONNX runner's tolerance, as the demo page's Compare view applies it.
			if d := compare.Compare(got, tensor.Of(shape, want), compare.DefaultTolerance); d != "" {
				t.Errorf("%dx%d %s: %s", h, w, name, d)
			}
		}
	}
}

// The reference itself on a hand-checked case: a single bright pixel.
func TestReferenceByHand(t *testing.T) {
	h, w := 3, 4
	x := make([]float32, 3*h*w)
	for c := 0; c < 3; c++ {
		x[c*h*w+1*w+1] = 1 // pixel (1,1) white
	}
	edges, toon := Reference(x, h, w)
	// Grey at (1,1) = 1; blur spreads 4/16 there, 2/16 to the 4-neighbours, 1/16 diagonally.
	// The centre's Sobel x/y: neighbours are symmetric → 0 gradient → edge 0.
	if edges[1*w+1] != 0 {
		t.Errorf("edges at the centre = %v, want 0", edges[1*w+1])
	}
	// (1,2): d/dx = -(1/16·1 + 2/16·2 + 1/16·1)... = -(1+4+1)/16 + (right column: 0) → |gx| = 6/16 ... times 3 → clipped ≤ 1.
	if edges[1*w+2] <= 0 {
		t.Errorf("edges right of the centre = %v, want > 0", edges[1*w+2])
	}
	if len(toon) != 3*6*8 {
		t.Fatalf("toon has %d values", len(toon))
	}
}

func TestChainModelLoads(t *testing.T) {
	s, err := gort.Load(ChainModel(1200), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Run(context.Background(), map[string]tensor.Value{"x": tensor.Of([]int{1, 16}, make([]float32, 16))})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out["y"]; !ok {
		t.Fatal("no output y")
	}
}

// The external-data variant loads with its weights file and computes what
// the bundled model computes; without the file it fails with the code the
// demo page shows.
func TestExternalModel(t *testing.T) {
	m, w := ExternalModel("w.bin")
	if _, err := gort.Load(m, nil); err == nil {
		t.Fatal("loaded without its external data")
	} else if !strings.Contains(err.Error(), "GORT_EXTERNAL_DATA") {
		t.Fatalf("error without the weights: %v", err)
	}
	s, err := gort.Load(m, &gort.Options{ExternalData: map[string][]byte{"w.bin": w}})
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 3*5*6)
	for i := range x {
		x[i] = float32(i%7) / 7
	}
	out, err := s.Run(context.Background(), map[string]tensor.Value{"image": tensor.Of([]int{1, 3, 5, 6}, x)})
	if err != nil {
		t.Fatal(err)
	}
	edges, _ := Reference(x, 5, 6)
	if d := compare.Compare(out["edges"], tensor.Of([]int{1, 1, 5, 6}, edges), compare.DefaultTolerance); d != "" {
		t.Error(d)
	}
}
