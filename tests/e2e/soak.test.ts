/**
 * `npm run soak` in the suite: the local server (scripts/local/serve.ts, `npm start`) on a fresh
 * database of the test cluster, under the mixed load of scripts/soak/soak.ts for 60 s
 * (EINV_SOAK_SECONDS changes it): 0 errors, 0 lost or doubled documents (the database and the
 * sandbox's submission log agree), resident memory flat from the middle to the end (V8's heap
 * capped, as scripts/soak/soak.ts explains). One minute of
 * the suite's time, on purpose: it is the only test that runs the server for long.
 */
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runSoak, SOAK_V8_FLAGS } from "../../scripts/soak/soak.ts";

const target = inject("database");
const seconds = Number(process.env.EINV_SOAK_SECONDS ?? 60);
let databaseUrl = "";
let dropDatabase = async () => {};

beforeAll(async () => {
  if (target.kind !== "postgres") return;
  const name = `soak_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(target.adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`).finally(() => admin.end({ timeout: 5 }));
  const url = new URL(target.adminUrl);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
  dropDatabase = async () => {
    const dropper = postgres(target.adminUrl, { max: 1, onnotice: () => {} });
    await dropper
      .unsafe(`drop database if exists ${name} with (force)`)
      .finally(() => dropper.end({ timeout: 5 }));
  };
});
afterAll(() => dropDatabase());

describe.skipIf(target.kind !== "postgres")("the local server under a mixed load", () => {
  it(
    `holds for ${seconds} s: 0 errors, 0 lost or doubled documents, resident memory flat`,
    async () => {
      const report = await runSoak({ databaseUrl, seconds, concurrency: 4, v8Flags: SOAK_V8_FLAGS });
      console.log(`soak: ${JSON.stringify(report)}`);
      expect(report.error_samples).toEqual([]);
      expect(report.errors).toBe(0);
      // there was load: each operation ran, and documents went to the authority
      for (const count of Object.values(report.requests)) expect(count).toBeGreaterThan(0);
      expect(report.documents.invoices_transmitted).toBeGreaterThan(0);
      expect(report.documents.credit_notes).toBeGreaterThan(0);
      expect(report.documents).toMatchObject({ lost: 0, doubled: 0 });
      expect(report.unexpected_submissions).toBe(0);
      expect(report.memory_kib.end).toBeLessThanOrEqual(1.25 * report.memory_kib.middle);
      expect(report.passed).toBe(true);
    },
    (seconds + 120) * 1000,
  );
});
