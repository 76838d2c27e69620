package main

import "math"

// Reference computes the toon model's outputs for x [1,3,h,w] with plain
// float64 loops written from the ONNX operator definitions (Conv with zero
// padding, Resize linear with half_pixel coordinates clamped to the edge), so
// the expected outputs never come from gort's kernels.
func Reference(x []float32, h, w int) (edges, toon []float32) {
	at := func(p []float64, y, x int) float64 { // zero padding
		if y < 0 || y >= h || x < 0 || x >= w {
			return 0
		}
		return p[y*w+x]
	}
	conv3 := func(p []float64, k []float32) []float64 {
		out := make([]float64, h*w)
		for y := 0; y < h; y++ {
			for xx := 0; xx < w; xx++ {
				var s float64
				for ky := 0; ky < 3; ky++ {
					for kx := 0; kx < 3; kx++ {
						s += float64(k[ky*3+kx]) * at(p, y+ky-1, xx+kx-1)
					}
				}
				out[y*w+xx] = s
			}
		}
		return out
	}
	grey := make([]float64, h*w)
	for i := range grey {
		for c := 0; c < 3; c++ {
			grey[i] += float64(greyW[c]) * float64(x[c*h*w+i])
		}
	}
	blur := conv3(grey, blurW)
	gx, gy := conv3(blur, sobelW[:9]), conv3(blur, sobelW[9:])
	edges = make([]float32, h*w)
	keep := make([]float64, h*w)
	for i := range edges {
		e := math.Min(1, math.Max(0, float64(edgeGain)*math.Sqrt(gx[i]*gx[i]+gy[i]*gy[i])-float64(edgeFloor)))
		edges[i] = float32(e)
		keep[i] = 1 - e
	}
	// Resize ×2, linear, half_pixel: x_original = (x + 0.5) / 2 − 0.5, clamped to [0, len − 1].
	src := func(o, n int) (int, int, float64) {
		f := math.Min(math.Max((float64(o)+0.5)/2-0.5, 0), float64(n-1))
		i0 := int(math.Floor(f))
		i1 := i0 + 1
		if i1 > n-1 {
			i1 = n - 1
		}
		return i0, i1, f - float64(i0)
	}
	H, W := 2*h, 2*w
	toon = make([]float32, 3*H*W)
	for c := 0; c < 3; c++ {
		for oy := 0; oy < H; oy++ {
			y0, y1, dy := src(oy, h)
			for ox := 0; ox < W; ox++ {
				x0i, x1i, dx := src(ox, w)
				p := func(y, xx int) float64 { return float64(x[c*h*w+y*w+xx]) * keep[y*w+xx] }
				top := p(y0, x0i)*(1-dx) + p(y0, x1i)*dx
				bot := p(y1, x0i)*(1-dx) + p(y1, x1i)*dx
				toon[c*H*W+oy*W+ox] = float32(top*(1-dy) + bot*dy)
			}
		}
	}
	return edges, toon
}
