/**
 * DIAN mode's credential check, the port's `dian` (../../ports/providers/credentials.ts): what
 * /integrations/test and /integrations/save check of a DIAN-mode credential, in order, before
 * anything is stored or sent: the fields belong to the mode, the settings are DIAN mode's, the url is
 * DIAN's (the environment's endpoint by default); then the certificate file's declared cost, that it
 * opens with its password, that it is the company's (the NIT DIAN reads from its subject) and in
 * force today; and last that DIAN knows the software and its numbering ranges (GetNumberingRange,
 * through the seam in ./numbering-query.ts).
 *
 * The secrets are the sealed form's from the start: given parts and saved ones are put together into
 * the plaintext that will be sealed, and the signer the checks use is opened from that plaintext by
 * `openDianCredential` — what the DIAN adapter will call — so a save proves the stored form opens.
 * No message holds the password, the PIN or key material.
 */

import { GUESSABLE_PIN_WARNING, isGuessablePin } from "../../co/software-pin.ts";
import { type SecretBox, SecretBoxError } from "../../crypto/secret-box.ts";
import { BusinessRuleError, FieldError } from "../../kernel/errors.ts";
import type { StoredCredential } from "../../ports/db/catalogue.ts";
import { checkedUrl, reachChecked } from "../../ports/providers/credential-url.ts";
import {
  type CertificateSummary,
  type CheckResult,
  type CredentialChecks,
  type CredentialInput,
  type IntegrationContext,
  identityOf,
  isDianMode,
  type Source,
  sameUrl,
} from "../../ports/providers/credentials.ts";
import { ProviderError } from "../../ports/providers/errors.ts";
import { CertificateError, type CertificateInfo, readPkcs12, type Signer } from "./certificate.ts";
import {
  DianCredentialError,
  type DianCredentialParts,
  dianCredentialParts,
  dianCredentialPlaintext,
  openDianCredential,
} from "./credential.ts";
import { type DianSettings, dianUrlProblem, parseDianSettings } from "./mode.ts";
import { type NumberingVerdict, numberingVerdict } from "./numbering.ts";
import type { DianNumbering, NumberingRangeQuery } from "./numbering-query.ts";
import { Pkcs12RefusedError } from "./pkcs12-cost.ts";
import { DIAN_URLS } from "./service.ts";

/** RSA keys DIAN's certification authorities issue; a bigger one would make every signature slow. */
const KEY_BITS = { min: 2048, max: 4096 } as const;
/**
 * The sealed plaintext's bound: sealed (16 bytes of tag, base64url, `v1:` and the IV) it stays under
 * the database's 65,536 characters of ciphertext (…_integrations.sql). A 16 KiB file's key and
 * certificate come to at most about 22,000 (base64 in JSON); this catches what would not fit.
 */
const MAX_SEALED_CHARS = 49_000;

/** What will be checked, resolved from the request and the saved row. */
interface DianPlan {
  settings: DianSettings;
  url: { url: string; source: Source };
  /** `given` when a certificate was sent, else the saved one is used. */
  keySource: Source;
  /** The saved row, when it is DIAN mode's (its sealed secrets fill in what was not sent). */
  saved: StoredCredential | null;
}

/** DIAN mode's check, asking GetNumberingRange through `numbering`. */
export function dianCredentialCheck(numbering: DianNumbering): CredentialChecks["dian"] {
  return async (input, settings, stored, ctx) => {
    const plan = planDian(input, settings, stored);
    return {
      mode: "dian",
      url: plan.url,
      keySource: plan.keySource,
      hint: "",
      settings: plan.settings,
      run: () => checkDian(input, plan, ctx, numbering),
    };
  };
}

/**
 * The plan for `input` in DIAN mode (`settings` are the effective ones: given, else saved). Throws
 * FieldError (400) for a field the mode does not take or settings it refuses, BusinessRuleError (422)
 * when a secret is neither given nor saved, or a url names another place than the saved secrets'.
 */
