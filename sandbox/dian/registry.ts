/**
 * What the DIAN stand-in knows, as DIAN's own tables would: the certification authorities it trusts,
 * the issuers (NIT) with the software registered for them and their numbering ranges, the test sets
 * of habilitación, and which environment it plays. The host seeds it (`npm start`, a test); nothing
 * here is DIAN's data. Every list has a cap so a host cannot grow it without bound by mistake.
 *
 * Sources for what each entry means: brief §1 (GetNumberingRange's fields, [D] `NumberRangeResponse.cs`),
 * §3 (the technical key, the habilitación range), [D] `DianPAServices.GetNumberingRange` (a range
 * belongs to an issuer, a software and the software's owner), [D] `Validator.ValidateSoftware` (a
 * software has an id, a PIN and may be inactive: FAB24c).
 */

import type { TestSetRequirement } from "./test-sets.ts";

/** Software DIAN registered: its id, its PIN (secret), and whose it is (accountCodeT). */
export interface DianSoftwareEntry {
  id: string;
  pin: string;
  /** NIT (without DV) of the software's owner: the issuer itself for software propio. */
  ownerNit: string;
  /** false: FAB24c "Identificador del software informado se encuentra inactivo." Default true. */
  active?: boolean;
}

/** A numbering range (resolución de numeración) as GetNumberingRange lists it. */
export interface DianRangeEntry {
  resolutionNumber: string;
  /** yyyy-MM-dd */
  resolutionDate: string;
  /** "" when the range has none. */
  prefix: string;
  from: string;
  to: string;
  /** yyyy-MM-dd, the range's validity (InvoiceControl's AuthorizationPeriod). */
  validFrom: string;
  validTo: string;
  /** ClTec: the CUFE's key in production. */
  technicalKey: string;
  /** The software the range was granted to. */
  softwareId: string;
}

export interface DianIssuerEntry {
  /** The issuer's NIT without DV. */
  nit: string;
  /** The name DIAN's RUT holds: when set, a document naming the issuer otherwise gets FAJ43b (a notification). */
  rutName?: string;
  software: DianSoftwareEntry[];
  ranges: DianRangeEntry[];
  /** NITs (of certificates) allowed to send for this issuer besides its own: a provider's. */
  authorizedSenders?: string[];
}

export interface DianTestSet {
  /** The TestSetId DIAN gives at habilitación (a GUID). */
  id: string;
  softwareId: string;
  /**
   * What the set requires (./test-sets.ts; e.g. OBSERVED_TEST_SET). Absent: the set keeps its tally
   * but never closes, unless the knob `testSetRequired` gives numbers for every set.
   */
  required?: TestSetRequirement;
}

export interface DianRegistry {
  /** habilitación (vpfe-hab) or production (vpfe). Default habilitación. */
  environment: "habilitacion" | "produccion";
  /** PEM certificates of the CAs a client or signing certificate must chain to. */
  trustedCaPems: string[];
  /** Decimal serial numbers of revoked certificates (DIAN reads CRLs; the stand-in this list). */
  revokedSerials: string[];
  issuers: DianIssuerEntry[];
  testSets: DianTestSet[];
  /**
   * The ClTec of every invoice's CUFE in habilitación ([D] `ValidateCufe`: `TestHabTechnicalKey`, a
   * configuration value). Default: the key of habilitación's SETP test range that Odoo's tests and
   * public examples use.
   */
  testTechnicalKey: string;
}

/** Caps on what a host can put in the registry. */
export const REGISTRY_LIMITS = { cas: 50, issuers: 1_000, perIssuer: 100, testSets: 1_000 } as const;

export const HABILITACION_TECHNICAL_KEY = "fc8eac422eba16e22ffd8c6f94b3f40a6e38162c";

/** A registry with the defaults filled in. */
export function createRegistry(initial: Partial<DianRegistry> = {}): DianRegistry {
  const registry: DianRegistry = {
    environment: initial.environment ?? "habilitacion",
    trustedCaPems: [...(initial.trustedCaPems ?? [])],
    revokedSerials: [...(initial.revokedSerials ?? [])],
    issuers: (initial.issuers ?? []).map(copyIssuer),
    testSets: [...(initial.testSets ?? [])],
    testTechnicalKey: initial.testTechnicalKey ?? HABILITACION_TECHNICAL_KEY,
  };
  checkLimits(registry);
  return registry;
}

function copyIssuer(issuer: DianIssuerEntry): DianIssuerEntry {
  return {
    ...issuer,
    software: issuer.software.map((s) => ({ ...s })),
    ranges: issuer.ranges.map((r) => ({ ...r })),
    authorizedSenders: [...(issuer.authorizedSenders ?? [])],
  };
}

/** Throws a RangeError when the registry holds more than REGISTRY_LIMITS allows. */
export function checkLimits(registry: DianRegistry): void {
  const over =
    registry.trustedCaPems.length > REGISTRY_LIMITS.cas ||
    registry.issuers.length > REGISTRY_LIMITS.issuers ||
    registry.testSets.length > REGISTRY_LIMITS.testSets ||
    registry.revokedSerials.length > REGISTRY_LIMITS.issuers ||
    registry.issuers.some(
      (i) => i.software.length > REGISTRY_LIMITS.perIssuer || i.ranges.length > REGISTRY_LIMITS.perIssuer,
    );
  if (over)
    throw new RangeError(
      `the DIAN stand-in's registry is over its limits ${JSON.stringify(REGISTRY_LIMITS)}`,
    );
}

/** Adds or replaces the issuer with the same NIT. */
export function putIssuer(registry: DianRegistry, issuer: DianIssuerEntry): void {
  registry.issuers = [...registry.issuers.filter((i) => i.nit !== issuer.nit), copyIssuer(issuer)];
  checkLimits(registry);
}

export function findIssuer(registry: DianRegistry, nit: string): DianIssuerEntry | undefined {
  return registry.issuers.find((i) => i.nit === nit);
}

/** The software with `id`, whichever issuer it is registered under. */
export function findSoftware(registry: DianRegistry, id: string): DianSoftwareEntry | undefined {
  for (const issuer of registry.issuers) {
    const found = issuer.software.find((s) => s.id === id);
    if (found) return found;
  }
  return undefined;
}

/**
 * Whether a certificate whose subject gave `certificateNit` may send for `issuerNit`. DIAN reads every
 * digit of the subject's NIT attribute, so a NIT written with its DV ("900123456-8") gives one digit
 * more; its GetAuthorization tries the value as read and without its last digit ([D] DianPAServices).
 */
export function mayActFor(registry: DianRegistry, certificateNit: string, issuerNit: string): boolean {
  const candidates = [certificateNit, certificateNit.slice(0, -1)];
  if (candidates.includes(issuerNit)) return true;
  const issuer = findIssuer(registry, issuerNit);
  return (issuer?.authorizedSenders ?? []).some((nit) => candidates.includes(nit));
}
