package image

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// run builds ImageDecoder-20 as the loader would and decodes b under a
// budget of maxBytes, turning budget panics into errors.
func run(b []byte, pixelFormat string, maxBytes int64) (out *tensor.Tensor, err error) {
	res := op.Default.Resolve("", "ImageDecoder", 20)
	if res.Builder == nil {
		return nil, fmt.Errorf("resolve: %s", res.Problem)
	}
	attrs := map[string]*pb.AttributeProto{}
	if pixelFormat != "" {
		attrs["pixel_format"] = &pb.AttributeProto{Name: "pixel_format", Type: pb.AttributeProto_STRING, S: []byte(pixelFormat)}
	}
	n := &op.Node{Name: "dec", OpType: "ImageDecoder", Version: res.Version, Opset: 20, Attrs: attrs,
		Inputs: []string{"x"}, Outputs: []string{"y"}, MaxBytes: maxBytes}
	k, err := res.Builder(n)
	if err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			e, ok := p.(*errs.Error)
			if !ok {
				panic(p)
			}
			out, err = nil, e
		}
	}()
	outs, err := k.(op.Kernel).Run(&op.Context{MaxBytes: maxBytes}, []*tensor.Tensor{tensor.Of([]int{len(b)}, b)})
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

// rgbImage is a 3-wide, 5-high test pattern whose every pixel differs, so
// transposed, mirrored or channel-swapped output cannot pass.
func rgbImage() [][][3]uint8 {
	px := make([][][3]uint8, 5)
	for y := range px {
		px[y] = make([][3]uint8, 3)
		for x := range px[y] {
			px[y][x] = [3]uint8{uint8(10 + 40*y + x), uint8(200 - 30*x - y), uint8(7 * (x + 3*y))}
		}
	}
	return px
}

// want lays px out as [H, W, C] for a pixel format; Grayscale uses the
// floating-point ITU-R 601 luma (the test pattern keeps clear of .5 ties).
func want(px [][][3]uint8, pixelFormat string) *tensor.Tensor {
	h, w := len(px), len(px[0])
	var d []uint8
	for _, row := range px {
		for _, p := range row {
			switch pixelFormat {
			case "BGR":
				d = append(d, p[2], p[1], p[0])
			case "Grayscale":
				d = append(d, uint8(math.Round(0.299*float64(p[0])+0.587*float64(p[1])+0.114*float64(p[2]))))
			default:
				d = append(d, p[0], p[1], p[2])
			}
		}
	}
	c := 3
	if pixelFormat == "Grayscale" {
		c = 1
	}
	return tensor.Of([]int{h, w, c}, d)
}

func grey(px [][][3]uint8) [][][3]uint8 {
	out := make([][][3]uint8, len(px))
	for y, row := range px {
		for _, p := range row {
			out[y] = append(out[y], [3]uint8{p[0], p[0], p[0]})
		}
	}
	return out
}

func encodePNG(t *testing.T, img image.Image) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func nrgba(px [][][3]uint8, alpha uint8) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, len(px[0]), len(px)))
	for y, row := range px {
		for x, p := range row {
			img.SetNRGBA(x, y, color.NRGBA{p[0], p[1], p[2], alpha})
		}
	}
	return img
}

// bmp builds a BITMAPINFOHEADER bitmap by hand; rows are given top to
// bottom and stored as the height's sign says, padded to 4 bytes.
func bmp(px [][][3]uint8, bpp int, topDown bool) []byte {
	h, w := len(px), len(px[0])
	stride := (w*bpp/8 + 3) / 4 * 4
	le := func(b []byte, v uint32) { b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24) }
	hdr := make([]byte, 54)
	copy(hdr, "BM")
	le(hdr[2:], uint32(54+stride*h))
	le(hdr[10:], 54)
	le(hdr[14:], 40)
	le(hdr[18:], uint32(w))
	sh := int32(h)
	if topDown {
		sh = -sh
	}
	le(hdr[22:], uint32(sh))
	hdr[26], hdr[28] = 1, byte(bpp)
	data := make([]byte, stride*h)
	for y := range h {
		row := y
		if !topDown {
			row = h - 1 - y
		}
		for x, p := range px[y] {
			o := row*stride + x*bpp/8
			data[o], data[o+1], data[o+2] = p[2], p[1], p[0]
			if bpp == 32 {
				data[o+3] = 0x55 // unused X byte; must not leak into the output
			}
		}
	}
	return append(hdr, data...)
}

