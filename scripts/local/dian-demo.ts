/**
 * `npm start`'s DIAN-direct demo (docs/dian.md): Demo Org's company "Demo Directo DIAN" transmits to
 * the local DIAN stand-in (sandbox/dian/) itself, as a company registered with DIAN would transmit to
 * DIAN. At the first start this generates a test certification authority and the company's signing
 * certificate (its NIT in the subject where DIAN reads it), and the stand-in DIAN's own, and keeps
 * them in `<data>/dian-demo/` with what the stand-in validated (so a restart knows it, as DIAN would);
 * at every start it tells the stand-in what DIAN would know — the CA, the company's software, its
 * numbering range (habilitación's SETP range and test technical key) and its test set — and saves the
 * company's DIAN-mode credential at the stand-in's address, unless one someone saved is there. The
 * stand-in writes every request it receives to `<data>/dian/`, and `local.json` gets a `dian` block
 * with everything needed to check those requests by hand.
 */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createTestCertificates } from "../../devkit/dian/certificates.ts";
import { saveDianCredential } from "../../devkit/dian/credential.ts";
import { createDianStandIn, type DianStandIn, generatedDianCertificate } from "../../sandbox/dian/index.ts";
import { HABILITACION_TECHNICAL_KEY } from "../../sandbox/dian/registry.ts";
import type { SecretBox } from "../../shared/crypto/secret-box.ts";
import type { Db } from "../../shared/ports/db/port.ts";
import { openPkcs12 } from "../../shared/providers/dian/certificate.ts";

/** Demo Org's DIAN-direct company (supabase/seed.sql). */
const COMPANY = {
  id: "c3333333-3333-4333-8333-333333333333",
  org_id: "11111111-1111-4111-8111-111111111111",
  nit: "901234567",
  legal_name: "Demo Directo DIAN S.A.S.",
} as const;

/** What DIAN's portal gives a software propio registration (made up for the demo). */
const SOFTWARE = {
  id: "7d4b0c1e-5a2f-4c3b-9e8d-1f2a3b4c5d6e",
  pin: "75315",
  test_set_id: "0f9e8d7c-6b5a-4392-8170-6f5e4d3c2b1a",
} as const;

/** How many of the stand-in's request files a start keeps (the newest). */
const MAX_KEPT_REQUESTS = 2_000;

/** Habilitación's test range (brief §3: Odoo's tests/common.py), the same for every software. */
const RANGE = {
  resolution_number: "18760000001",
  start_date: "2019-01-19",
  end_date: "2030-01-19",
  prefix: "SETP",
  from: "990000000",
  to: "995000000",
} as const;

/** The `dian` block of local.json. */
export interface LocalDian {
  company_id: string;
  software_id: string;
  software_pin: string;
  test_set_id: string;
  technical_key: string;
  /** The company's signing certificate, PEM: what the stand-in's checks and xmlsec1 verify against. */
  certificate_pem: string;
  /** The demo CA's certificate, PEM: `xmlsec1 --trusted-pem` for the documents and AttachedDocuments. */
  ca_pem: string;
  /** The stand-in's DIAN CA, PEM: what its ApplicationResponses verify against. */
  dian_ca_pem: string;
  /** The DIAN web service as the credential reaches it. */
  stand_in_url: string;
  /** Its control endpoints: `<control_url>/next-response?operation=…`, `<control_url>/reset`. */
  control_url: string;
  /** Where every request the stand-in receives is written, raw, as `<time>-<operation>.xml`. */
  requests_dir: string;
}

interface Certificate {
  p12: Uint8Array;
  password: string;
  caPem: string;
}

interface DemoCertificates {
  /** The company's, with its certificate in PEM. */
  company: Certificate & { certificatePem: string };
  /** The stand-in DIAN's, which signs its ApplicationResponses. */
  dian: Certificate;
}

type Kept = { p12_base64: string; password: string; ca_pem: string };
const keep = (c: Certificate): Kept => ({
  p12_base64: btoa(String.fromCharCode(...c.p12)),
  password: c.password,
  ca_pem: c.caPem,
});
const unkeep = (k: Kept): Certificate => ({
  p12: Uint8Array.from(atob(k.p12_base64), (c) => c.charCodeAt(0)),
  password: k.password,
  caPem: k.ca_pem,
});

/** Whether a certificate ends within a month (a test certificate lasts a year): time to make another. */
async function expiring(certificate: Certificate): Promise<boolean> {
  const { certificate: info } = await openPkcs12(certificate.p12, certificate.password);
  return info.notAfter.getTime() - Date.now() < 30 * 86_400_000;
}

/**
 * The demo's certificates, made once and kept — a restart signs with the same company certificate,
 * and the ApplicationResponses the stand-in kept still verify against the same DIAN CA — and made
 * anew when one is about to expire (`renewed`: the credential must then be saved again).
 */
