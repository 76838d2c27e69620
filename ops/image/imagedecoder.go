package image

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("ImageDecoder", []int{20}, buildImageDecoder)
}

type pixelFormat int

const (
	formatRGB pixelFormat = iota
	formatBGR
	formatGray
)

// supported is quoted in every "unsupported format" error so that a user
// who hits one knows what to convert to.
const supported = "supported: PNG, JPEG, BMP, PNM, GIF"

// buildImageDecoder parses pixel_format once; the kernel decodes the 1-D
// uint8 stream into [H, W, 3] (RGB, BGR) or [H, W, 1] (Grayscale).
//
// The spec lets a failed decode return an empty tensor; we return an error
// instead, because an empty image flowing on into a model fails later with
// a message that no longer says the input bytes were the problem.
func buildImageDecoder(n *op.Node) (any, error) {
	s, err := n.String("pixel_format", "RGB")
	if err != nil {
		return nil, err
	}
	var pf pixelFormat
	switch s {
	case "RGB":
		pf = formatRGB
	case "BGR":
		pf = formatBGR
	case "Grayscale":
		pf = formatGray
	default:
		return nil, n.Errorf("ImageDecoder pixel_format %q is not one of RGB, BGR, Grayscale", s)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("ImageDecoder needs an encoded_stream input")
		}
		if in[0].DType() != tensor.Uint8 {
			return nil, op.Errorf("ImageDecoder encoded_stream must be uint8, got %s", in[0].DType())
		}
		r, err := decode(ctx, tensor.Data[uint8](in[0]))
		if err != nil {
			return nil, err
		}
		out, err := r.as(ctx, pf)
		if err != nil {
			return nil, err
		}
		return ctx.One(out), nil
	}), nil
}

// raster is a decoded image before pixel_format is applied: 8-bit samples
// in a uint8 [h, w, c] tensor, c = 1 (grey sources, kept grey so Grayscale
// output is exact) or 3 (R, G, B).
type raster struct {
	t       *tensor.Tensor
	pix     []uint8
	h, w, c int
}

// newRaster allocates within the memory budget, returning (not panicking
// with) the TooLarge error so decoders can stay plain functions.
func newRaster(ctx *op.Context, h, w, c int) (*raster, error) {
	if _, err := ctx.CheckShape(tensor.Uint8, []int{h, w, c}); err != nil {
		return nil, err
	}
	t := tensor.New(tensor.Uint8, h, w, c)
	return &raster{t: t, pix: tensor.Data[uint8](t), h: h, w: w, c: c}, nil
}

// as applies the pixel format, reusing the raster's own buffer whenever the
// channel count already matches.
func (r *raster) as(ctx *op.Context, pf pixelFormat) (*tensor.Tensor, error) {
	switch {
	case pf == formatGray && r.c == 1, pf == formatRGB && r.c == 3:
		return r.t, nil
	case pf == formatBGR && r.c == 3:
		for i := 0; i+2 < len(r.pix); i += 3 {
			r.pix[i], r.pix[i+2] = r.pix[i+2], r.pix[i]
		}
		return r.t, nil
	case pf == formatGray:
		g, err := newRaster(ctx, r.h, r.w, 1)
		if err != nil {
			return nil, err
		}
		for i := range g.pix {
			p := r.pix[3*i : 3*i+3]
			g.pix[i] = luma(p[0], p[1], p[2])
		}
		return g.t, nil
	default: // grey source, RGB or BGR wanted: replicate
		o, err := newRaster(ctx, r.h, r.w, 3)
		if err != nil {
			return nil, err
		}
		for i, v := range r.pix {
			o.pix[3*i], o.pix[3*i+1], o.pix[3*i+2] = v, v, v
		}
		return o.t, nil
	}
}

// luma is ITU-R 601-2 luma in the 16-bit fixed point that PIL's
// convert("L") uses, which is what the ONNX reference produces: the weights
// sum to exactly 65536, so grey stays grey.
func luma(r, g, b uint8) uint8 {
	return uint8((uint32(r)*19595 + uint32(g)*38470 + uint32(b)*7471 + 0x8000) >> 16)
}

// sniff names the container format from its signature. It also recognises
// formats we cannot decode, so their error can say what the bytes were.
func sniff(b []byte) string {
	has := func(s string) bool { return bytes.HasPrefix(b, []byte(s)) }
	switch {
	case has("\x89PNG\r\n\x1a\n"):
		return "PNG"
	case has("\xff\xd8\xff"):
		return "JPEG"
	case has("GIF87a"), has("GIF89a"):
		return "GIF"
	case has("BM"):
		return "BMP"
	case len(b) >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '6' && isSpace(b[2]):
		return "PNM"
	case has("P7\n"):
		return "PAM"
	case has("II*\x00"), has("MM\x00*"), has("II+\x00"), has("MM\x00+"):
		return "TIFF"
	case len(b) >= 12 && has("RIFF") && string(b[8:12]) == "WEBP":
		return "WebP"
	case has("\x00\x00\x00\x0cjP  \r\n\x87\n"), has("\xff\x4f\xff\x51"):
		return "JPEG 2000"
	}
	return ""
}

