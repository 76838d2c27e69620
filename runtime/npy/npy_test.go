package npy_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/npy"
	"github.com/gort-dev/gort/runtime/tensor"
)

// fixture assembles a .npy file by hand: magic, version, header length,
// header text padded with pad spaces and a newline, then the data bytes.
func fixture(major byte, dict string, pad int, data ...byte) []byte {
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	b.WriteByte(major)
	b.WriteByte(0)
	if major == 1 {
		b.WriteByte(byte(len(hdr)))
		b.WriteByte(byte(len(hdr) >> 8))
	} else {
		b.Write([]byte{byte(len(hdr)), byte(len(hdr) >> 8), 0, 0})
	}
	b.WriteString(hdr)
	b.Write(data)
	return b.Bytes()
}

// TestWriteMatchesNumPy: np.save(f, np.array([1, 2, 3], dtype=np.int64))
// writes a 57-character dict padded with 60 spaces and a newline (header
// length 118, so the data starts at byte 128), then three little-endian int64s.
func TestWriteMatchesNumPy(t *testing.T) {
	want := fixture(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 60,
		1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0)
	if len(want) != 128+24 {
		t.Fatalf("fixture is %d bytes", len(want))
	}
	got, err := npy.Write(tensor.Of([]int{3}, []int64{1, 2, 3}))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	// A 2-D bool array: shape "(2, 2)" and descr "|b1".
	want = fixture(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }", 58, 1, 0, 0, 1)
	got, _ = npy.Write(tensor.Of([]int{2, 2}, []bool{true, false, false, true}))
	if !bytes.Equal(got, want) {
		t.Errorf("bool: got\n%q\nwant\n%q", got, want)
	}
}

