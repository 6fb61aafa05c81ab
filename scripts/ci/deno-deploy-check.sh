#!/usr/bin/env bash
# Resolves each function the way `supabase functions deploy` does (CLI 2.117.0, Docker path): the
# edge-runtime bundler gets the entrypoint and `--import-map <the file supabase/config.toml names>`,
# reads that file as the Deno *config*, runs with DENO_NO_PACKAGE_JSON=1 and sees only the files the
# module graph needs (no package.json, no node_modules). So, in a throwaway folder with no package.json
# and no node_modules in it or anywhere above it, holding functions/, shared/ and that file copied
# byte for byte (compared after the copy):
#   - the file is checked for keys the bundler would act on wrongly (nodeModulesDir, vendor, workspace…)
#     and against what the code imports and package.json's pinned versions (deno-deploy-scan.mjs);
#   - `deno check --config <that file>` type-checks each function's entrypoint;
#   - Deno loads each entry's imports (not the entry itself: index.ts serves and reads env at import)
#     and every lazily imported module (each `import("…")` under functions/ and shared/), so pdf-lib,
#     qr, postgres and supabase-js must really load, with npm: packages Deno fetches itself;
#   - `deno info --json` lists the npm packages in each function's graph and their unpacked size (what
#     the bundler puts in the eszip), printed as a table (docs/deploying.md quotes it).
# Deno's cache (DENO_DIR) defaults to node_modules/.cache/deno-deploy-check: empty on a fresh
# machine, filled from the npm registry on the first run.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
deno=$root/node_modules/.bin/deno
export DENO_DIR=${DENO_DIR:-$root/node_modules/.cache/deno-deploy-check}
export NO_COLOR=1 DENO_NO_UPDATE_CHECK=1 RUST_BACKTRACE=0 DENO_NO_PACKAGE_JSON=1
started=$(date +%s%N)

