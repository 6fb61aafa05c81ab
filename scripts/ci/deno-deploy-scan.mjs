// Helper of deno-deploy-check.sh (run from the repository root by Node):
//   node scripts/ci/deno-deploy-scan.mjs <out-dir> <import-map> <entry.ts>...
// <import-map> is the file supabase/config.toml names as the functions' import_map. The deploy
// bundler reads it as the Deno *config* too (edge-runtime `bundle --import-map`), so this
// 0. refuses any key of it that the bundler would act on wrongly (an allowlist: see ALLOWED);
// Scans every source file under functions/ and shared/ for the modules it imports and
// 1. checks that each bare specifier maps, in that file's "imports", to `npm:<package>@<version>` with the
//    exact version package.json pins (and that every entry of the map agrees with package.json);
// 2. writes <out-dir>/deploy-check-load.ts, which imports each entry's own imports and every lazily
//    imported module (`import("…")`, found here, not kept by hand), one by one, reporting each failure.
// Problems go to stderr, one a line; the exit code is 1 if there were any.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";

const [outDir, mapPath, ...entries] = process.argv.slice(2);
const ROOTS = ["functions", "shared"];
const problems = [];

/**
 * The keys the map may hold. Everything else in a Deno config is acted on by the bundler in a way
 * that breaks or changes the deploy: nodeModulesDir ("manual"/"auto": npm packages from a node_modules
 * the bundler never sees), vendor (a vendor/ folder it never sees), workspace, links and patch (local
 * folders it never sees), importMap (a second file the CLI does not mount), lock (a lockfile it does
 * not mount), unstable flags that change resolution (sloppy-imports, bare-node-builtins, ...).
 * Read in supabase/edge-runtime's `bundle` (cli/src/main.rs: the --import-map file becomes the
 * config) and deno/lib.rs (node_modules_dir, vendor_dir_path, has_unstable("sloppy-imports")).
 */
const ALLOWED = {
  imports: "the import map itself",
  scopes: "the import map itself",
  compilerOptions: "type-checking; the bundler only reads the emit options (jsx, decorators)",
  unstable: "only the flags in ALLOWED_UNSTABLE",
  fmt: "ignored by the bundler",
  lint: "ignored by the bundler",
  tasks: "ignored by the bundler",
};
/** lazy-dynamic-imports: the edge-runtime bundler does not read it; the eszip still holds every module. */
const ALLOWED_UNSTABLE = ["lazy-dynamic-imports"];

const denoJson = JSON.parse(readFileSync(mapPath, "utf8"));
for (const key of Object.keys(denoJson)) {
  if (!(key in ALLOWED)) {
    problems.push(
      `${mapPath} (a function's import_map in supabase/config.toml) sets "${key}", which the deploy bundler would act on: keep it out of that file (allowed: ${Object.keys(ALLOWED).join(", ")})`,
    );
  }
}
for (const flag of [denoJson.unstable ?? []].flat()) {
  if (!ALLOWED_UNSTABLE.includes(flag)) {
    problems.push(`${mapPath} sets "unstable": ["${flag}"]; allowed: ${ALLOWED_UNSTABLE.join(", ")}`);
  }
}
const importMap = denoJson.imports ?? {};
const packageJson = JSON.parse(readFileSync("package.json", "utf8"));
const pinned = { ...packageJson.devDependencies, ...packageJson.dependencies };

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(m?[jt]sx?)$/.test(entry.name) && !/\.test\.[jt]sx?$/.test(entry.name) ? [path] : [];
  });
}

// Comment lines (`//`, `/*`, ` * `) are dropped so that prose mentioning `import("x")` is not taken
// for code; a trailing comment after code is kept (harmless: it can only add a module to load).
function code(file) {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join("\n");
}