func TestRead(t *testing.T) {
	cases := []struct {
		name string
		file []byte
		want string // tensor.String() of the expected tensor
	}{
		{"big-endian float32, 16-byte aligned header of old NumPy", fixture(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 4,
			0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0), fmt.Sprint(tensor.Of([]int{2}, []float32{1, -2}))},
		{"fortran order int32", fixture(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", 60,
			1, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0, 6, 0, 0, 0), fmt.Sprint(tensor.Of([]int{2, 3}, []int32{1, 2, 3, 4, 5, 6}))},
		{"float16", fixture(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", 60, 0, 0x3c, 0, 0xc0, 0, 0x38),
			fmt.Sprint(tensor.Of([]int{3}, []float32{1, -2, 0.5}).WithDType(tensor.Float16))},
		{"bool", fixture(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }", 58, 1, 0, 0, 1),
			fmt.Sprint(tensor.Of([]int{2, 2}, []bool{true, false, false, true}))},
		{"big-endian int64", fixture(1, "{'descr': '>i8', 'fortran_order': False, 'shape': (1,), }", 60, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe),
			fmt.Sprint(tensor.Of([]int{1}, []int64{-2}))},
		{"version 2.0 header", fixture(2, "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", 58, 1, 0, 0, 1),
			fmt.Sprint(tensor.Of([]int{2}, []uint16{1, 256}))},
		{"scalar", fixture(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 62, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f),
			fmt.Sprint(tensor.Of([]int{}, []float64{1.5}))},
		{"unicode strings", fixture(1, "{'descr': '<U2', 'fortran_order': False, 'shape': (2,), }", 60, 'a', 0, 0, 0, 'b', 0, 0, 0, 0xe9, 0, 0, 0, 0, 0, 0, 0),
			fmt.Sprint(tensor.Of([]int{2}, []string{"ab", "é"}))},
		{"fortran order 3-D", fixture(1, "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 1, 2), }", 55, 1, 3, 2, 4),
			fmt.Sprint(tensor.Of([]int{2, 1, 2}, []uint8{1, 2, 3, 4}))},
	}
	for _, c := range cases {
		got, err := npy.Read(c.file, 0)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestReadErrors(t *testing.T) {
	for name, file := range map[string][]byte{
		"no magic":        []byte("PK\x03\x04 not npy"),
		"truncated data":  fixture(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 60, 1, 0, 0),
		"structured":      fixture(1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 0, 0),
		"object dtype":    fixture(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", 1, 0),
		"missing key":     fixture(1, "{'descr': '<i4', 'shape': (1,), }", 1, 0, 0, 0, 0),
		"header too long": []byte("\x93NUMPY\x01\x00\xff\x7f{}"),
		"version 9":       []byte("\x93NUMPY\x09\x00\x00\x00"),
	} {
		if _, err := npy.Read(file, 0); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	ts := []*tensor.Tensor{
		tensor.Of([]int{2, 3}, []float32{1, 2, 3, 4, 5, 6}),
		tensor.Of([]int{2}, []float32{1.5, -0.25}).WithDType(tensor.Float16),
		tensor.Of([]int{3, 1}, []int64{-1, 1 << 40, 7}),
		tensor.Of([]int{2}, []bool{true, false}),
		tensor.Of([]int{}, []float64{3.25}),
		tensor.Of([]int{2}, []complex64{1 + 2i, -3i}),
		tensor.Of([]int{0, 4}, []int8{}),
		tensor.Of([]int{3}, []string{"x", "", "gört"}),
	}
	arrays := map[string]*tensor.Tensor{}
	for i, x := range ts {
		b, err := npy.Write(x)
		if err != nil {
			t.Fatal(err)
		}
		if (len(b)-len(payload(x)))%64 != 0 {
			t.Errorf("%v: data does not start at a multiple of 64", x)
		}
		back, err := npy.Read(b, 0)
		if err != nil || fmt.Sprint(back) != fmt.Sprint(x) || back.DType() != x.DType() {
			t.Errorf("round trip of %v: %v %v", x, back, err)
		}
		arrays[fmt.Sprintf("a%d", i)] = x
	}
	z, err := npy.WriteNPZ(arrays, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, names, err := npy.ReadNPZ(z, 0)
	if err != nil || len(back) != len(ts) || names[0] != "a0" {
		t.Fatalf("npz: %v %v", names, err)
	}
	for k, v := range arrays {
		if fmt.Sprint(back[k]) != fmt.Sprint(v) {
			t.Errorf("npz %s: %v, want %v", k, back[k], v)
		}
	}
}

func payload(x *tensor.Tensor) []byte {
	b, _ := npy.Write(x)
	i := bytes.IndexByte(b, '\n')
	return b[i+1:]
}

// TestCompressedNPZ: np.savez_compressed stores members deflated; archives
// written by another zip writer (Go's archive/zip here) read back.
func TestCompressedNPZ(t *testing.T) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "logits.npy", Method: zip.Deflate})
	w.Write(fixture(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 60,
		1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0))
	w, _ = zw.CreateHeader(&zip.FileHeader{Name: "ids.npy", Method: zip.Store})
	w.Write(fixture(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }", 58, 1, 0, 0, 1))
	zw.Close()
	got, names, err := npy.ReadNPZ(b.Bytes(), 0)
	if err != nil || len(names) != 2 || names[0] != "logits" || fmt.Sprint(got["ids"]) != fmt.Sprint(tensor.Of([]int{2, 2}, []bool{true, false, false, true})) || fmt.Sprint(got["logits"]) != fmt.Sprint(tensor.Of([]int{3}, []int64{1, 2, 3})) {
		t.Fatalf("got %v %v %v", got, names, err)
	}
}

// TestNPZReadableByArchiveZip: what WriteNPZ writes is a valid zip.
func TestNPZReadableByArchiveZip(t *testing.T) {
	b, err := npy.WriteNPZ(map[string]*tensor.Tensor{"a": tensor.Of([]int{1}, []int64{7}), "b": tensor.Of([]int{2}, []float32{1, 2})}, []string{"b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(zr.File) != 2 || zr.File[0].Name != "b.npy" {
		t.Fatalf("%v %v", err, zr)
	}
	rc, err := zr.File[1].Open()
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := npy.Read(data, 0); err != nil || fmt.Sprint(back) != fmt.Sprint(tensor.Of([]int{1}, []int64{7})) {
		t.Errorf("%v %v", back, err)
	}
	if _, _, err := npy.ReadNPZ(b[:len(b)-30], 0); err == nil {
		t.Error("truncated archive read")
	}
}
