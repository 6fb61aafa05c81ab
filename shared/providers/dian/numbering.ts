/**
 * GetNumberingRange's answer (DIAN mode's credential check): whether DIAN knows the company's
 * software and its numbering ranges, in English for a person, with what to fix. OperationCodes and
 * DIAN's texts: [D] `WcfDianCustomerServices.svc.cs` GetNumberingRange — 100 OK (the ranges in force
 * today that are authorized for this software and owner), 401 the certificate's NIT is not
 * authorized for the issuer (or for the software owner), 301 no range in force for the issuer, 302
 * none associated with this software, 303 the software is not the owner's, 500 DIAN's own failure
 * ("intente más tarde"). DIAN's own words (Spanish) go to the log, never into the API's message.
 */
import { type ProviderError, ProviderUnavailableError } from "../../ports/providers/errors.ts";
import type { NumberRange, NumberRangeResponseList } from "./answers.ts";
import type { DianRequests } from "./soap.ts";

/** What the integration operations make of DIAN's answer. */
export interface NumberingVerdict {
  ok: boolean;
  /** In English, for a person: what DIAN said and what to fix. */
  message: string;
  failure?: ProviderError;
  /** DIAN's own words (Spanish), bounded to one line: for the log, never for the API's message. */
  dianSays?: string;
}

/** DIAN's texts are the remote party's: bounded and one line before they reach a log line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 300);
}

/** The verdict on `answer` to `query`: 100 with ranges is ok, every other code says what to fix. */
export function numberingVerdict(
  answer: NumberRangeResponseList,
  query: DianRequests["GetNumberingRange"],
): NumberingVerdict {
  const dianSays = oneLine(answer.operationDescription ?? "");
  const { accountCode, accountCodeT, softwareCode } = query;
  const verdict = (ok: boolean, message: string): NumberingVerdict => ({ ok, message, dianSays });
  switch (answer.operationCode) {
    case "100": {
      if (answer.ranges.length === 0) {
        return verdict(
          false,
          `DIAN lists no numbering range in force for the software ${softwareCode} of NIT ${accountCode}.`,
        );
      }
      const shown = answer.ranges.slice(0, 5).map(describe).join("; ");
      const more = answer.ranges.length > 5 ? `; and ${answer.ranges.length - 5} more` : "";
      return verdict(
        true,
        `DIAN knows the software ${softwareCode} and its numbering ranges for NIT ${accountCode}: ${shown}${more}.`,
      );
    }
    case "301":
      return verdict(
        false,
        `DIAN has no authorized numbering range in force for NIT ${accountCode} (301): ask for a numbering resolution (in habilitación, the test set's range) in DIAN's portal.`,
      );
    case "302":
      return verdict(
        false,
        `DIAN has no numbering range associated with the software ${softwareCode} (302): associate the company's prefixes with that software in DIAN's portal, or check settings.software_id.`,
      );
    case "303":
      return verdict(
        false,
        `DIAN says the software ${softwareCode} does not belong to NIT ${accountCodeT} (303): check settings.software_id and settings.software_provider_nit.`,
      );
    case "401":
      return verdict(
        false,
        `DIAN says the certificate's NIT may not consult the numbering ranges of NIT ${accountCode} (401): the certificate must be the company's, or of a provider the company authorized in DIAN's portal.`,
      );
    case "500": {
      const failure = new ProviderUnavailableError(
        "DIAN's web service failed on GetNumberingRange (OperationCode 500); try again later.",
        { service: "adapter-tax", operation: "check_credential", maybeProcessed: false },
      );
      return { ...verdict(false, failure.message), failure };
    }
    default:
      return verdict(
        false,
        `DIAN answered GetNumberingRange with OperationCode ${answer.operationCode.replace(/[^0-9A-Za-z]/g, "").slice(0, 10)}, which this service does not know.`,
      );
  }
}

/** One range for a person: prefix, numbers, resolution and dates (each field clipped: DIAN's text). */
function describe(range: NumberRange): string {
  const f = (text: string | null) => String(text ?? "?").slice(0, 40);
  const prefix = range.prefix ? `${f(range.prefix)} ` : "";
  return `${prefix}${f(range.fromNumber)}–${f(range.toNumber)} (resolution ${f(range.resolutionNumber)}, ${f(range.validDateFrom)} to ${f(range.validDateTo)})`;
}