// pnm writes a Netpbm header (with a comment) and the samples of px, one
// channel for P2/P5, three for P3/P6, scaled to maxv.
func pnm(px [][][3]uint8, kind byte, maxv int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "P%c\n# gort test\n%d %d\n%d\n", kind, len(px[0]), len(px), maxv)
	for _, row := range px {
		for _, p := range row {
			ch := p[:]
			if kind == '2' || kind == '5' {
				ch = p[:1]
			}
			for _, v := range ch {
				s := int(v) * maxv / 255
				switch {
				case kind <= '3':
					fmt.Fprintf(&b, "%d ", s)
				case maxv > 255:
					b.Write([]byte{byte(s >> 8), byte(s)})
				default:
					b.WriteByte(byte(s))
				}
			}
		}
	}
	return b.Bytes()
}

func check(t *testing.T, name string, b []byte, pixelFormat string, wantT *tensor.Tensor) {
	t.Helper()
	got, err := run(b, pixelFormat, 1<<30)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !reflect.DeepEqual(got.Shape(), wantT.Shape()) || !reflect.DeepEqual(got.Data(), wantT.Data()) {
		t.Fatalf("%s:\ngot  %v %v\nwant %v %v", name, got.Shape(), got.Data(), wantT.Shape(), wantT.Data())
	}
}

func TestDecodeFormats(t *testing.T) {
	px := rgbImage()
	gimg := image.NewGray(image.Rect(0, 0, 3, 5))
	for y, row := range px {
		for x, p := range row {
			gimg.SetGray(x, y, color.Gray{p[0]})
		}
	}
	pal := image.NewPaletted(image.Rect(0, 0, 3, 5), nil)
	for y, row := range px {
		for x, p := range row {
			pal.Palette = append(pal.Palette, color.RGBA{p[0], p[1], p[2], 255})
			pal.SetColorIndex(x, y, uint8(len(pal.Palette)-1))
		}
	}
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, pal, nil); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		b    []byte
		px   [][][3]uint8
	}{
		{"png rgb", encodePNG(t, nrgba(px, 255)), px},
		{"png rgba keeps unpremultiplied colour", encodePNG(t, nrgba(px, 128)), px},
		{"png grey", encodePNG(t, gimg), grey(px)},
		{"gif", gifBuf.Bytes(), px},
		{"bmp 24 bottom-up", bmp(px, 24, false), px},
		{"bmp 24 top-down", bmp(px, 24, true), px},
		{"bmp 32 bottom-up", bmp(px, 32, false), px},
		{"bmp 32 top-down", bmp(px, 32, true), px},
		{"pnm P6", pnm(px, '6', 255), px},
		{"pnm P3", pnm(px, '3', 255), px},
		{"pnm P5", pnm(px, '5', 255), grey(px)},
		{"pnm P2", pnm(px, '2', 255), grey(px)},
	}
	for _, c := range cases {
		for _, f := range []string{"", "RGB", "BGR", "Grayscale"} {
			check(t, c.name+" "+f, c.b, f, want(c.px, f))
		}
	}
}

