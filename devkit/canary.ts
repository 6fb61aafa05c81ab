/**
 * The secret canary. The whole suite runs with these distinctive values as its secrets — the
 * provider API key the factories save (sealed), the credentials sealing key, the reconcile secret,
 * DIAN mode's certificate password and software PIN — and with every user token the shared test app
 * signs and every private key a test certificate is made with (`secret` records). The shared helpers record what the service
 * hands out or leaves behind into a capture directory for the run (one JSON-lines file per test
 * file): every response of the test app (status, headers, body), every log line it writes, and, when
 * a test database is closed, the text of every row of every table. When the run ends, the global
 * setup's teardown (`tests/global-setup.ts`) scans it all with `scanCapture` and fails the run if a
 * canary appears anywhere: a sealed key is stored as ciphertext, which cannot contain it.
 *
 * This module is plain Node (no vitest import): the teardown runs in the main process.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A key the sandbox accepts (any `sk_sandbox_…`), saved sealed by `saveCredential`. */
export const CANARY_PROVIDER_KEY = "sk_sandbox_CANARY-provider-key-7f3a9c2e";
/** The credentials sealing key's 32 bytes, as text… */
export const CANARY_CREDENTIALS_KEY_TEXT = "CANARY-credentials-key-32-bytes!";
/** …and as the base64 that `EINV_CREDENTIALS_KEY` holds. */
export const CANARY_CREDENTIALS_KEY = Buffer.from(CANARY_CREDENTIALS_KEY_TEXT).toString("base64");
/** The reconcile function's secret (at least 32 characters). */
export const CANARY_RECONCILE_SECRET = "CANARY-reconcile-secret-5b8d1e64a0c7f293";
/** DIAN mode: the password of the test certificates' PKCS#12 files that the suites save… */
export const CANARY_CERTIFICATE_PASSWORD = "CANARY-p12-password-91c4e7";
/** …and the software PIN saved with them. */
export const CANARY_SOFTWARE_PIN = "CANARY-software-pin-3d82";

export const FIXED_CANARIES = [
  CANARY_PROVIDER_KEY,
  CANARY_CREDENTIALS_KEY,
  CANARY_CREDENTIALS_KEY_TEXT,
  CANARY_RECONCILE_SECRET,
  CANARY_CERTIFICATE_PASSWORD,
  CANARY_SOFTWARE_PIN,
] as const;

/**
 * One captured thing: what the service answered, logged or stored; or a token or other secret it
 * was given (a generated private key: `secret`), which the scan then looks for everywhere else.
 */
export interface CaptureRecord {
  kind: "response" | "log" | "database" | "token" | "secret";
  /** The test file it came from. */
  file: string;
  text: string;
}

export interface ScanReport {
  counts: Record<CaptureRecord["kind"], number>;
  leaks: { kind: CaptureRecord["kind"]; file: string; canary: string; context: string }[];
}

/** Reads every capture file in `dir` and looks for every canary (the fixed ones and the tokens). */
export function scanCapture(dir: string): ScanReport {
  const records: CaptureRecord[] = readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .flatMap((name) =>
      readFileSync(join(dir, name), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as CaptureRecord),
    );
  const counts = { response: 0, log: 0, database: 0, token: 0, secret: 0 };
  for (const record of records) counts[record.kind]++;
  const given = (r: CaptureRecord) => r.kind === "token" || r.kind === "secret";
  const canaries = [...FIXED_CANARIES, ...records.filter(given).map((r) => r.text)];
  const leaks: ScanReport["leaks"] = [];
  for (const record of records) {
    if (given(record)) continue;
    for (const canary of canaries) {
      const at = record.text.indexOf(canary);
      if (at < 0) continue;
      // the context names where it leaked without repeating the secret
      const context = `${record.text.slice(Math.max(0, at - 80), at)}<CANARY>${record.text.slice(
        at + canary.length,
        at + canary.length + 80,
      )}`;
      leaks.push({ kind: record.kind, file: record.file, canary: `${canary.slice(0, 12)}…`, context });
    }
  }
  return { counts, leaks };
}
