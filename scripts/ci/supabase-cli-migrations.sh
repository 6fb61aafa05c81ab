#!/usr/bin/env bash
# Applies supabase/migrations with the Supabase CLI (`migration up`) to a throwaway PostgreSQL 15
# cluster carrying the compatibility bootstrap, so the files stay in the form a real project's CLI
# accepts (file names, history table, one transaction per file) — first as a new project's first
# push before Realtime has set up its schema, then once it has. No Docker needed.
set -euo pipefail
cd "$(dirname "$0")/../.."

bindir=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
dir=$(mktemp -d /tmp/einv-cli-XXXXXX)
port=$((20000 + RANDOM % 20000))
run() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$dir"
cleanup() { run "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT

run "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
run "$bindir/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
url="postgresql://postgres@127.0.0.1:$port/postgres?sslmode=disable"
psql() { PGOPTIONS="-c client_min_messages=warning" command psql "$@"; }

psql "$url" -q -v ON_ERROR_STOP=1 -f supabase/compat/bootstrap.sql >/dev/null
expected=$(ls supabase/migrations/*.sql | wc -l)
applied() { psql "$url" -tAc "select count(*) from supabase_migrations.schema_migrations"; }

# A new project's first push, before Realtime has set up its schema: every migration but the last
# (Realtime's) applies, and that one is refused saying what to do (docs/deploying.md, "Realtime: the
# last migration"); once Realtime's schema is there, the next push applies it.
psql "$url" -q -v ON_ERROR_STOP=1 -c "drop schema realtime cascade" >/dev/null
if node_modules/.bin/supabase migration up --db-url "$url" --yes >"$dir/first.log" 2>&1; then
  echo "supabase CLI: the first push succeeded without Realtime's schema" >&2
  exit 1
fi
if [ "$(applied)" != "$((expected - 1))" ] || ! grep -q "Realtime has not set up this project's realtime schema yet" "$dir/first.log"; then
  cat "$dir/first.log" >&2
  echo "supabase CLI: without Realtime's schema, $(applied) of $expected migrations applied" >&2
  exit 1
fi
echo "supabase CLI: without Realtime's schema, $(applied) of $expected migrations applied; the last says why"
psql "$url" -q -v ON_ERROR_STOP=1 -f supabase/compat/bootstrap.sql >/dev/null

node_modules/.bin/supabase migration up --db-url "$url" --yes
if [ "$(applied)" != "$expected" ]; then
  echo "supabase CLI applied $(applied) of $expected migrations" >&2
  exit 1
fi
echo "supabase CLI: all $(applied) migrations applied"
