// Package image implements the ONNX ImageDecoder operator: encoded image
// bytes in, an 8-bit [H, W, C] raster out.
//
// Only the Go standard library decodes here (PNG, JPEG, GIF), plus small
// hand-written BMP and PNM readers, because every dependency ends up in the
// WebAssembly download. Formats that would need a third-party codec (TIFF,
// WebP, JPEG 2000) are recognised by their signature and refused with an
// error that names them, rather than a vague "unknown format".
//
// Decoding is hostile-input safe: every decoder reports the declared size
// first, and the size is checked against the session's memory budget before
// any pixel buffer is allocated.
package image
