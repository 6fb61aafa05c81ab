/**
 * `npm run dian:check`: checks every document request the local DIAN stand-in received
 * (`<data>/dian/*-SendBillSync.xml`, `*-SendTestSetAsync.xml`) with tools that share nothing with our
 * code — xmlsec1 verifies the envelope's WS-Security signature (with the certificate the envelope
 * carries) and the document's XAdES signature (against the demo CA of `local.json`), xmllint validates
 * the document against the UBL 2.1 schemas and DIAN's extension schema. One line per request; exit 1
 * if any check fails. Needs Debian's `xmlsec1` and `libxml2-utils` (docs/dian.md shows the same
 * checks as plain command lines).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { unzipSync } from "fflate";
import { xmllintValidate, xmlsecVerify, xmlsecVerifyEnvelope } from "../../devkit/dian/xml-tools.ts";

const dataDir = process.env.EINV_DATA_DIR ?? ".data";
const localFile = join(dataDir, "local.json");

/** Says what is wrong and what to do, and exits 1: no stack trace for a missing file. */
function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const text = await readFile(localFile, "utf8").catch(() =>
  fail(
    `${localFile} not found: start the local server first (npm start) and transmit the DIAN demo company's invoices, or set EINV_DATA_DIR to its data folder`,
  ),
);
const local = (() => {
  try {
    return JSON.parse(text) as { dian?: { ca_pem?: string; requests_dir?: string } };
  } catch {
    return fail(`${localFile} is not JSON: stop the local server, delete the file and start it again`);
  }
})();
const dian =
  local.dian?.ca_pem && local.dian.requests_dir
    ? { ca_pem: local.dian.ca_pem, requests_dir: local.dian.requests_dir }
    : fail(
        `${localFile} names no DIAN demo company (another version of the local server wrote it): restart npm start`,
      );
const dir = dian.requests_dir;
const files = (await readdir(dir).catch(() => [] as string[]))
  .filter((name) => /-(SendBillSync|SendTestSetAsync)\.xml$/.test(name))
  .sort();
if (files.length === 0) {
  console.log(`no document requests in ${dir} yet: transmit the DIAN demo company's invoices first`);
  process.exit(0);
}

let failed = 0;
for (const name of files) {
  const envelope = new Uint8Array(await readFile(join(dir, name)));
  const content = /<wcf:contentFile>([A-Za-z0-9+/=]+)<\/wcf:contentFile>/.exec(
    new TextDecoder().decode(envelope),
  );
  const entries = content
    ? Object.entries(unzipSync(Uint8Array.from(atob(content[1] ?? ""), (c) => c.charCodeAt(0))))
    : [];
  const [entry] = entries;
  const checks: [string, boolean][] = [["envelope signature", (await xmlsecVerifyEnvelope(envelope)).ok]];
  if (entries.length !== 1 || !entry) {
    checks.push(["one XML in the ZIP", false]);
  } else {
    const [xmlName, document] = entry;
    const kind = /<CreditNote[\s>]/.test(new TextDecoder().decode(document.subarray(0, 400)))
      ? "credit_note"
      : "invoice";
    checks.push([`${xmlName} signature`, (await xmlsecVerify(document, dian.ca_pem)).ok]);
    checks.push([`${xmlName} schemas`, (await xmllintValidate(document, kind)).ok]);
  }
  const bad = checks.filter(([, ok]) => !ok);
  failed += bad.length > 0 ? 1 : 0;
  console.log(`${name}: ${checks.map(([what, ok]) => `${what} ${ok ? "OK" : "FAILED"}`).join(", ")}`);
}
console.log(`${files.length - failed} of ${files.length} requests pass`);
if (failed > 0) process.exit(1);
