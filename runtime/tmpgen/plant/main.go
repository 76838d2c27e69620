package main

import (
	"os"

	"github.com/gort-dev/gort/runtime/npy"
	"github.com/gort-dev/gort/runtime/tensor"
)

func main() {
	if len(os.Args) == 2 {
		b, _ := os.ReadFile(os.Args[1])
		t, _ := npy.Read(b, 0)
		t.F32()[5] += 0.25
		out, _ := npy.Write(t)
		os.WriteFile(os.Args[1], out, 0o644)
	} else { // write an input
		x := tensor.New(tensor.Float, 2, 3, 32, 32)
		for i := range x.F32() {
			x.F32()[i] = float32(i%7) / 7
		}
		o, _ := npy.Write(x)
		os.WriteFile(os.Args[2], o, 0o644)
	}
}
