#!/bin/sh
# Debian packages the tests drive for real: Chromium for Playwright (browser downloads are impossible here)
# the benchmark tools the agent/CLI/e2e run, systemd-analyze and PostgreSQL. Installs what is missing when root; otherwise says how.
set -e
need=""
[ -x /usr/bin/chromium ] || need="$need chromium"
for t in sysbench fio wrk hey; do command -v "$t" >/dev/null 2>&1 || need="$need $t"; done
command -v pgbench >/dev/null 2>&1 || need="$need postgresql-client"
# systemd-analyze verifies the agent's unit; Debian's PostgreSQL is the external server of the docker file-set test.
command -v systemd-analyze >/dev/null 2>&1 || need="$need systemd"
[ -x /usr/lib/postgresql/15/bin/postgres ] || need="$need postgresql-15"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = "0" ]; then
  echo "tests: installing Debian packages:$need"
  # shellcheck disable=SC2086
  (apt-get install -y -qq $need >/dev/null 2>&1) || (apt-get update -qq && apt-get install -y -qq $need >/dev/null)
  exit 0
fi
echo "tests: missing Debian packages:$need. Install them with: sudo apt-get install -y$need" >&2
exit 1
