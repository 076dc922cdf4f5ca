#!/usr/bin/env bash
# The browser tests (e2e/browser.test.mjs) drive Debian's Chromium. Install
# it when it is missing: as root through apt, else say what to run.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Chromium for the browser tests (apt-get install chromium)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
  exit 0
fi
echo "the browser tests need Chromium: run 'sudo apt-get install chromium' (or set CHROMIUM to its path)" >&2
exit 1
