#!/usr/bin/env bash
# npm runs this before `npm pack` and `npm publish` (package.json "prepack"),
# so that no package goes out without its WebAssembly: when a dist/ file that
# package.json "files" lists is missing, it builds js/dist (bash build.sh,
# which needs Go and this repository's Go sources), or refuses with a message
# saying what to do. A dist/ that is present is packed as it is: `make
# package` rebuilds it first.
set -euo pipefail
cd "$(dirname "$0")/.."
missing() {
  node -e '
    const fs = require("fs");
    const files = require("./package.json").files.filter((f) => f.startsWith("dist/"));
    console.log(files.filter((f) => !fs.existsSync(f) || fs.statSync(f).size === 0).join(" "));'
}
gone="$(missing)"
[[ -z "$gone" ]] && exit 0

export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"
if ! command -v go >/dev/null 2>&1 || [[ ! -f ../go.mod || ! -d ../wasm ]]; then
  cat >&2 <<MSG
gort: refusing to pack: js/dist is not built (missing: $gone).
Build it from a checkout of the gort repository with Go installed (any Go >= 1.21; GOTOOLCHAIN=auto fetches
the Go 1.27 that go.mod asks for): run 'make package' at the repository root, or 'bash js/build.sh' and then
'npm pack' again.
MSG
  exit 1
fi
echo "gort: js/dist is not built (missing: $gone); building it with js/build.sh" >&2
bash build.sh >&2
gone="$(missing)"
if [[ -n "$gone" ]]; then
  echo "gort: refusing to pack: js/build.sh finished but $gone still missing" >&2
  exit 1
fi
