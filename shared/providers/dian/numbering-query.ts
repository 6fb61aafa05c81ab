/**
 * The seam between /integrations and DIAN's web service: does DIAN know the company's software and
 * its numbering ranges? DIAN answers that with GetNumberingRange (brief §1: `accountCode` = the
 * issuer's NIT, `accountCodeT` = the software owner's NIT, `softwareCode` = the SoftwareID), signed
 * with the company's certificate (WS-Security). The SOAP client lives with DIAN's other operations
 * (`shared/providers/dian/`); the composition root hands an implementation of `DianNumbering` to the
 * integration operations (`AppDeps.dianNumbering`), which map its answer onto a verdict
 * (`numberingVerdict`, ./numbering.ts). The composition root's is the client's
 * own call; tests may hand in another.
 */

import type { FetchLike } from "../../ports/egress/exchange.ts";
import type { NumberRange, NumberRangeResponseList } from "./answers.ts";
import type { Signer } from "./certificate.ts";

/** One GetNumberingRange call. */
export interface NumberingRangeQuery {
  /** DIAN's endpoint (or the local stand-in), through the URL policy and DIAN mode's host rule. */
  url: URL;
  /** Reaches `url` at its checked addresses (the egress): use it, not the global fetch. */
  fetch: FetchLike;
  timeoutMs: number;
  /** The company's certificate and key: what signs the WS-Security header. */
  signer: Signer;
  /** The issuer's NIT, without check digit. */
  accountCode: string;
  /** The software owner's NIT, without check digit (the issuer's own for software propio). */
  accountCodeT: string;
  /** The SoftwareID. */
  softwareCode: string;
}

/** One range of DIAN's answer, and the answer: the web-service client's own types. */
export type { NumberRange as NumberingRange, NumberRangeResponseList as NumberingRangeAnswer };

/** DIAN's GetNumberingRange, as the integration operations need it. */
export interface DianNumbering {
  /**
   * Calls GetNumberingRange and resolves with DIAN's answer, whatever its OperationCode. Rejects with
   * a ProviderUnauthorizedError when DIAN refuses the certificate itself (a SOAP Fault Client or
   * Sender about security: not trusted, not in force, revoked) — a verdict on the credential — and
   * with another ProviderError when no answer came (unreachable, timed out, HTTP 5xx, another Fault,
   * something that is not DIAN's answer). Never puts the key or the PIN in an error.
   */
  getNumberingRange(query: NumberingRangeQuery): Promise<NumberRangeResponseList>;
}