# Each [functions.<name>] of supabase/config.toml: "<name> <entrypoint> <import_map>", paths from the root.
functions=$(awk '
  /^\[functions\./ { if (name != "") print name, entry, map; name = $0; gsub(/^\[functions\.|\].*$/, "", name); entry = map = "-"; next }
  /^\[/ { if (name != "") print name, entry, map; name = ""; next }
  name != "" && /^[ \t]*entrypoint[ \t]*=/ { entry = $0; sub(/^[^"]*"(\.\.\/)?/, "", entry); sub(/".*$/, "", entry) }
  name != "" && /^[ \t]*import_map[ \t]*=/ { map = $0; sub(/^[^"]*"(\.\.\/)?/, "", map); sub(/".*$/, "", map) }
  END { if (name != "") print name, entry, map }
' supabase/config.toml)
[ -n "$functions" ] || { echo "deno deploy check: no [functions.*] in supabase/config.toml" >&2; exit 1; }
while read -r name entry map; do
  [ "$entry" != - ] && [ -f "$entry" ] || { echo "deno deploy check: function $name: entrypoint '$entry' (supabase/config.toml) does not exist" >&2; exit 1; }
  [ "$map" != - ] && [ -f "$map" ] || { echo "deno deploy check: function $name: import_map '$map' (supabase/config.toml) does not exist" >&2; exit 1; }
done <<<"$functions"

# A fixed folder (per user and checkout, under a lock) so that Deno's type-check cache applies run to run.
dir=${TMPDIR:-/tmp}/einv-deno-deploy-check-$(id -u)-$(cksum <<<"$root" | cut -d' ' -f1)
exec 9>"$dir.lock"
flock 9
rm -rf "$dir"
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
# Deno looks for package.json, node_modules and deno.json in the folders above too.
up=$(dirname "$dir")
while :; do
  if [ -e "$up/package.json" ] || [ -e "$up/node_modules" ] || [ -e "$up/deno.json" ] || [ -e "$up/deno.jsonc" ]; then
    echo "deno deploy check: $up holds a package.json, node_modules or deno.json; set TMPDIR elsewhere" >&2
    exit 1
  fi
  [ "$up" = / ] && break
  up=$(dirname "$up")
done
cp -R functions shared "$dir"/
for map in $(awk '{ print $3 }' <<<"$functions" | sort -u); do
  mkdir -p "$dir/$(dirname "$map")"
  cp "$map" "$dir/$map"
  cmp -s "$map" "$dir/$map" || { echo "deno deploy check: the copy of $map differs from it" >&2; exit 1; }
done
inside=$(find "$dir" -name package.json -o -name node_modules -o -name deno.lock | head -1)
[ -z "$inside" ] || { echo "deno deploy check: $inside would be in the deployed tree" >&2; exit 1; }

failed=0
# Prints a failure with the first 40 lines of its output (the rest: run the same command in the repository).
report() {
  echo "deno deploy check FAILED: $1" >&2
  awk 'NR <= 40 { print "  " $0 } END { if (NR > 40) print "  … " NR - 40 " more lines" }' >&2
  failed=1
}

summary=()
sizes=()
while read -r name entry map; do
  if ! out=$(node scripts/ci/deno-deploy-scan.mjs "$dir" "$map" "$entry" 2>&1); then
    report "function $name: $map does not suit the deploy bundler, the imports or package.json" <<<"$out"
  fi
  # Resolved even when the scan failed: the bundler's own error is shown too.
  [ -f "$dir/deploy-check-load.ts" ] || continue
  mv "$dir/deploy-check-load.ts" "$dir/deploy-check-load-$name.ts"
  if ! out=$(cd "$dir" && "$deno" check --quiet --config "$map" "$entry" 2>&1); then
    report "function $name: deno check --config $map $entry (only functions/ and shared/ are deployed)" <<<"$out"
    continue
  fi
  if ! loaded=$(cd "$dir" && "$deno" run --quiet --no-prompt --allow-read --config "$map" "deploy-check-load-$name.ts" 2>&1); then
    report "function $name: loading the entry's imports and the lazily imported modules with $map" <<<"$loaded"
    continue
  fi
  if ! info=$(cd "$dir" && "$deno" info --json --config "$map" "$entry" 2>&1); then
    report "function $name: deno info --config $map $entry" <<<"$info"
    continue
  fi
  sizes+=("$(node -e '
    const [name, denoDir] = process.argv.slice(1);
    const { readdirSync, statSync } = require("node:fs");
    const { join } = require("node:path");
    const du = (p) => statSync(p).isDirectory() ? readdirSync(p).reduce((n, f) => n + du(join(p, f)), 0) : statSync(p).size;
    const info = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
    const pkgs = Object.values(info.npmPackages ?? {}).map(({ name: n, version: v }) => [`${n}@${v}`, du(join(denoDir, "npm", "registry.npmjs.org", n, v))]);
    const own = info.modules.filter((m) => m.local && !m.local.includes("/npm/")).reduce((n, m) => n + (m.size ?? 0), 0);
    const total = pkgs.reduce((n, [, s]) => n + s, 0);
    const kb = (b) => `${(b / 1024).toFixed(0)} KiB`;
    console.log(`  ${name}: ${pkgs.length} npm packages, ${kb(total)} unpacked; own modules ${kb(own)}`);
    for (const [id, s] of pkgs.sort((a, b) => b[1] - a[1])) console.log(`    ${id.padEnd(36)} ${kb(s).padStart(9)}`);
  ' "$name" "$DENO_DIR" <<<"$info")")
  summary+=("$name ($entry, $loaded)")
done <<<"$functions"
[ "$failed" = 0 ] || exit 1
echo "deno deploy check: each function resolved with its config.toml import_map, unchanged, no package.json or node_modules:"
printf '  %s\n' "${summary[@]}"
echo "npm packages in each function's graph (as the bundler fetches them):"
printf '%s\n' "${sizes[@]}"
echo "($(( ($(date +%s%N) - started) / 1000000 )) ms)"