func TestDecodePNMScaled(t *testing.T) {
	// 16-bit samples and maxval 1000: 500/1000 → 128 (127.5 rounded), 1000 → 255.
	b := []byte("P5\n2 1\n1000\n\x01\xf4\x03\xe8")
	check(t, "P5 maxval 1000", b, "Grayscale", tensor.Of([]int{1, 2, 1}, []uint8{128, 255}))
	// Bitmaps: 1 is black. P4 packs a row into bytes, MSB first.
	check(t, "P1", []byte("P1\n3 2\n1 0 1\n010"), "Grayscale", tensor.Of([]int{2, 3, 1}, []uint8{0, 255, 0, 255, 0, 255}))
	check(t, "P4", []byte("P4\n3 2\n\xa0\x40"), "Grayscale", tensor.Of([]int{2, 3, 1}, []uint8{0, 255, 0, 255, 0, 255}))
}

func TestDecodeBMPPalette(t *testing.T) {
	// 8-bit, 2x2, bottom-up, two palette entries (BGRA quads).
	b := bmp([][][3]uint8{{{0, 0, 0}, {0, 0, 0}}, {{0, 0, 0}, {0, 0, 0}}}, 24, false)[:54]
	b[28] = 8
	b[46] = 2 // biClrUsed
	b[10] = 54 + 8
	b = append(b, 30, 20, 10, 0, 3, 2, 1, 0) // index 0 = RGB(10,20,30), 1 = RGB(1,2,3)
	b = append(b, 1, 0, 0, 0, 0, 1, 0, 0)    // bottom row: 1 0; top row: 0 1
	check(t, "bmp 8-bit", b, "RGB", tensor.Of([]int{2, 2, 3}, []uint8{10, 20, 30, 1, 2, 3, 1, 2, 3, 10, 20, 30}))
}

func TestDecodeJPEG(t *testing.T) {
	// JPEG is lossy: a flat colour must come back flat within a couple of levels.
	img := image.NewRGBA(image.Rect(0, 0, 19, 11))
	for i := 0; i < len(img.Pix); i += 4 {
		copy(img.Pix[i:], []uint8{200, 100, 50, 255})
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"RGB", "BGR"} {
		got, err := run(buf.Bytes(), f, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Shape(), []int{11, 19, 3}) {
			t.Fatalf("shape %v", got.Shape())
		}
		wantPx := []int{200, 100, 50}
		if f == "BGR" {
			wantPx = []int{50, 100, 200}
		}
		for i, v := range tensor.Data[uint8](got) {
			if d := int(v) - wantPx[i%3]; d < -3 || d > 3 {
				t.Fatalf("%s: sample %d is %d, want about %d", f, i, v, wantPx[i%3])
			}
		}
	}
}

