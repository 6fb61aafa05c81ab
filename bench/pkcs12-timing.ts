/**
 * What the costliest certificate file the PKCS#12 rules accept costs to open (issue 34, item 1;
 * DESIGN §7's CPU per request: docs/deploying.md). The rules (shared/providers/dian/pkcs12-cost.ts)
 * hold a file's key-derivation work — iterations × blocks × each hash's weight — to a cap. Each kind
 * of derivation they accept is given the whole cap in its own file: the MAC (SHA-1, SHA-512), the
 * key (3DES, which derives three SHA-1 blocks in JavaScript; PBKDF2 with SHA-1 and AES-256, two
 * blocks; with SHA-512), and the certificates' encrypted contents (3DES, decrypted twice). Each file
 * is padded with certificates to the route's 16 KiB, so that parsing, decrypting and reading
 * certificates cost their most too. Beside them, the files tools write at their defaults.
 *
 * Each file is opened in fresh Deno processes (./pkcs12-open.ts), three times each, the first one
 * cold (compiling node-forge's reader, as the first request of a new worker does): the CPU time of
 * the thread that opened it — what the edge runtime counts — and of the whole process. The figure
 * is the costliest file's worst opening, on its thread. The password is the longest the route takes,
 * and no file may have more than MAX_PKCS12_PARTS password-protected parts.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestCertificates } from "../devkit/dian/certificates.ts";
import { opensslPkcs12Files, type Pkcs12Shape, pkcs12File } from "../devkit/dian/pkcs12-files.ts";
import { MAX_P12_BYTES } from "../functions/integrations/fields.ts";
import { checkPkcs12Cost, MAX_PKCS12_WORK } from "../shared/providers/dian/pkcs12-cost.ts";
import { median } from "./stats.ts";

export interface Pkcs12Timing {
  file: string;
  bytes: number;
  work: number;
  /** The thread's CPU ms of each process's first opening, and of the others. */
  coldMs: number[];
  warmMs: number[];
  /** The whole process's CPU ms of each first opening. */
  coldProcessMs: number[];
}

const PROCESSES = 3;
const RUNS = 3;

type Key = Pkcs12Shape["key"];
/** The smallest of each step, and which one carries the cap in each candidate. */
const CANDIDATES: { name: string; shape: (n: number) => Pkcs12Shape }[] = [
  { name: "a SHA-1 MAC", shape: (n) => base({ mac: { digest: "sha1", iterations: n } }) },
  { name: "a SHA-512 MAC", shape: (n) => base({ mac: { digest: "sha512", iterations: n } }) },
  { name: "a 3DES key (PKCS#12 KDF)", shape: (n) => base({ key: { algorithm: "3des", iterations: n } }) },
  {
    name: "a key under PBKDF2-SHA-1, AES-256",
    shape: (n) => base({ key: { algorithm: "aes256", prf: "sha1", iterations: n } }),
  },
  {
    name: "a key under PBKDF2-SHA-512, AES-256",
    shape: (n) => base({ key: { algorithm: "aes256", prf: "sha512", iterations: n } }),
  },
  {
    name: "3DES contents (decrypted twice)",
    shape: (n) => base({ certificates: { encrypted: { algorithm: "3des", iterations: n } } }),
  },
];

function base(change: Partial<Pkcs12Shape>): Pkcs12Shape {
  const least: Key = { algorithm: "aes256", prf: "sha256", iterations: 1 };
  return {
    mac: { digest: "sha256", iterations: 1 },
    key: least,
    certificates: { encrypted: { ...least, algorithm: "3des" } },
    ...change,
  };
}

