#!/usr/bin/env bash
# Runs `npm test` on a fresh Debian machine after `npm install`: installs from Debian what the suites need
# and the machine lacks (as root), starts PostgreSQL and Redis where they are installed but stopped, then
# runs `npm test` with the arguments given (`bash scripts/test-on-debian.sh server e2e`). CI's gate
# (.ci/run) runs this same script.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive PUPPETEER_SKIP_DOWNLOAD=1

# What the suites check for first (test/requirements.ts): Chromium for the widget and end-to-end tests;
# Ruby and python3 to run docs/privacy.md's email-signature snippets as written; Prometheus (and its
# promtool) to scrape the service's metrics and check docs/ops/alerts.yml; pg_dump, pg_restore and psql
# for the PostgreSQL backup docs/operate.md documents; PgBouncer, which the service suite and the
# benchmark's PostgreSQL runs also go through.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v ruby >/dev/null || missing+=(ruby)
command -v python3 >/dev/null || missing+=(python3)
command -v prometheus >/dev/null && command -v promtool >/dev/null || missing+=(prometheus)
command -v pg_dump >/dev/null && command -v pg_restore >/dev/null || missing+=(postgresql-client)
command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "This machine lacks ${missing[*]}: run this script as root, or install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "--- installing ${missing[*]} from Debian"
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# PostgreSQL and Redis: started if installed and stopped (under CI, npm test refuses to run without
# them rather than skip their tests).
if command -v pg_isready >/dev/null && ! pg_isready -h 127.0.0.1 -p 5432 -q && [ -d /etc/postgresql ]; then
  echo "--- starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start
  for _ in $(seq 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
if command -v redis-server >/dev/null && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "--- starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/test.log
fi

echo "--- npm test $*"
# Each test file has its own limit (package.json: --test-timeout, --test-force-exit), so a test that
# fails with a server still open ends as a failure; this bounds the whole run the same way.
exec timeout --kill-after=30 2700 npm test -- "$@"