// TestFancyUpsampling checks the libjpeg chroma interpolation against
// values worked by hand from its formulas: a 4x2 4:2:0 image whose two
// chroma columns differ (Cb 100, 200), with three columns so the
// interpolation is on (libjpeg needs more than two).
func TestFancyUpsampling(t *testing.T) {
	m := image.NewYCbCr(image.Rect(0, 0, 6, 2), image.YCbCrSubsampleRatio420)
	for i := range m.Y {
		m.Y[i] = 128
	}
	for i := range m.Cr {
		m.Cr[i] = 128
	}
	copy(m.Cb, []uint8{100, 200, 100})
	dst := make([]uint8, 6*2*3)
	ycbcrToRGB(m, dst)
	// Single chroma row: colsum = 4*Cb → 400, 800, 400.
	// x0: (3*400+400+8)>>4 = 100; x1: (1200+800+7)>>4 = 125; x2: (2400+400+8)>>4 = 175;
	// x3: (2400+400+7)>>4 = 175; x4: (1200+800+8)>>4 = 125; x5: (1200+400+7)>>4 = 100.
	wantCb := []int{100, 125, 175, 175, 125, 100}
	for x, cb := range wantCb {
		// B = Y + round(1.772*(Cb-128)), fixed point as libjpeg.
		b := 128 + int(math.Floor(1.772*float64(cb-128)+0.5))
		if got := int(dst[3*x+2]); got != b {
			t.Errorf("x=%d: B = %d, want %d (Cb %d)", x, got, b, cb)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	px := rgbImage()
	good := encodePNG(t, nrgba(px, 255))
	// A PNG header that declares 100000x100000 pixels over a few bytes.
	huge := append([]byte{}, good[:33]...)
	copy(huge[16:], []byte{0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0})
	binary.BigEndian.PutUint32(huge[29:], crc32.ChecksumIEEE(huge[12:29]))
	cases := []struct {
		name, b string
		code    errs.Code
		msg     string
	}{
		{"empty", "", errs.Runtime, "empty"},
		{"garbage", "hello, world", errs.Runtime, "unrecognised"},
		{"truncated png", string(good[:len(good)/2]), errs.Runtime, "PNG"},
		{"truncated jpeg", "\xff\xd8\xff\xe0\x00\x10JFIF", errs.Runtime, "JPEG"},
		{"huge png", string(huge), errs.TooLarge, "budget"},
		{"truncated bmp", string(bmp(px, 24, false)[:80]), errs.Runtime, "truncated"},
		{"bmp header only", "BM\x00\x00", errs.Runtime, "truncated"},
		{"huge bmp", string(bmp(px, 24, false)[:54]) + "\x00", errs.Runtime, "truncated"},
		{"truncated pnm", string(pnm(px, '6', 255)[:30]), errs.Runtime, "truncated"},
		{"huge pnm", "P6\n100000 100000\n255\n\x00\x00\x00", errs.Runtime, "truncated"},
		{"huge ascii pnm", "P3\n100000 100000\n255\n1 2 3", errs.Runtime, "truncated"},
		{"pnm bad maxval", "P5\n1 1\n0\n\x00", errs.Runtime, "maxval"},
		{"webp", "RIFF\x20\x00\x00\x00WEBPVP8 ", errs.Runtime, "WebP images are not supported; supported: PNG, JPEG, BMP, PNM, GIF"},
		{"tiff", "II*\x00\x08\x00\x00\x00", errs.Runtime, "TIFF images are not supported"},
		{"jpeg 2000", "\x00\x00\x00\x0cjP  \r\n\x87\n", errs.Runtime, "JPEG 2000 images are not supported"},
	}
	for _, c := range cases {
		_, err := run([]byte(c.b), "RGB", 1<<20)
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %s containing %q", c.name, err, c.code, c.msg)
		}
	}
	// A huge BMP header whose data is missing must not allocate: its
	// declared size is checked against the bytes present first.
	b := bmp(px, 24, false)
	copy(b[18:], []byte{0xa0, 0x86, 0x01, 0, 0xa0, 0x86, 0x01, 0})
	if _, err := run(b, "RGB", 0); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("huge bmp without budget: %v", err)
	}
	if _, err := run(good, "RGBA", 1<<20); err == nil || !strings.Contains(err.Error(), "pixel_format") {
		t.Errorf("bad pixel_format: %v", err)
	}
}

// FuzzDecode feeds mutated images of every supported format: whatever the
// bytes, the op must answer with an image or a coded error, never a panic
// (which run re-raises unless it carries an *errs.Error).
func FuzzDecode(f *testing.F) {
	px := rgbImage()
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, nrgba(px, 255), nil); err != nil {
		f.Fatal(err)
	}
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, nrgba(px, 255)); err != nil {
		f.Fatal(err)
	}
	for _, b := range [][]byte{pngBuf.Bytes(), jpg.Bytes(), bmp(px, 24, false), bmp(px, 32, true),
		pnm(px, '6', 255), pnm(px, '3', 255), pnm(px, '5', 1000), []byte("P1\n3 2\n1 0 1\n010"), []byte("P4\n3 2\n\xa0\x40")} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := run(b, "Grayscale", 1<<20)
		if err == nil && (out.Rank() != 3 || out.Shape()[2] != 1) {
			t.Fatalf("shape %v", out.Shape())
		}
	})
}
