#!/bin/sh
# Playwright drives Debian's Chromium; browser downloads are impossible here.
set -e
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" = "0" ]; then
  echo "e2e: installing Debian's chromium (apt-get install -y chromium)…"
  (apt-get install -y -qq chromium >/dev/null 2>&1) || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)
  exit 0
fi
echo "e2e: /usr/bin/chromium is missing. Install it with: sudo apt-get install -y chromium" >&2
exit 1
