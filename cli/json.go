package cli

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The CLI's JSON, without encoding/json: linked into gort.wasm (where the
// npm package's `gort` runs this code), encoding/json costs about 1 MB raw
// and 170 KB gzip, most of the download budget's headroom. appendJSON writes
// what json.Encoder with SetIndent("", "  ") writes for the documents the
// verbs print (json_test.go holds it to that); parseJSON reads --inputs
// .json files.

// marshaler is json.Marshaler (compare.Float implements it).
type marshaler interface {
	MarshalJSON() ([]byte, error)
}

var marshalerType = reflect.TypeFor[marshaler]()

// encodeJSON is v indented by two spaces, with a final newline.
func encodeJSON(v any) ([]byte, error) {
	b, err := appendJSON(nil, reflect.ValueOf(v), "\n")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// appendJSON appends v; nl is the newline and indentation of v's line.
func appendJSON(b []byte, v reflect.Value, nl string) ([]byte, error) {
	if !v.IsValid() {
		return append(b, "null"...), nil
	}
	if v.Type().Implements(marshalerType) && !(v.Kind() == reflect.Pointer && v.IsNil()) {
		m, err := v.Interface().(marshaler).MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("json: error calling MarshalJSON for type %s: %w", v.Type(), err)
		}
		return append(b, m...), nil
	}
	inner := nl + "  "
	switch v.Kind() {
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case reflect.Float32:
		return appendFloat(b, v.Float(), 32)
	case reflect.Float64:
		return appendFloat(b, v.Float(), 64)
	case reflect.String:
		return appendString(b, v.String()), nil
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return appendJSON(b, v.Elem(), nl)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return append(b, "null"...), nil
		}
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return nil, fmt.Errorf("json: unsupported type: %s", v.Type())
		}
		if v.Len() == 0 {
			return append(b, "[]"...), nil
		}
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, inner...)
			var err error
			if b, err = appendJSON(b, v.Index(i), inner); err != nil {
				return nil, err
			}
		}
		return append(append(b, nl...), ']'), nil
	case reflect.Map:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		type entry struct {
			key string
			val reflect.Value
		}
		var es []entry
		for it := v.MapRange(); it.Next(); {
			k := it.Key()
			var ks string
			switch k.Kind() {
			case reflect.String:
				ks = k.String()
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				ks = strconv.FormatInt(k.Int(), 10)
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
				ks = strconv.FormatUint(k.Uint(), 10)
			default:
				return nil, fmt.Errorf("json: unsupported type: %s", v.Type())
			}
			es = append(es, entry{ks, it.Value()})
		}
		sort.Slice(es, func(i, j int) bool { return es[i].key < es[j].key })
		return appendObject(b, len(es), func(b []byte, i int) ([]byte, bool, error) {
			b = appendString(append(b, inner...), es[i].key)
			b, err := appendJSON(append(b, ": "...), es[i].val, inner)
			return b, true, err
		}, nl)
	case reflect.Struct:
		fields := structFields(v.Type())
		return appendObject(b, len(fields), func(b []byte, i int) ([]byte, bool, error) {
			f := fields[i]
			fv, ok := fieldByIndex(v, f.index)
			if !ok || (f.omitEmpty && isEmpty(fv)) {
				return b, false, nil
			}
			b = appendString(append(b, inner...), f.name)
			b, err := appendJSON(append(b, ": "...), fv, inner)
			return b, true, err
		}, nl)
	}
	return nil, fmt.Errorf("json: unsupported type: %s", v.Type())
}

// appendObject writes the members member(i) appends (those it reports).
func appendObject(b []byte, n int, member func(b []byte, i int) ([]byte, bool, error), nl string) ([]byte, error) {
	b = append(b, '{')
	start, some := len(b), false
	for i := range n {
		mark := len(b)
		if some {
			b = append(b, ',')
		}
		var wrote bool
		var err error
		if b, wrote, err = member(b, i); err != nil {
			return nil, err
		}
		if !wrote {
			b = b[:mark]
			continue
		}
		some = true
	}
	if len(b) == start {
		return append(b, '}'), nil
	}
	return append(append(b, nl...), '}'), nil
}

