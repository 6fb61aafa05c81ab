/**
 * DIAN's failures as the typed provider errors the core branches on (../../ports/providers/errors.ts),
 * built in this one place. What matters most is `maybeProcessed`: after a send (SendBillSync,
 * SendTestSetAsync) that got no usable answer — a timeout, a lost connection, a 5xx, garbage, or
 * DIAN's own "Ha ocurrido un error" — DIAN may have processed the document, so the adapter must ask
 * GetStatus before sending again; a read (GetStatus, GetStatusZip, GetNumberingRange,
 * GetXmlByDocumentKey) changes nothing at DIAN, so it never "may have processed" anything.
 *
 * SOAP Faults come from WCF before DIAN's code runs (DIAN's operations catch their own exceptions
 * and answer a status instead, [D] WcfDianCustomerServices.svc.cs): a certificate outside its dates,
 * not chained to DIAN's roots or revoked is a Fault `Client` with DIAN's reason ([D]
 * Validator/CertificateValidator.cs), and a WS-Security header WCF cannot verify is WCF's Fault
 * `Sender` / `wsse:InvalidSecurity` (WS-Security 1.0 §12's fault codes). Those mean the company's
 * certificate (or our signature) is refused: the credential is the fix, nothing was processed.
 *
 * Messages are ours, in English, with DIAN's words quoted and cut short; nothing secret reaches
 * this module (the client holds a non-extractable key, never the certificate's password or the
 * software PIN), and DIAN's words cannot carry them either: neither is in any request.
 */
import {
  type ProviderError,
  ProviderMalformedError,
  type ProviderOperation,
  ProviderRateLimitedError,
  ProviderRejectedError,
  ProviderTimeoutError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
  parseRetryAfter,
} from "../../ports/providers/errors.ts";
import { type DianOperation, WSSE_NAMESPACE } from "./soap.ts";
import type { SoapFault } from "./soap-reader.ts";

/** What went wrong with one call, as the client saw it. */
export type DianFailure =
  | { type: "timeout"; timeoutMs: number }
  | { type: "network"; cause: unknown }
  /** An HTTP answer that is neither a result nor a Fault. */
  | { type: "http"; status: number; retryAfter?: string | null }
  | { type: "malformed"; status: number; problem: string }
  | { type: "fault"; status: number; fault: SoapFault }
  /** DIAN's answer says its service failed or refused the request itself (status 500, 89/90 on a read). */
  | { type: "status"; statusCode: string; description: string; unavailable: boolean };

/** Whether the operation makes DIAN process something. */
export function isSend(operation: DianOperation): boolean {
  return operation === "SendBillSync" || operation === "SendTestSetAsync";
}

/** Our provider operation an operation of DIAN's serves. */
export function providerOperation(operation: DianOperation): ProviderOperation {
  if (isSend(operation)) return "submit";
  if (operation === "GetXmlByDocumentKey") return "attached_document";
  return operation === "GetNumberingRange" ? "check_credential" : "query";
}

/** WS-Security 1.0 §12's fault codes: the security header was refused. */
const SECURITY_SUBCODES = new Set([
  "UnsupportedSecurityToken",
  "UnsupportedAlgorithm",
  "InvalidSecurity",
  "InvalidSecurityToken",
  "FailedAuthentication",
  "FailedCheck",
  "SecurityTokenUnavailable",
  "MessageExpired",
]);
/** DIAN's certificate reasons all name it ("Certificado se encuentra expirado.", …); WCF's say security. */
const SECURITY_REASON = /certificad|certificate|seguridad|security/i;

const MAX_QUOTE = 300;

/** DIAN's words, on one line and cut short, for a message. */
export function quote(words: string): string {
  const line = words.replace(/\s+/g, " ").trim();
  return line.length > MAX_QUOTE ? `${line.slice(0, MAX_QUOTE - 1)}…` : line;
}

