#!/usr/bin/env bash
# Resolves the deployable code the way a deploy does: the sources (functions/, shared/) and deno.json in
# a throwaway folder with no package.json and no node_modules, so every bare specifier must come from
# deno.json's "imports" and Deno fetches the npm: packages itself (as Supabase's bundler does; locally,
# `"nodeModulesDir": "manual"` plus package.json would hide a missing entry). Then:
#   - deno.json is checked against what the code imports and against package.json's pinned versions;
#   - `deno check` type-checks the function entries (functions/*/index.ts, supabase/config.toml's);
#   - Deno loads each entry's imports (not the entry itself: index.ts serves and reads env at import)
#     and every lazily imported module (each `import("…")` under functions/ and shared/, found by
#     scripts/ci/deno-deploy-scan.mjs), so pdf-lib, qr, postgres and supabase-js must really load.
# Deno's cache (DENO_DIR) is node_modules/.cache/deno-deploy-check: empty on a fresh machine, filled
# from the npm registry on the first run.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
deno=$root/node_modules/.bin/deno
export DENO_DIR=$root/node_modules/.cache/deno-deploy-check
export NO_COLOR=1 DENO_NO_UPDATE_CHECK=1 RUST_BACKTRACE=0
started=$(date +%s%N)

entries=()
for f in functions/*/index.ts $(sed -nE 's|^\s*entrypoint\s*=\s*"\.\./([^"]+)".*|\1|p' supabase/config.toml); do
  [[ " ${entries[*]} " == *" $f "* ]] || entries+=("$f")
done
for f in "${entries[@]}"; do
  [ -f "$f" ] || { echo "deno deploy check: entry $f (supabase/config.toml) does not exist" >&2; exit 1; }
done

# A fixed folder (per user and checkout, under a lock) so that Deno's type-check cache applies run to run.
dir=${TMPDIR:-/tmp}/einv-deno-deploy-check-$(id -u)-$(cksum <<<"$root" | cut -d' ' -f1)
exec 9>"$dir.lock"
flock 9
rm -rf "$dir"
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
# Deno looks for package.json and node_modules in the folders above too.
up=$(dirname "$dir")
while :; do
  if [ -e "$up/package.json" ] || [ -e "$up/node_modules" ] || [ -e "$up/deno.json" ]; then
    echo "deno deploy check: $up holds a package.json, node_modules or deno.json; set TMPDIR elsewhere" >&2
    exit 1
  fi
  [ "$up" = / ] && break
  up=$(dirname "$up")
done
cp -R functions shared "$dir"/
node -e 'const c = JSON.parse(require("fs").readFileSync("deno.json", "utf8")); delete c.nodeModulesDir;
  require("fs").writeFileSync(process.argv[1], JSON.stringify(c, null, 2))' "$dir/deno.json"

failed=0
# Prints a failure with the first 40 lines of its output (the rest: run the same command in the repository).
report() {
  echo "deno deploy check FAILED: $1" >&2
  awk 'NR <= 40 { print "  " $0 } END { if (NR > 40) print "  … " NR - 40 " more lines" }' >&2
  failed=1
}

if ! out=$(node scripts/ci/deno-deploy-scan.mjs "$dir" "${entries[@]}" 2>&1); then
  report "deno.json does not match the imports or package.json" <<<"$out"
fi
cd "$dir"
if ! out=$("$deno" check --quiet "${entries[@]}" 2>&1); then
  report "deno check ${entries[*]} (only functions/ and shared/ are deployed)" <<<"$out"
fi
if ! loaded=$("$deno" run --quiet --no-prompt --allow-read deploy-check-load.ts 2>&1); then
  report "loading the entries' imports and the lazily imported modules" <<<"$loaded"
fi
[ "$failed" = 0 ] || exit 1
echo "deno deploy check: ${entries[*]} type-checked; $loaded loaded with npm: from deno.json alone ($(( ($(date +%s%N) - started) / 1000000 )) ms)"