// appendFloat writes f as encoding/json does: the shortest decimal that
// reads back as f at its size, in exponent form below 1e-6 and from 1e21.
func appendFloat(b []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, bits))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendString quotes s as encoding/json does, escaping <, > and & (and
// U+2028, U+2029) for HTML and replacing invalid UTF-8 with U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, "\uFFFD"...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

type jsonField struct {
	name      string
	index     []int
	omitEmpty bool
}

// structFields lists t's encoded fields in order: exported ones, named by
// their json tag, `json:"-"` left out, untagged embedded structs inlined
// (the shallower of two fields of one name wins; at one depth, neither).
func structFields(t reflect.Type) []jsonField {
	type found struct {
		jsonField
		depth  int
		tagged bool
	}
	var all []found
	var walk func(t reflect.Type, index []int, depth int)
	walk = func(t reflect.Type, index []int, depth int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			idx := append(slices.Clone(index), i)
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				walk(ft, idx, depth+1)
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			omit := slices.Contains(strings.Split(opts, ","), "omitempty")
			all = append(all, found{jsonField{name, idx, omit}, depth, tag != ""})
		}
	}
	walk(t, nil, 0)
	var out []jsonField
	for i, f := range all {
		keep := true
		for j, g := range all {
			if i == j || g.name != f.name {
				continue
			}
			if g.depth < f.depth || g.depth == f.depth && (g.tagged && !f.tagged || g.tagged == f.tagged) {
				keep = false
			}
		}
		if keep {
			out = append(out, f.jsonField)
		}
	}
	return out
}

// fieldByIndex is v's field at index, false through a nil embedded pointer.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// jsonNumber is a number as written in the file (as json.Number).
type jsonNumber string

// parseJSON reads one JSON value: objects as map[string]any, arrays as
// []any, numbers as jsonNumber, and strings, booleans and null. What follows
// the value is ignored, as json.Decoder.Decode does.
func parseJSON(b []byte) (any, error) {
	p := &jsonParser{b: b}
	return p.value(0)
}

type jsonParser struct {
	b []byte
	i int
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *jsonParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > 10000 {
		return nil, p.errorf("nested too deeply")
	}
	p.space()
	if p.i >= len(p.b) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		obj := map[string]any{}
		p.space()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return obj, nil
		}
		for {
			p.space()
			if p.i >= len(p.b) || p.b[p.i] != '"' {
				return nil, p.errorf("want a string key")
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, p.errorf("want ':' after a key")
			}
			p.i++
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			obj[k] = v
			p.space()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == '}' {
				p.i++
				return obj, nil
			}
			return nil, p.errorf("want ',' or '}' in an object")
		}
	case c == '[':
		p.i++
		arr := []any{}
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return arr, nil
		}
		for {
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			p.space()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == ']' {
				p.i++
				return arr, nil
			}
			return nil, p.errorf("want ',' or ']' in an array")
		}
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		for p.i < len(p.b) && strings.IndexByte("+-0123456789.eE", p.b[p.i]) >= 0 {
			p.i++
		}
		s := string(p.b[start:p.i])
		if _, err := strconv.ParseFloat(s, 64); err != nil && !errors.Is(err, strconv.ErrRange) || !validNumber(s) {
			p.i = start
			return nil, p.errorf("bad number %q", s)
		}
		return jsonNumber(s), nil
	}
	for _, lit := range []struct {
		s string
		v any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if strings.HasPrefix(string(p.b[p.i:min(p.i+5, len(p.b))]), lit.s) {
			p.i += len(lit.s)
			return lit.v, nil
		}
	}
	return nil, p.errorf("unexpected %q", p.b[p.i])
}

// validNumber holds s to JSON's number grammar (no leading zeros, no
// leading '+', no bare '.').
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// str reads a string at p.i (its opening quote).
func (p *jsonParser) str() (string, error) {
	p.i++
	var sb strings.Builder
	for {
		if p.i >= len(p.b) {
			return "", p.errorf("unterminated string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return sb.String(), nil
		case c < 0x20:
			return "", p.errorf("control character in a string")
		case c != '\\':
			r, size := utf8.DecodeRune(p.b[p.i:])
			sb.WriteRune(r) // invalid UTF-8 becomes U+FFFD
			p.i += size
			continue
		}
		if p.i+1 >= len(p.b) {
			return "", p.errorf("unterminated string")
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			sb.WriteByte(e)
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.errorf("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					var ok bool
					if r2, ok = p.hex4(); !ok {
						return "", p.errorf("bad \\u escape")
					}
					if utf16.DecodeRune(r, r2) == utf8.RuneError {
						p.i, r2 = save, -1
					}
				}
				if r2 < 0 {
					r = utf8.RuneError
				} else {
					r = utf16.DecodeRune(r, r2)
				}
			}
			sb.WriteRune(r)
		default:
			return "", p.errorf("bad escape \\%c", e)
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}
