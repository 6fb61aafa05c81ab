/**
 * GetNumberingRange's answer, for `/integrations/test`: whether DIAN knows the software for the
 * issuer, and the numbering ranges it holds ([D] DianPAServices.GetNumberingRange: 100 OK; 301 no
 * range in force for the NIT; 302 none for the software; 303 the software is not the owner NIT's;
 * 401 the certificate's NIT may not ask; 500 DIAN failed). Our words English, DIAN's kept.
 */
import type { NumberRange, NumberRangeResponseList } from "./answers.ts";
import { dianError, malformedAnswer as malformed, quote } from "./failures.ts";

/** GetNumberingRange's answer: whether DIAN knows the software and issuer, and their ranges. */
export interface NumberingCheck {
  ok: boolean;
  /** DIAN's OperationCode: 100 OK; 301, 302, 303, 401 (and 90) why not. */
  code: string;
  message: string;
  authorityMessage: string;
  ranges: NumberRange[];
}

const NUMBERING_MESSAGES: Record<string, string> = {
  "301":
    "DIAN has no authorized numbering range in force for the issuer's NIT: request one (a numbering resolution) in DIAN's portal.",
  "302":
    "DIAN has no numbering range (prefix) associated with this software id: associate the issuer's ranges with the software in DIAN's portal.",
  "303":
    "The software id does not belong to the software owner's NIT given: check the software id and the provider NIT.",
  "401":
    "The certificate's NIT may not query this issuer's numbering ranges: authorize it for the issuer in DIAN's portal.",
  "90": "The certificate does not carry the company's NIT where DIAN reads it.",
};

/** GetNumberingRange's answer. Throws a ProviderError when DIAN's service failed (500). */
export function numberingCheck(list: NumberRangeResponseList): NumberingCheck {
  const words = list.operationDescription ?? "";
  const code = list.operationCode;
  if (code === "500") {
    throw dianError("GetNumberingRange", {
      type: "status",
      statusCode: code,
      description: words,
      unavailable: true,
    });
  }
  if (code === "100") {
    const n = list.ranges.length;
    return {
      ok: true,
      code,
      authorityMessage: words,
      ranges: list.ranges,
      message: `DIAN knows the software and holds ${n} numbering range${n === 1 ? "" : "s"} for the issuer.`,
    };
  }
  if (code === "") throw malformed("GetNumberingRange", "no OperationCode");
  return {
    ok: false,
    code,
    authorityMessage: words,
    ranges: [],
    message: `${NUMBERING_MESSAGES[code] ?? `DIAN refused the numbering range query (code ${code}).`} DIAN says: ${quote(words) || "nothing"}`,
  };
}
