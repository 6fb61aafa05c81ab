/**
 * Records what the service hands out or leaves behind, for the secret canary's final scan
 * (`devkit/canary.ts`): one JSON-lines file per test file in the run's capture directory,
 * which the global setup creates, names in `EINV_TEST_CAPTURE_DIR` and scans at the end. Without it
 * (a run outside vitest's global setup, such as `npm run bench`) nothing is recorded. Plain Node:
 * no vitest import, so the helpers that use it still load under Deno.
 */
import { randomUUID } from "node:crypto";
import { openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { CaptureRecord } from "./canary.ts";

/** Vitest evaluates this module once per test file (isolation), so one file per test file. */
const captureFile = `${randomUUID()}.jsonl`;
let testFile = "(unknown)";
let testFileFound = false;

/** Whether this run records anything. */
export const capturing = (): boolean => Boolean(process.env.EINV_TEST_CAPTURE_DIR);

/**
 * The test file calling in, from the stack. Remembered once found: log lines come from deep async
 * code, and this module's instance serves one test file, so the stack is read only until then (a
 * stack read for each of the fuzz suite's 200,000 answers and log lines was a fifth of its CPU time).
 */
function callingTestFile(): string {
  if (testFileFound) return testFile;
  const frame = new Error().stack
    ?.split("\n")
    .map((line) => /(\/tests\/[^:)]+\.test\.ts)/.exec(line)?.[1])
    .find(Boolean);
  if (frame) {
    testFile = frame;
    testFileFound = true;
  }
  return testFile;
}

/** The capture file, opened once for appending: a write per record, so nothing waits in memory. */
let captureFd: number | undefined;

export function capture(kind: CaptureRecord["kind"], text: string): void {
  const dir = process.env.EINV_TEST_CAPTURE_DIR;
  if (!dir) return;
  const record: CaptureRecord = { kind, file: callingTestFile(), text };
  captureFd ??= openSync(join(dir, captureFile), "a");
  writeSync(captureFd, `${JSON.stringify(record)}\n`);
}

/** Records a response as a caller sees it: status line, headers and body (read from a clone). */
export async function captureResponse(response: Response): Promise<void> {
  if (!capturing()) return;
  const headers = [...response.headers].map(([name, value]) => `${name}: ${value}`).join("\n");
  const body = await response.clone().text();
  capture("response", `${response.status} ${response.statusText}\n${headers}\n\n${body}`);
}

/** Makes every response of a Hono app (its `fetch`, which `request` goes through too) recorded. */
export function captureResponses<A extends { fetch: (...args: never[]) => Response | Promise<Response> }>(
  app: A,
): A {
  const original = app.fetch;
  app.fetch = (async (...args: never[]) => {
    const response = await original(...args);
    await captureResponse(response);
    return response;
  }) as A["fetch"];
  return app;
}