/** The one factory: a failure of `operation` in, the typed error out. */
export function dianError(operation: DianOperation, failure: DianFailure): ProviderError {
  const send = isSend(operation);
  const base = { operation: providerOperation(operation), service: "adapter-tax" as const };
  // a send without a usable answer has an unknown outcome: query before sending again
  const unknown = send ? " DIAN may have processed it: query its status before sending it again." : "";
  switch (failure.type) {
    case "timeout":
      return new ProviderTimeoutError(
        `DIAN did not answer ${operation} within ${failure.timeoutMs} ms.${unknown}`,
        {
          ...base,
          maybeProcessed: send,
        },
      );
    case "network":
      return new ProviderUnavailableError(`DIAN could not be reached for ${operation}.${unknown}`, {
        ...base,
        maybeProcessed: send,
        cause: failure.cause,
      });
    case "malformed":
      return new ProviderMalformedError(`DIAN answered ${operation} with ${failure.problem}.${unknown}`, {
        ...base,
        maybeProcessed: send,
        status: failure.status,
      });
    case "status":
      return failure.unavailable
        ? new ProviderUnavailableError(
            `DIAN's service failed on ${operation} (status ${failure.statusCode}).${unknown}`,
            {
              ...base,
              maybeProcessed: send,
              providerCode: failure.statusCode,
              providerMessage: quote(failure.description),
            },
          )
        : new ProviderRejectedError(`DIAN refused ${operation} (status ${failure.statusCode}).`, {
            ...base,
            maybeProcessed: false,
            providerCode: failure.statusCode,
            providerMessage: quote(failure.description),
          });
    case "fault":
      return faultError(operation, failure.status, failure.fault, unknown);
    case "http":
      return httpError(operation, failure.status, failure.retryAfter, unknown);
  }
}

function faultError(
  operation: DianOperation,
  status: number,
  fault: SoapFault,
  unknown: string,
): ProviderError {
  const base = {
    operation: providerOperation(operation),
    service: "adapter-tax" as const,
    status,
    providerCode: fault.code.local,
    providerMessage: quote(fault.reason),
  };
  const said = `SOAP Fault ${fault.code.local}`;
  const security =
    fault.subcodes.some((s) => s.namespace === WSSE_NAMESPACE && SECURITY_SUBCODES.has(s.local)) ||
    SECURITY_REASON.test(fault.reason);
  const local = fault.code.local;
  if (security && (local === "Sender" || local === "Client")) {
    return new ProviderUnauthorizedError(
      `DIAN refused the company's certificate or the request's signature on ${operation} (${said}). Check that the certificate is within its dates, issued by a certification authority DIAN trusts and not revoked.`,
      { ...base, maybeProcessed: false },
    );
  }
  if (local === "Receiver" || local === "Server") {
    return new ProviderUnavailableError(`DIAN failed on ${operation} (${said}).${unknown}`, {
      ...base,
      maybeProcessed: unknown !== "",
    });
  }
  // Sender/Client and SOAP's VersionMismatch, MustUnderstand, DataEncodingUnknown: the request was refused
  return new ProviderRejectedError(`DIAN refused ${operation} (${said}).`, {
    ...base,
    maybeProcessed: false,
  });
}

function httpError(
  operation: DianOperation,
  status: number,
  retryAfter: string | null | undefined,
  unknown: string,
): ProviderError {
  const base = { operation: providerOperation(operation), service: "adapter-tax" as const, status };
  if (status === 401 || status === 403) {
    return new ProviderUnauthorizedError(`DIAN refused ${operation} (HTTP ${status}).`, {
      ...base,
      maybeProcessed: false,
    });
  }
  if (status === 429) {
    const retryAfterSeconds = parseRetryAfter(retryAfter);
    return new ProviderRateLimitedError(
      `DIAN is limiting requests; retry ${operation} after ${retryAfterSeconds} s.`,
      {
        ...base,
        maybeProcessed: false,
        retryAfterSeconds,
      },
    );
  }
  if (status === 408 || status === 504) {
    return new ProviderTimeoutError(`DIAN timed out on ${operation} (HTTP ${status}).${unknown}`, {
      ...base,
      maybeProcessed: unknown !== "",
    });
  }
  if (status >= 500 && status <= 599) {
    return new ProviderUnavailableError(`DIAN failed on ${operation} (HTTP ${status}).${unknown}`, {
      ...base,
      maybeProcessed: unknown !== "",
    });
  }
  if (status >= 300 && status <= 399) {
    // never followed: DIAN's service has no reason to move, and a redirect could lead anywhere
    return new ProviderMalformedError(
      `DIAN answered ${operation} with a redirect (HTTP ${status}), which is not followed.${unknown}`,
      {
        ...base,
        maybeProcessed: unknown !== "",
      },
    );
  }
  if (status >= 400 && status <= 499) {
    return new ProviderRejectedError(`DIAN refused ${operation} (HTTP ${status}).`, {
      ...base,
      maybeProcessed: false,
    });
  }
  return new ProviderMalformedError(`DIAN answered ${operation} with unexpected HTTP ${status}.${unknown}`, {
    ...base,
    maybeProcessed: unknown !== "",
  });
}

/** An answer that settles nothing because it cannot be what DIAN sends (read in a 200). */
export function malformedAnswer(operation: DianOperation, problem: string): ProviderError {
  return dianError(operation, { type: "malformed", status: 200, problem });
}