function planDian(
  input: CredentialInput,
  settings: Record<string, unknown>,
  stored: StoredCredential | null,
): DianPlan {
  if (input.service !== "adapter-tax") {
    throw new FieldError(
      "settings.provider",
      `"dian" (DIAN mode) is for the adapter-tax credential only, not ${input.service}`,
    );
  }
  if (input.api_key !== undefined) {
    throw new FieldError(
      "api_key",
      'is not used in DIAN mode (settings.provider "dian"): send certificate and software_pin',
    );
  }
  const parsed = parseDianSettings(settings, input.environment);
  if ("problems" in parsed) {
    const [first, ...more] = parsed.problems;
    throw new FieldError(first?.field ?? "settings", first?.message ?? "is not valid", more);
  }
  const saved = stored && isDianMode(stored.settings) && stored.api_key_ciphertext ? stored : null;
  const where = `the company's adapter-tax credential in ${input.environment} (DIAN mode)`;
  const missing = [
    ...(input.certificate ? [] : ["certificate"]),
    ...(input.software_pin === undefined ? ["software_pin"] : []),
  ];
  if (missing.length > 0 && !saved) {
    throw new BusinessRuleError(
      `No certificate and PIN are saved for ${where}; send ${missing.join(" and ")}.`,
    );
  }
  let url: DianPlan["url"];
  if (input.url !== undefined) {
    if (missing.length > 0 && !sameUrl(input.url, saved?.url ?? null)) {
      throw new BusinessRuleError(
        `The saved certificate and PIN of ${where} are only used at its saved url; to use another url, send certificate and software_pin with it.`,
      );
    }
    url = { url: input.url, source: "given" };
  } else if (saved?.url) {
    url = { url: saved.url, source: "saved" };
  } else {
    // DIAN's endpoint for the environment: refused (it cannot be) like a url the caller gave
    url = { url: DIAN_URLS[input.environment], source: "given" };
  }
  return { settings: parsed.settings, url, keySource: input.certificate ? "given" : "saved", saved };
}

/**
 * Runs the checks of `plan`. Throws RefusedUrlError / SavedUrlRefusedError when the url is refused
 * (before anything is opened or sent) and FieldError when the certificate file uses an algorithm not
 * accepted or declares more key-derivation work than the cap (before any of it runs); everything
 * else is an outcome.
 */
async function checkDian(
  input: CredentialInput,
  plan: DianPlan,
  ctx: IntegrationContext,
  numbering: DianNumbering,
): Promise<CheckResult> {
  const rule = (url: URL) => dianUrlProblem(url, input.environment, ctx.allowPrivateUrls);
  checkedUrl(plan.url, ctx, rule); // nothing is opened for a url that is refused
  const issuer = await ctx.serviceDb.call("einv_integration_issuer", {
    p_org_id: input.org_id,
    p_company_id: input.company_id,
  });
  const parts = await credentialParts(input, plan, ctx.secretBox);
  if ("problem" in parts) return { ok: false, message: parts.problem };
  const outcome = await checkParts(input, plan, ctx, numbering, rule, issuer, parts);
  return isGuessablePin(parts.parts.softwarePin)
    ? { ...outcome, warnings: [{ code: "software_pin_guessable", message: GUESSABLE_PIN_WARNING }] }
    : outcome;
}

/** checkDian's checks once the parts to seal are known: they open, are the company's, and DIAN knows them. */
async function checkParts(
  input: CredentialInput,
  plan: DianPlan,
  ctx: IntegrationContext,
  numbering: DianNumbering,
  rule: (url: URL) => string | null,
  issuer: { nit: string; check_digit: string },
  parts: { parts: DianCredentialParts; keyBits: number | null },
): Promise<CheckResult> {
  const plaintext = dianCredentialPlaintext(parts.parts);
  if (plaintext.length > MAX_SEALED_CHARS) {
    throw new FieldError("certificate.p12_base64", "holds a key and certificate too large to keep");
  }
  let signer: Signer;
  try {
    ({ signer } = await openDianCredential(plaintext));
  } catch (error) {
    if (error instanceof DianCredentialError) return { ok: false, message: `The ${error.message}.` };
    throw error;
  }
  const certificate = summary(signer.certificate);
  const problem = certificateProblem(signer.certificate, parts.keyBits, issuer, ctx.now?.() ?? new Date());
  if (problem) return { ok: false, message: problem, certificate };

  const reached = await reachChecked(input, plan.url, ctx, rule);
  if (!("fetch" in reached)) return { ...reached, certificate };
  const query: NumberingRangeQuery = {
    url: reached.base,
    fetch: reached.fetch,
    timeoutMs: ctx.timeoutMs,
    signer,
    accountCode: issuer.nit,
    accountCodeT: plan.settings.software_provider_nit ?? issuer.nit,
    softwareCode: plan.settings.software_id,
  };
  let verdict: NumberingVerdict;
  try {
    const answer = await numbering.getNumberingRange(query);
    verdict = numberingVerdict(answer, query);
    ctx.log.info("DIAN answered GetNumberingRange", {
      company_id: input.company_id,
      environment: input.environment,
      operation_code: "refused" in answer ? "refused" : answer.operationCode.slice(0, 10),
      dian_says: verdict.dianSays ?? "",
    });
  } catch (error) {
    if (error instanceof ProviderError)
      return {
        ok: false,
        message: error.message,
        failure: error,
        certificate,
        ...(error.providerMessage ? { providerMessage: error.providerMessage } : {}),
      };
    throw error;
  }
  if (!verdict.ok)
    return {
      ok: false,
      message: verdict.message,
      ...(verdict.failure ? { failure: verdict.failure } : {}),
      certificate,
    };
  return {
    ok: true,
    message: `The certificate of NIT ${certificate.nit} opens and is in force until ${certificate.not_after.slice(0, 10)}. ${verdict.message}`,
    certificate,
    secret: plaintext,
  };
}

