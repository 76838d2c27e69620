//go:build !(js && wasm)

package gpu

import "errors"

// Device is unavailable outside GOOS=js GOARCH=wasm.
type Device struct{}

// Open reports that this build has no WebGPU.
func Open() (*Device, error) {
	return nil, errors.New("WebGPU needs the WebAssembly build (GOOS=js GOARCH=wasm) running in a host with navigator.gpu")
}
