#!/usr/bin/env bash
# Installs Debian's chromium (apt, with sudo unless root) when
# ${CHROMIUM:-/usr/bin/chromium} is missing, for the headless-browser tests
# of js/test.sh and demo/test.sh. GORT_SKIP_BROWSER=1 skips it.
set -euo pipefail
if [[ "${GORT_SKIP_BROWSER:-}" != 1 && ! -x "${CHROMIUM:-/usr/bin/chromium}" ]]; then
  SUDO=""
  [[ "$(id -u)" == 0 ]] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 \
    || { $SUDO apt-get update -qq && $SUDO apt-get install -y --no-install-recommends chromium >/dev/null; }
fi
