package npy

import (
	"archive/zip"
	"bytes"
	"io"
	"sort"
	"strings"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/tensor"
)

// ReadNPZ decodes an .npz archive (np.savez / np.savez_compressed) into its
// arrays by name ("x.npy" is named "x"), and the names in archive order.
func ReadNPZ(data []byte, maxBytes int64) (map[string]*tensor.Tensor, []string, error) {
	if maxBytes <= 0 {
		maxBytes = 2 << 30
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, bad("not an .npz archive: %v", err)
	}
	out := map[string]*tensor.Tensor{}
	var names []string
	for _, f := range zr.File {
		if int64(f.UncompressedSize64) > maxBytes+1<<20 {
			return nil, nil, errs.New(errs.TooLarge, "npz: member %q of %d bytes exceeds the budget", f.Name, f.UncompressedSize64)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, nil, bad("npz member %q: %v", f.Name, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxBytes+1<<20))
		rc.Close()
		if err != nil {
			return nil, nil, bad("npz member %q: %v", f.Name, err)
		}
		t, err := Read(b, maxBytes)
		if err != nil {
			return nil, nil, errs.New(errs.InvalidArgument, "npz member %q: %v", f.Name, err)
		}
		name := strings.TrimSuffix(f.Name, ".npy")
		out[name] = t
		names = append(names, name)
	}
	return out, names, nil
}

// WriteNPZ writes arrays as an uncompressed .npz (np.savez's layout), in
// the given order (sorted names when order is nil).
func WriteNPZ(arrays map[string]*tensor.Tensor, order []string) ([]byte, error) {
	if order == nil {
		for k := range arrays {
			order = append(order, k)
		}
		sort.Strings(order)
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range order {
		t, ok := arrays[name]
		if !ok {
			return nil, bad("no array %q", name)
		}
		data, err := Write(t)
		if err != nil {
			return nil, err
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
