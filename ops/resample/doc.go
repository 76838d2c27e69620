// Package resample implements ONNX operators for resampling and the export pitfalls: Resize, Upsample, Pad, ArgMax/ArgMin, NonMaxSuppression, GridSample, RoiAlign.
package resample
