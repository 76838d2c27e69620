package npy

import (
	"bytes"
	"compress/flate"
	"hash/crc32"
	"io"
	"sort"
	"strings"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/tensor"
)

// An .npz is a zip archive of .npy members, stored (np.savez) or deflated
// (np.savez_compressed). This file reads and writes that subset of zip itself:
// archive/zip's registration of compressors and its GODEBUG settings cost
// about 1 MB of gort.wasm.

const (
	sigLocal   = 0x04034b50
	sigCentral = 0x02014b50
	sigEnd     = 0x06054b50
	sigEnd64   = 0x06064b50
)

var le = littleEndian{}

// ReadNPZ decodes an .npz archive into its arrays by name ("x.npy" is named
// "x"), and the names in archive order.
func ReadNPZ(data []byte, maxBytes int64) (map[string]*tensor.Tensor, []string, error) {
	if maxBytes <= 0 {
		maxBytes = 2 << 30
	}
	// The end-of-central-directory record is in the last 64 KiB + 22 bytes.
	end := -1
	for i := len(data) - 22; i >= 0 && i >= len(data)-22-65535; i-- {
		if le.Uint32(data[i:]) == sigEnd {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, nil, bad("not an .npz archive (no zip directory)")
	}
	count := int(le.Uint16(data[end+10:]))
	dirOff := int64(le.Uint32(data[end+16:]))
	if count == 0xffff || dirOff == 0xffffffff {
		return nil, nil, bad("zip64 .npz archives are not supported")
	}
	out := map[string]*tensor.Tensor{}
	var names []string
	p := dirOff
	for k := 0; k < count; k++ {
		if p < 0 || p+46 > int64(len(data)) || le.Uint32(data[p:]) != sigCentral {
			return nil, nil, bad("corrupt zip directory")
		}
		h := data[p:]
		method := le.Uint16(h[10:])
		crc := le.Uint32(h[16:])
		csize, usize := int64(le.Uint32(h[20:])), int64(le.Uint32(h[24:]))
		nlen, xlen, clen := int64(le.Uint16(h[28:])), int64(le.Uint16(h[30:])), int64(le.Uint16(h[32:]))
		local := int64(le.Uint32(h[42:]))
		if p+46+nlen > int64(len(data)) {
			return nil, nil, bad("corrupt zip directory")
		}
		name := string(h[46 : 46+nlen])
		p += 46 + nlen + xlen + clen
		if local+30 > int64(len(data)) || le.Uint32(data[local:]) != sigLocal {
			return nil, nil, bad("member %q: corrupt local header", name)
		}
		start := local + 30 + int64(le.Uint16(data[local+26:])) + int64(le.Uint16(data[local+28:]))
		if start+csize > int64(len(data)) || csize < 0 {
			return nil, nil, bad("member %q runs past the end of the archive", name)
		}
		if usize > maxBytes+1<<20 {
			return nil, nil, errs.New(errs.TooLarge, "npz: member %q of %d bytes exceeds the budget", name, usize)
		}
		raw := data[start : start+csize]
		var b []byte
		switch method {
		case 0:
			b = raw
		case 8:
			r := flate.NewReader(bytes.NewReader(raw))
			var err error
			b, err = io.ReadAll(io.LimitReader(r, usize+1))
			r.Close()
			if err != nil {
				return nil, nil, bad("member %q: %v", name, err)
			}
		default:
			return nil, nil, bad("member %q: zip method %d is not supported", name, method)
		}
		if int64(len(b)) != usize || crc32.ChecksumIEEE(b) != crc {
			return nil, nil, bad("member %q: size or checksum does not match", name)
		}
		t, err := Read(b, maxBytes)
		if err != nil {
			return nil, nil, errs.New(errs.InvalidArgument, "npz member %q: %v", name, err)
		}
		n := strings.TrimSuffix(name, ".npy")
		out[n] = t
		names = append(names, n)
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
	var b, dir bytes.Buffer
	put16 := func(w *bytes.Buffer, v int) { w.Write([]byte{byte(v), byte(v >> 8)}) }
	put32 := func(w *bytes.Buffer, v uint32) { w.Write([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}) }
	for _, name := range order {
		t, ok := arrays[name]
		if !ok {
			return nil, bad("no array %q", name)
		}
		data, err := Write(t)
		if err != nil {
			return nil, err
		}
		if int64(len(data)) >= 0xffffffff || b.Len() >= 0xffffffff {
			return nil, bad("array %q is too large for a zip without zip64", name)
		}
		fname := name + ".npy"
		crc := crc32.ChecksumIEEE(data)
		off := uint32(b.Len())
		// Local header: version 20, no flags, stored, DOS time 0 (1980-01-01).
		put32(&b, sigLocal)
		put16(&b, 20)
		put16(&b, 0)
		put16(&b, 0)
		put16(&b, 0)
		put16(&b, 0x21)
		put32(&b, crc)
		put32(&b, uint32(len(data)))
		put32(&b, uint32(len(data)))
		put16(&b, len(fname))
		put16(&b, 0)
		b.WriteString(fname)
		b.Write(data)
		put32(&dir, sigCentral)
		put16(&dir, 20)
		put16(&dir, 20)
		put16(&dir, 0)
		put16(&dir, 0)
		put16(&dir, 0)
		put16(&dir, 0x21)
		put32(&dir, crc)
		put32(&dir, uint32(len(data)))
		put32(&dir, uint32(len(data)))
		put16(&dir, len(fname))
		put16(&dir, 0)
		put16(&dir, 0)
		put16(&dir, 0)
		put16(&dir, 0)
		put32(&dir, 0)
		put32(&dir, off)
		dir.WriteString(fname)
	}
	dirOff := uint32(b.Len())
	dirLen := uint32(dir.Len())
	b.Write(dir.Bytes())
	put32(&b, sigEnd)
	put16(&b, 0)
	put16(&b, 0)
	put16(&b, len(order))
	put16(&b, len(order))
	put32(&b, dirLen)
	put32(&b, dirOff)
	put16(&b, 0)
	return b.Bytes(), nil
}
