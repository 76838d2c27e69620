// Package gpu is the WebGPU device layer: an adapter and device opened
// through syscall/js (navigator.gpu), storage buffers pooled by size class,
// compute pipelines created with createComputePipelineAsync and cached by
// key, and dispatches whose shapes travel in a uniform buffer.
//
// It knows nothing about operators (package ops/webgpu holds the WGSL
// kernels). Every call that waits on a JS promise must run in a goroutine,
// never inside a js.FuncOf callback: the promise settles on the event loop,
// which a blocked callback would hold.
//
// Only GOOS=js GOARCH=wasm has a device; elsewhere Open says why not.
package gpu

// Limits are the device limits the kernels plan with (requested from the
// adapter with requiredLimits, so they are the adapter's, not the defaults).
type Limits struct {
	MaxStorageBufferBindingSize int64
	MaxBufferSize               int64
	MaxStorageBuffersPerStage   int
	MaxWorkgroupsPerDimension   int
	MaxInvocationsPerWorkgroup  int
}
