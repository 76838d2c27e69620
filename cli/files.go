package cli

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"unicode"
	"unicode/utf8"
)

// The CLI's file access: package os, whose errors read the same under
// GOOS=js (gort-cli.wasm run by the npm package's `gort`, where os calls Node's
// fs) as natively on Linux. Go's js/wasm port words its errno messages
// with a capital ("No such file or directory"), Linux's without.

func readFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	return b, osError(err)
}

func writeFile(path string, b []byte) error { return osError(os.WriteFile(path, b, 0o644)) }

func mkdirAll(path string) error { return osError(os.MkdirAll(path, 0o755)) }

func stat(path string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	return st, osError(err)
}

func osError(err error) error {
	var pe *fs.PathError
	if runtime.GOOS != "js" || !errors.As(err, &pe) {
		return err
	}
	return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: lowered{pe.Err}}
}

// lowered is an error whose message starts in lower case; errors.Is sees
// the error it wraps.
type lowered struct{ error }

func (l lowered) Error() string {
	s := l.error.Error()
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

func (l lowered) Unwrap() error { return l.error }