func decode(ctx *op.Context, b []byte) (*raster, error) {
	switch f := sniff(b); f {
	case "PNG":
		return decodeStd(ctx, b, f, png.DecodeConfig, png.Decode)
	case "JPEG":
		return decodeStd(ctx, b, f, jpeg.DecodeConfig, jpeg.Decode)
	case "GIF":
		return decodeStd(ctx, b, f, gif.DecodeConfig, gif.Decode)
	case "BMP":
		return decodeBMP(ctx, b)
	case "PNM":
		return decodePNM(ctx, b)
	case "":
		if len(b) == 0 {
			return nil, op.Errorf("ImageDecoder got an empty encoded_stream")
		}
		return nil, op.Errorf("ImageDecoder: unrecognised image format (first bytes % x); %s", b[:min(len(b), 8)], supported)
	default:
		return nil, op.Errorf("ImageDecoder: %s images are not supported; %s", f, supported)
	}
}

// decodeStd runs a standard-library decoder, but only after DecodeConfig has
// told us the size: a few hundred bytes of PNG can declare gigapixels, and
// the decoder would allocate them before failing.
func decodeStd(ctx *op.Context, b []byte, name string,
	config func(io.Reader) (image.Config, error), dec func(io.Reader) (image.Image, error)) (*raster, error) {
	cfg, err := config(bytes.NewReader(b))
	if err != nil {
		return nil, op.Errorf("ImageDecoder: invalid %s image: %v", name, err)
	}
	// The decoder's own buffer can be wider than our output: 16-bit RGBA PNG
	// holds 8 bytes a pixel, a progressive JPEG keeps 16-bit coefficients
	// for up to 4 components.
	bpp := 4
	switch {
	case name == "JPEG":
		bpp = 8
	case cfg.ColorModel == color.RGBA64Model, cfg.ColorModel == color.NRGBA64Model:
		bpp = 8
	}
	for _, c := range []int{3, bpp} {
		if _, err := ctx.CheckShape(tensor.Uint8, []int{cfg.Height, cfg.Width, c}); err != nil {
			return nil, err
		}
	}
	img, err := dec(bytes.NewReader(b))
	if err != nil {
		return nil, op.Errorf("ImageDecoder: invalid %s image: %v", name, err)
	}
	return fromImage(ctx, img)
}

// fromImage copies a decoded image into a raster, with fast paths for the
// types the standard decoders return. Colours are taken non-premultiplied
// and alpha is dropped, as converting to RGB does in the reference.
func fromImage(ctx *op.Context, img image.Image) (*raster, error) {
	bd := img.Bounds()
	h, w := bd.Dy(), bd.Dx()
	c := 3
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		c = 1
	}
	r, err := newRaster(ctx, h, w, c)
	if err != nil {
		return nil, err
	}
	switch m := img.(type) {
	case *image.Gray:
		for y := 0; y < h; y++ {
			copy(r.pix[y*w:(y+1)*w], m.Pix[y*m.Stride:])
		}
	case *image.Gray16:
		for y := 0; y < h; y++ {
			row := m.Pix[y*m.Stride:]
			for x := 0; x < w; x++ {
				r.pix[y*w+x] = row[2*x]
			}
		}
	case *image.YCbCr:
		ycbcrToRGB(m, r.pix)
	case *image.NRGBA:
		for y := 0; y < h; y++ {
			row := m.Pix[y*m.Stride:]
			for x := 0; x < w; x++ {
				copy(r.pix[(y*w+x)*3:(y*w+x)*3+3], row[4*x:4*x+3])
			}
		}
	case *image.NRGBA64:
		for y := 0; y < h; y++ {
			row := m.Pix[y*m.Stride:]
			for x := 0; x < w; x++ {
				o := (y*w + x) * 3
				r.pix[o], r.pix[o+1], r.pix[o+2] = row[8*x], row[8*x+2], row[8*x+4]
			}
		}
	case *image.Paletted:
		pal := make([][3]uint8, 256)
		for i, pc := range m.Palette {
			if i < len(pal) {
				nc := color.NRGBAModel.Convert(pc).(color.NRGBA)
				pal[i] = [3]uint8{nc.R, nc.G, nc.B}
			}
		}
		for y := 0; y < h; y++ {
			row := m.Pix[y*m.Stride:]
			for x := 0; x < w; x++ {
				copy(r.pix[(y*w+x)*3:], pal[row[x]][:])
			}
		}
	default: // RGBA, RGBA64, CMYK, ...: the generic, slower path
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				nc := color.NRGBAModel.Convert(img.At(bd.Min.X+x, bd.Min.Y+y)).(color.NRGBA)
				o := (y*w + x) * 3
				r.pix[o], r.pix[o+1], r.pix[o+2] = nc.R, nc.G, nc.B
			}
		}
	}
	return r, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
