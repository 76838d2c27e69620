package main

import (
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// u2net builds a U²-Net-style salient-object segmentation network (Qin et
// al., 2020, the small "u2netp" widths: 16 middle and 64 outer channels) for
// a size×size RGB image, with the traits that make such exported models hard
// on a runtime:
//   - a stride-2 first conv, so the largest feature maps are 64×(size/2)²
//     (64×512×512 at 1024);
//   - 119 Conv (3×3, dilations 1/2/4/8 in the RSU-4F blocks, 1×1 fuse), 39
//     Resize (linear, half_pixel, with `sizes`: every decoder level upsamples
//     to its skip's exact size), MaxPool (ceil_mode), Concat, residual Add;
//   - float16 weights: each conv's weight and bias are float16 initializers
//     cast to float32 right before the conv, as mixed-precision exporters
//     write them, so a runtime that does not fold the Casts pays them on every
//     run.
//
// Odd sizes (ceil_mode pooling of an odd map, as in the 50×50 test model) are
// why every upsampling goes to its skip's exact size by `sizes`, as in the
// original.
func u2net(size int, seed uint64) (*pb.ModelProto, map[string]*tensor.Tensor) {
	b := newGraph("u2net_small", seed)
	x := fmap{b.input("image", tensor.Float, 1, 3, size, size), 3, size}
	u := &unet{graph: b}

	// Stage 1 runs at size/2: its input conv has stride 2.
	hx1 := u.rsu(7, x, 16, 64, 2)
	hx2 := u.rsu(6, u.pool(hx1), 16, 64, 1)
	hx3 := u.rsu(5, u.pool(hx2), 16, 64, 1)
	hx4 := u.rsu(4, u.pool(hx3), 16, 64, 1)
	hx5 := u.rsuF(u.pool(hx4), 16, 64)
	hx6 := u.rsuF(u.pool(hx5), 16, 64)

	hx5d := u.rsuF(u.concat(u.resize(hx6, hx5.h), hx5), 16, 64)
	hx4d := u.rsu(4, u.concat(u.resize(hx5d, hx4.h), hx4), 16, 64, 1)
	hx3d := u.rsu(5, u.concat(u.resize(hx4d, hx3.h), hx3), 16, 64, 1)
	hx2d := u.rsu(6, u.concat(u.resize(hx3d, hx2.h), hx2), 16, 64, 1)
	hx1d := u.rsu(7, u.concat(u.resize(hx2d, hx1.h), hx1), 16, 64, 1)

	// Side outputs, each upsampled to stage 1's size, fused by a 1×1 conv.
	var sides []fmap
	for i, s := range []fmap{hx1d, hx2d, hx3d, hx4d, hx5, hx6} {
		d := u.conv(s, 1, 3, 1, 1, false)
		if i > 0 {
			d = u.resize(d, hx1.h)
		}
		sides = append(sides, d)
	}
	names := make([]string, len(sides))
	for i, s := range sides {
		names[i] = s.name
	}
	fused := u.conv(fmap{b.node("Concat", names, aInt("axis", 1)), len(sides), hx1.h}, 1, 1, 1, 1, false)
	full := u.resize(fused, size)
	b.rename(b.node("Sigmoid", []string{full.name}), "mask")
	b.output("mask", tensor.Float, []int{1, 1, size, size})

	feeds := map[string]*tensor.Tensor{"image": randInput(seed+1, 0, 1, 1, 3, size, size)}
	return model(b, "U²-Net-style segmentation (u2netp widths), float16 weights; written by gort's tools/genmodels"), feeds
}

type unet struct{ *graph }

// fmap is a square feature map: its value's name, channels and height (= width).
type fmap struct {
	name string
	c, h int
}

// conv is a Conv with float16 weight and bias cast to float32, optionally
// followed by Relu (a U²-Net REBNCONV with its BatchNorm folded).
func (u *unet) conv(x fmap, cout, k, dil, stride int, relu bool) fmap {
	w := u.weight("w", tensor.Float16, heScale(x.c*k*k), cout, x.c, k, k)
	bias := u.weight("b", tensor.Float16, 0.1, cout)
	to := aInt("to", int64(tensor.Float))
	w32 := u.node("Cast", []string{w}, to)
	b32 := u.node("Cast", []string{bias}, to)
	pad := int64(dil * (k - 1) / 2)
	y := u.node("Conv", []string{x.name, w32, b32},
		aInts("kernel_shape", int64(k), int64(k)), aInts("dilations", int64(dil), int64(dil)),
		aInts("pads", pad, pad, pad, pad), aInts("strides", int64(stride), int64(stride)))
	if relu {
		y = u.node("Relu", []string{y})
	}
	return fmap{y, cout, (x.h+2*int(pad)-dil*(k-1)-1)/stride + 1}
}

func (u *unet) rebn(x fmap, cout, dil int) fmap { return u.conv(x, cout, 3, dil, 1, true) }

func (u *unet) pool(x fmap) fmap {
	y := u.node("MaxPool", []string{x.name}, aInts("kernel_shape", 2, 2), aInts("strides", 2, 2), aInt("ceil_mode", 1))
	return fmap{y, x.c, (x.h + 1) / 2}
}

// resize upsamples x to h×h, bilinear with half-pixel centres, by `sizes`
// (scales and roi omitted), as PyTorch's exporter writes interpolate(size=).
func (u *unet) resize(x fmap, h int) fmap {
	sizes := u.ints("sizes", 1, int64(x.c), int64(h), int64(h))
	y := u.node("Resize", []string{x.name, "", "", sizes},
		aString("mode", "linear"), aString("coordinate_transformation_mode", "half_pixel"))
	return fmap{y, x.c, h}
}

func (u *unet) concat(a, b fmap) fmap {
	return fmap{u.node("Concat", []string{a.name, b.name}, aInt("axis", 1)), a.c + b.c, a.h}
}

func (u *unet) add(a, b fmap) fmap {
	return fmap{u.node("Add", []string{a.name, b.name}), a.c, a.h}
}

// rsu is the residual U-block RSU-L: an input conv, an encoder of L-1 convs
// with max pooling between them, a dilated bottom conv, a decoder that
// upsamples each level to its skip's size and concatenates, and the input
// conv's output added back.
func (u *unet) rsu(L int, x fmap, mid, cout, stride int) fmap {
	hxin := u.conv(x, cout, 3, 1, stride, true)
	enc := []fmap{u.rebn(hxin, mid, 1)}
	for i := 2; i < L; i++ {
		enc = append(enc, u.rebn(u.pool(enc[len(enc)-1]), mid, 1))
	}
	d := u.rebn(enc[len(enc)-1], mid, 2)
	for i := len(enc) - 1; i >= 0; i-- {
		out := mid
		if i == 0 {
			out = cout
		}
		d = u.rebn(u.concat(d, enc[i]), out, 1)
		if i > 0 {
			d = u.resize(d, enc[i-1].h)
		}
	}
	return u.add(d, hxin)
}

// rsuF is RSU-4F: dilations 1, 2, 4, 8 instead of pooling, so every level
// keeps the input's size.
func (u *unet) rsuF(x fmap, mid, cout int) fmap {
	hxin := u.rebn(x, cout, 1)
	h1 := u.rebn(hxin, mid, 1)
	h2 := u.rebn(h1, mid, 2)
	h3 := u.rebn(h2, mid, 4)
	h4 := u.rebn(h3, mid, 8)
	d := u.rebn(u.concat(h4, h3), mid, 4)
	d = u.rebn(u.concat(d, h2), mid, 2)
	d = u.rebn(u.concat(d, h1), cout, 1)
	return u.add(d, hxin)
}