/** The candidate files at the cap, padded to the size limit, and the tools' defaults, in `dir`. */
function writeFiles(dir: string, password: string): { file: string; path: string; work: number }[] {
  const certs = createTestCertificates({ password });
  const out: { file: string; path: string; work: number }[] = [];
  const work = (p12: Uint8Array) => checkPkcs12Cost(p12, password).reduce((sum, d) => sum + d.work, 0);
  for (const { name, shape } of CANDIDATES) {
    // the padding that fits, then the count that brings the work to the cap (work grows with it)
    let padding = 0;
    while (pkcs12File(certs, { ...shape(1), padding: padding + 1 }).byteLength <= MAX_P12_BYTES) padding++;
    const one = work(pkcs12File(certs, { ...shape(1), padding }));
    const two = work(pkcs12File(certs, { ...shape(2), padding }));
    const iterations = 1 + Math.floor((MAX_PKCS12_WORK - one) / (two - one));
    const p12 = pkcs12File(certs, { ...shape(iterations), padding });
    const path = join(dir, `${out.length}.p12`);
    writeFileSync(path, p12);
    out.push({ file: `${name}, ${iterations.toLocaleString("en-US")} iterations`, path, work: work(p12) });
  }
  opensslPkcs12Files(
    dir,
    "/CN=x",
    {
      "openssl3.p12": [],
      "legacy.p12": ["-legacy"],
      "3des.p12": ["-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1"],
      "java.p12": ["-iter", "10000"],
    },
    password,
  );
  for (const [name, file] of [
    ["OpenSSL 3's defaults", "openssl3.p12"],
    ["OpenSSL's -legacy (RC2-40 contents, a 3DES key)", "legacy.p12"],
    ["3DES throughout, 2,048 iterations (Windows' TripleDES-SHA1 at its 2,000)", "3des.p12"],
    ["PBES2 at Java keytool's 10,000 iterations", "java.p12"],
  ] as const) {
    const path = join(dir, file);
    out.push({ file: name, path, work: work(readFileSync(path)) });
  }
  return out;
}

type Opening = { threadMs: number; processMs: number };

async function openings(path: string, password: string): Promise<Opening[]> {
  const child = spawn(
    "node_modules/.bin/deno",
    ["run", "--allow-all", "--quiet", "bench/pkcs12-open.ts", path, password, String(RUNS)],
    { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DENO_NO_UPDATE_CHECK: "1" } },
  );
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`opening ${path} exited with ${code}`);
  return JSON.parse(out) as Opening[];
}

/** The budget: Supabase's CPU limit per request, the lower of its two published figures. */
export const PKCS12_CPU_BUDGET_MS = 200;

/** Every candidate's and tool file's openings, costliest first (by the worst cold opening). */
export async function measurePkcs12(): Promise<Pkcs12Timing[]> {
  const dir = mkdtempSync(join(tmpdir(), "einv-bench-p12-"));
  // the longest password the route takes (functions/integrations/fields.ts): the PKCS#12 KDF's setup
  // of every part grows with it (a reviewer's 128-character password doubled a many-part file's cost)
  const password = "Clave-de-prueba1".repeat(8);
  try {
    const timings: Pkcs12Timing[] = [];
    for (const { file, path, work } of writeFiles(dir, password)) {
      const timing: Pkcs12Timing = {
        file,
        bytes: statSync(path).size,
        work,
        coldMs: [],
        warmMs: [],
        coldProcessMs: [],
      };
      for (let i = 0; i < PROCESSES; i++) {
        const [first, ...rest] = await openings(path, password);
        timing.coldMs.push(first?.threadMs ?? Number.NaN);
        timing.coldProcessMs.push(first?.processMs ?? Number.NaN);
        timing.warmMs.push(...rest.map((r) => r.threadMs));
      }
      timings.push(timing);
    }
    return timings.sort((a, b) => Math.max(...b.coldMs) - Math.max(...a.coldMs));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One line per file, for the figure's note. */
export function describeTimings(timings: Pkcs12Timing[]): string[] {
  return timings.map(
    (t) =>
      `${t.file}: ${(t.bytes / 1024).toFixed(1)} KiB, work ${Math.round(t.work).toLocaleString("en-US")}; ` +
      `thread CPU cold ${Math.max(...t.coldMs).toFixed(0)} ms (worst of ${t.coldMs.length}; the process ${Math.max(...t.coldProcessMs).toFixed(0)}), warm median ${median(t.warmMs).toFixed(0)} ms`,
  );
}