/**
 * The parts to seal: the given certificate file opened (its key and leaf), the given PIN, and the
 * saved ones for what was not given. `{ problem }` when the file does not open or the saved parts
 * cannot be read; FieldError when the file is refused before opening (./pkcs12-cost.ts).
 */
async function credentialParts(
  input: CredentialInput,
  plan: DianPlan,
  secretBox: SecretBox,
): Promise<{ parts: DianCredentialParts; keyBits: number | null } | { problem: string }> {
  let saved: DianCredentialParts | undefined;
  if (!input.certificate || input.software_pin === undefined) {
    const sealed = plan.saved?.api_key_ciphertext;
    if (!sealed) return { problem: "Nothing is saved to use in place of what was not sent." };
    try {
      saved = dianCredentialParts(await secretBox.open(sealed, identityOf(input)));
    } catch (error) {
      if (error instanceof SecretBoxError || error instanceof DianCredentialError) {
        return {
          problem: `The saved certificate cannot be opened (${error.message}); save it again with certificate and software_pin.`,
        };
      }
      throw error;
    }
  }
  const softwarePin = input.software_pin ?? saved?.softwarePin ?? "";
  if (!input.certificate) {
    if (!saved) return { problem: "Nothing is saved to use in place of what was not sent." };
    return { parts: { ...saved, softwarePin }, keyBits: null };
  }
  try {
    const opened = readPkcs12(input.certificate.p12, input.certificate.password);
    return {
      parts: { pkcs8: opened.pkcs8, certificate: opened.certificate.base64, softwarePin },
      keyBits: opened.keyBits,
    };
  } catch (error) {
    if (error instanceof Pkcs12RefusedError) throw new FieldError("certificate.p12_base64", error.message);
    if (error instanceof CertificateError)
      return { problem: `The certificate does not open: ${error.message}.` };
    throw error;
  }
}

/**
 * Why the certificate cannot be the company's DIAN-mode certificate today, or null: a key DIAN's
 * CAs would not issue, no NIT or another NIT than the company's where DIAN reads it (DIAN also takes
 * the NIT with its check digit appended: [D] GetAuthorization tries the code without its last
 * character), or not in force at `now`.
 */
function certificateProblem(
  certificate: CertificateInfo,
  keyBits: number | null,
  issuer: { nit: string; check_digit: string },
  now: Date,
): string | null {
  if (keyBits !== null && (keyBits < KEY_BITS.min || keyBits > KEY_BITS.max)) {
    return `The certificate's key has ${keyBits} bits; DIAN mode takes RSA keys of ${KEY_BITS.min} to ${KEY_BITS.max} bits.`;
  }
  if (!certificate.nit) {
    return "The certificate carries no NIT where DIAN reads it (the subject's 1.3.6.1.4.1.23267.2.3, SERIALNUMBER or 2.5.4.97).";
  }
  if (certificate.nit !== issuer.nit && certificate.nit !== `${issuer.nit}${issuer.check_digit}`) {
    return `The certificate is NIT ${certificate.nit}'s, not the company's (NIT ${issuer.nit}-${issuer.check_digit}).`;
  }
  if (now < certificate.notBefore) {
    return `The certificate is not valid yet: it is valid from ${certificate.notBefore.toISOString()}.`;
  }
  if (now > certificate.notAfter) {
    return `The certificate expired on ${certificate.notAfter.toISOString()}.`;
  }
  return null;
}

/** The certificate as the answers show it. */
function summary(certificate: CertificateInfo): CertificateSummary {
  return {
    subject: certificate.subject,
    nit: certificate.nit,
    serial: certificate.serialNumber,
    not_after: certificate.notAfter.toISOString(),
  };
}