async function demoCertificates(dir: string): Promise<DemoCertificates & { renewed: boolean }> {
  const file = join(dir, "certificates.json");
  const kept = await readFile(file, "utf8").then(
    (text) => JSON.parse(text) as { company: Kept & { certificate_pem: string }; dian: Kept },
    () => undefined,
  );
  let company = kept ? { ...unkeep(kept.company), certificatePem: kept.company.certificate_pem } : undefined;
  let dian = kept ? unkeep(kept.dian) : undefined;
  const renewed = !company || (await expiring(company));
  if (renewed) {
    const password = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16)).join("");
    company = createTestCertificates({ nit: COMPANY.nit, companyName: COMPANY.legal_name, password });
  }
  const dianRenewed = !dian || (await expiring(dian));
  if (dianRenewed) dian = await generatedDianCertificate();
  if (!company || !dian) throw new Error("unreachable: both certificates are made above");
  if (renewed || dianRenewed) {
    await mkdir(dir, { recursive: true });
    const record = {
      company: { ...keep(company), certificate_pem: company.certificatePem },
      dian: keep(dian),
    };
    await writeFile(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  }
  return { company, dian, renewed };
}

/** The newest `keep` request files of the stand-in's folder stay; older ones go (a long-lived .data/). */
async function pruneRequests(dir: string, keep: number): Promise<void> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith(".xml")).sort();
  await Promise.all(
    names.slice(0, Math.max(0, names.length - keep)).map((n) => rm(join(dir, n), { force: true })),
  );
}

/**
 * The stand-in, told what DIAN would know of the demo company, and the company's DIAN-mode
 * credential saved at `sandboxUrl/dian` (a credential pointing anywhere else is left alone).
 */
export async function startDianDemo(options: {
  dataDir: string;
  sandboxUrl: string;
  db: Db;
  secretBox: SecretBox;
}): Promise<{ standIn: DianStandIn; local: LocalDian; saved: boolean }> {
  const demoDir = join(options.dataDir, "dian-demo");
  const { company: certs, dian, renewed } = await demoCertificates(demoDir);
  const requestsDir = join(options.dataDir, "dian");
  await pruneRequests(requestsDir, MAX_KEPT_REQUESTS);
  const standIn = createDianStandIn({
    requestsDir,
    storeFile: join(demoDir, "stand-in-documents.jsonl"),
    dianCertificate: dian,
  });
  standIn.trustCa(certs.caPem);
  standIn.putIssuer({
    nit: COMPANY.nit,
    rutName: COMPANY.legal_name,
    software: [{ id: SOFTWARE.id, pin: SOFTWARE.pin, ownerNit: COMPANY.nit }],
    ranges: [
      {
        resolutionNumber: RANGE.resolution_number,
        resolutionDate: RANGE.start_date,
        prefix: RANGE.prefix,
        from: RANGE.from,
        to: RANGE.to,
        validFrom: RANGE.start_date,
        validTo: RANGE.end_date,
        technicalKey: HABILITACION_TECHNICAL_KEY,
        softwareId: SOFTWARE.id,
      },
    ],
  });
  standIn.addTestSet({ id: SOFTWARE.test_set_id, softwareId: SOFTWARE.id });

  const url = `${options.sandboxUrl}/dian/WcfDianCustomerServices.svc`;
  const stored = await options.db.asService().call("einv_credential_get", {
    p_org_id: COMPANY.org_id,
    p_company_id: COMPANY.id,
    p_service: "adapter-tax",
    p_environment: "uat",
  });
  const standInUrl = /^http:\/\/[^/]+\/sandbox\/dian\/WcfDianCustomerServices\.svc$/;
  // the demo's own credential (at a stand-in, or not yet DIAN mode) follows the stand-in's address and
  // the certificate; one someone saved by hand at another DIAN address is left alone
  const ours = !stored || standInUrl.test(stored.url ?? "") || !isDian(stored.settings);
  const saved = ours && (!stored || stored.url !== url || renewed);
  if (saved) {
    await saveDianCredential(options, { org: { id: COMPANY.org_id }, company: { id: COMPANY.id } }, certs, {
      url,
      environment: "uat",
      pin: SOFTWARE.pin,
      settings: { provider: "dian", software_id: SOFTWARE.id, test_set_id: SOFTWARE.test_set_id },
    });
  }
  return {
    standIn,
    saved,
    local: {
      company_id: COMPANY.id,
      software_id: SOFTWARE.id,
      software_pin: SOFTWARE.pin,
      test_set_id: SOFTWARE.test_set_id,
      technical_key: HABILITACION_TECHNICAL_KEY,
      certificate_pem: certs.certificatePem,
      ca_pem: certs.caPem,
      dian_ca_pem: await standIn.dianCaPem(),
      stand_in_url: url,
      control_url: `${options.sandboxUrl}/dian/_sandbox/dian`,
      requests_dir: requestsDir,
    },
  };
}

function isDian(settings: Record<string, unknown> | null | undefined): boolean {
  return settings?.provider === "dian";
}
