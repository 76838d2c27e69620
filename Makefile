# gort — see README.md. Every target installs what it needs on a fresh machine.

# go.mod pins the toolchain (go1.27.x); an older `go` fetches it from the module proxy.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

export GOTOOLCHAIN := auto
export PATH := $(PATH):/usr/local/go/bin:$(HOME)/go/bin
GO ?= go
# $(shell) does not see exported variables in make 4.3, so pass them explicitly.
GOROOT_WASM = $(shell PATH="$(PATH)" GOTOOLCHAIN=auto $(GO) env GOROOT)/lib/wasm
WASM_EXEC = $(GOROOT_WASM)/go_js_wasm_exec
PROTOC_GEN_GO_VERSION = v1.36.12
BENCH_MODEL ?= testdata/bench/test_squeezenet

.PHONY: all build run test test-go test-wasm test-webgpu test-js test-diff conformance manifest bench generate proto check wasm js fuzz

all: build

build:
	$(GO) build ./...
	bash js/build.sh

# The main job: run a bundled network natively and check its output.
run:
	$(GO) run ./cmd/gort run $(BENCH_MODEL)/model.onnx -data $(BENCH_MODEL)/test_data_set_0 -repeat 3

# Everything CI runs.
test: check test-go test-wasm test-webgpu test-diff test-js

check:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$'))" || { gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$'); echo "gofmt needed"; exit 1; }
	$(GO) mod tidy -diff
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/... ./runtime/... ./ops/...
	GOOS=js GOARCH=wasm $(GO) build -tags gortlite -o /dev/null ./wasm

test-go:
	$(GO) test ./...
	$(GO) test -tags gortlite ./runtime/conformance/ ./runtime/protoconv/ ./ops/nn/ ./ops/tensorops/

# The conformance suite (and the other runtime/ops tests) compiled to WebAssembly, run in Node.
test-wasm:
	GOOS=js GOARCH=wasm $(GO) test -exec="$(WASM_EXEC)" ./runtime/conformance/ ./ops/...

# The WebGPU kernels on both headless hosts (Node + Dawn, headless Chromium; SwiftShader, no GPU
# needed): node-suite Conv/ConvTranspose/Resize/Upsample cases with device placement, 1000 random
# Conv and 1000 random Resize configurations against the CPU, a device lost mid-run; then the
# executionProviders option of gort.wasm with and without navigator.gpu (tools/webgpu/bridge.sh).
# Tools go to .webgpu-tools (ignored); a host without an adapter fails the target.
test-webgpu:
	GORT_WEBGPU_REQUIRED=1 bash tools/webgpu/ci-webgpu.sh ./ops/webgpu/
	bash tools/webgpu/bridge.sh

test-diff:
	bash tools/difftest/run.sh

test-js:
	bash js/build.sh
	bash js/test.sh

# Per-op table in testdata/conformance/TABLE.md; checks the wasm run against the same manifest, then
# ends with the summary line of the native run.
conformance:
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(WASM_EXEC)" -run TestNodeSuite -v ./runtime/conformance/ | grep -E '^(conformance|FAIL|--- FAIL|\s+suite_test)' | sed 's/^conformance:/wasm: conformance:/'
	GORT_CONFORMANCE_TABLE=$(CURDIR)/testdata/conformance/TABLE.md $(GO) test -count=1 -run TestNodeSuite -v ./runtime/conformance/ | grep -E '^(conformance|FAIL|--- FAIL|\s+suite_test)'

# Rewrite the manifest from the current results (review the diff before committing).
manifest:
	GORT_UPDATE_MANIFEST=1 $(GO) test -count=1 -run TestNodeSuite ./runtime/conformance/

# Load and inference time: native Go, Go-in-wasm (Node), and the JS package side by side with
# onnxruntime-web (single thread) in one Node process, with ratios.
bench:
	$(GO) run ./tools/bench $(BENCH_MODEL)
	GOOS=js GOARCH=wasm $(GO) build -o /tmp/gort-bench.wasm ./tools/bench && "$(WASM_EXEC)" /tmp/gort-bench.wasm $(BENCH_MODEL)
	test -f js/dist/gort.mjs || bash js/build.sh
	cd tools/bench/js && { test -d node_modules/onnxruntime-web || npm install --no-audit --no-fund --loglevel=error; }
	node tools/bench/js/bench.mjs $(BENCH_MODEL)

fuzz:
	$(GO) test -run XXX -fuzz FuzzLoad -fuzztime 10m -parallel 1 ./runtime/graph/

# Regenerate generated code: the ONNX protobuf bindings (protoc-gen-go, then the wire decoder and the
# gortlite types of tools/genpbwire) and the spec version table.
generate: proto
	$(GO) run ./tools/genspec

proto:
	command -v protoc >/dev/null || (apt-get update && apt-get install -y protobuf-compiler)
	$(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	cd runtime/onnxpb && protoc -I spec --go_out=. --go_opt=paths=source_relative \
		--go_opt=Monnx.proto3=github.com/gort-dev/gort/runtime/onnxpb \
		--go_opt=Monnx-data.proto=github.com/gort-dev/gort/runtime/onnxpb \
		onnx.proto3 onnx-data.proto
	# The protoc-gen-go types are for every build but gortlite (js/build.sh), which uses lite_gen.go.
	cd runtime/onnxpb && sed -i '1i //go:build !gortlite\n' onnx.proto3.pb.go onnx-data.pb.go
	rm -f runtime/onnxpb/wire_gen.go
	$(GO) run ./tools/genpbwire