const STATIC = /\b(?:import|export)\s+(?!\()(type\s+)?(?:[^;"'`]*?\bfrom\s*)?["']([^"']+)["']/g;
const DYNAMIC = /\bimport\s*\(/g;
const LITERAL = /^\s*(["'])([^"'`\n]+)\1\s*[,)]/;

/** Every import of `file`: { specifier, lazy (a runtime `import("…")`), typeOnly }. */
function importsOf(file) {
  const text = code(file);
  const found = [];
  for (const m of text.matchAll(STATIC)) found.push({ specifier: m[2], lazy: false, typeOnly: !!m[1] });
  for (const m of text.matchAll(DYNAMIC)) {
    const typeOnly = /\btypeof\s+$/.test(text.slice(Math.max(0, m.index - 20), m.index));
    const literal = LITERAL.exec(text.slice(m.index + m[0].length));
    if (literal) {
      found.push({ specifier: literal[2], lazy: !typeOnly, typeOnly });
    } else if (!typeOnly) {
      const line = text.slice(0, m.index).split("\n").length;
      problems.push(
        `${file}:${line}: import() of a computed specifier: neither this check nor the deploy bundler can follow it; use a string literal`,
      );
    }
  }
  return found;
}

const isBare = (s) => !/^(\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(s);

/** The import-map target of a bare specifier (exact key, else the longest key ending in "/"). */
function mapped(specifier) {
  if (specifier in importMap) return importMap[specifier];
  const prefix = Object.keys(importMap)
    .filter((key) => key.endsWith("/") && specifier.startsWith(key))
    .sort((a, b) => b.length - a.length)[0];
  return prefix === undefined ? undefined : importMap[prefix] + specifier.slice(prefix.length);
}

const NPM = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)(?:\/.*)?$/;

function checkPin(key, target) {
  const m = NPM.exec(target);
  if (!m) return `${mapPath} maps "${key}" to "${target}", not to a pinned npm:<package>@<version>`;
  const [, name, version] = m;
  if (pinned[name] === undefined) return `${mapPath} maps "${key}" to ${name}, which package.json lacks`;
  if (pinned[name] !== version) {
    return `${mapPath} maps "${key}" to ${name}@${version}, package.json pins ${name}@${pinned[name]}`;
  }
  return undefined;
}

// 1. bare specifiers against the map and package.json
const bare = new Map(); // specifier -> files importing it
const lazy = new Map(); // module to load -> files importing it lazily
for (const file of ROOTS.flatMap(sourceFiles).sort()) {
  for (const { specifier, lazy: isLazy } of importsOf(file)) {
    if (specifier.startsWith("node:")) continue;
    if (isBare(specifier)) {
      bare.set(specifier, [...(bare.get(specifier) ?? []), file]);
    } else if (!/^\.{0,2}\//.test(specifier)) {
      problems.push(
        `${file}: imports "${specifier}"; the deployable code uses bare specifiers mapped by ${mapPath}`,
      );
      continue;
    }
    if (isLazy) {
      const target = isBare(specifier) ? specifier : `./${posix.join(dirname(file), specifier)}`;
      lazy.set(target, [...(lazy.get(target) ?? []), file]);
    }
  }
}
for (const [specifier, files] of [...bare].sort()) {
  const users = `imported by ${[...new Set(files)].join(", ")}`;
  const target = mapped(specifier);
  const name = NPM.exec(target ?? "")?.[1];
  if (target === undefined) {
    problems.push(`${mapPath} "imports" has no entry for "${specifier}" (${users})`);
  } else if (name && packageJson.dependencies?.[name] === undefined) {
    problems.push(`"${specifier}" (${users}) is deployed, so ${name} belongs in package.json "dependencies"`);
  }
}
for (const [key, target] of Object.entries(importMap)) {
  const problem = checkPin(key, target);
  if (problem) problems.push(problem);
}

// 2. the loader: each entry's own imports (the entry itself may serve at import), then the lazy modules
const modules = new Map(); // specifier relative to out-dir -> why it is loaded
for (const entry of entries) {
  for (const { specifier, typeOnly } of importsOf(entry)) {
    if (typeOnly) continue;
    const target = isBare(specifier) ? specifier : `./${posix.join(dirname(entry), specifier)}`;
    modules.set(target, `imported by ${entry}`);
  }
}
for (const [target, files] of lazy) {
  if (!modules.has(target)) modules.set(target, `lazily imported by ${[...new Set(files)].join(", ")}`);
}
const lines = [...modules].map(
  ([specifier, why]) =>
    `await load(${JSON.stringify(specifier)}, ${JSON.stringify(why)}, () => import(${JSON.stringify(specifier)}));`,
);
writeFileSync(
  join(outDir, "deploy-check-load.ts"),
  `// generated by scripts/ci/deno-deploy-scan.mjs
const failures: string[] = [];
async function load(specifier: string, why: string, run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    failures.push(\`cannot load "\${specifier}" (\${why}): \${error instanceof Error ? error.message : error}\`);
  }
}
${lines.join("\n")}
if (failures.length > 0) {
  console.error(failures.join("\\n"));
  Deno.exit(1);
}
console.log("${modules.size} modules (${lazy.size} lazily imported)");
`,
);

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
