/**
 * The fields every per-document answer shares beside its status: the result `code` (one closed
 * list, ../kernel/result-codes.ts, each route declaring the codes it can answer), the API's
 * English `message`, and the authority's own words, passed through as written.
 */
import { z } from "zod";
import { codesOf, RESULT_CODES, type ResultGroup } from "../kernel/result-codes.ts";

/** The `code` of one group's answers, described code by code for the reference. */
export function resultCode(group: Exclude<ResultGroup, "stored">) {
  const codes = codesOf(group);
  const lines = codes.map((code) => `\`${code}\`: ${RESULT_CODES[code].meaning}`);
  return z.enum(codes as [string, ...string[]]).meta({
    description:
      'What happened, as a stable machine word (docs/api.md, "Result codes", says what to do about each): ' +
      lines.join(" "),
  });
}

export const resultMessage = z
  .string()
  .meta({ description: "What happened, in English, for a person to read; `code` says it for a program." });

export const authorityMessage = z.string().optional().meta({
  description:
    "The authority's own message about the document, as it wrote it (DIAN: Spanish); present when it answered.",
});

export const AuthorityRule = z
  .object({
    rule: z.string().meta({ description: "The authority's rule code, e.g. `FAJ44b`, `FAU04`, `RUT01`." }),
    kind: z.enum(["rechazo", "notificacion"]).meta({
      description:
        "`rechazo`: the rule rejects the document; `notificacion`: reported only, never rejecting on its own (it may come with an acceptance).",
    }),
    message: z.string().meta({
      description:
        "The authority's text for the rule, as it wrote it; with `check_failed`, our sentence naming the field that breaks it (nothing was sent).",
    }),
  })
  .meta({ description: "One rule the authority applied to the document." });

export const authorityRules = z.array(AuthorityRule).optional().meta({
  description:
    "The rules the authority reported (rejections and notifications), present when it gave any; with `check_failed`, the authority's rules the checks before sending found broken (an invoice's: DIAN's), present when there are any.",
});

export const providerMessage = z.string().optional().meta({
  description:
    "The provider's (or DIAN's) own words about its failure, as it wrote them (the key cut out); present when it gave any, in this answer only. Never part of `message`.",
});

/** The per-document result fields of a transmission or a status query. */
export function documentResultFields(group: "transmission" | "refresh") {
  return {
    code: resultCode(group),
    message: resultMessage,
    authority_message: authorityMessage,
    authority_rules: authorityRules,
    ...(group === "transmission" ? { provider_message: providerMessage } : {}),
  };
}
