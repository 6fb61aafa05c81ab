/**
 * client/messages.ts from shared/kernel/messages.ts: the sentences for people of every result code
 * and error code, as data the client carries (it imports nothing of shared/ at run time).
 * `npm run openapi` writes it with the document; a test fails when the committed file is stale.
 */
import { ERROR_MESSAGES, RESULT_MESSAGES } from "../../shared/kernel/messages.ts";

export const MESSAGES_FILE = new URL("../../client/messages.ts", import.meta.url);

/** The text of client/messages.ts. */
export function messagesText(): string {
  const table = (name: string, type: string, entries: Record<string, { es: string; en: string }>) => [
    `export const ${name} = {`,
    ...Object.entries(entries).flatMap(([code, { es, en }]) => [
      `  ${code}: {`,
      `    es: ${JSON.stringify(es)},`,
      `    en: ${JSON.stringify(en)},`,
      "  },",
    ]),
    `} as const satisfies Record<${type}, Sentences>;`,
  ];
  return [
    "/**",
    " * A sentence for people, in Spanish and English, for every result code and every error code of the",
    " * API. Generated from shared/kernel/messages.ts by `npm run openapi` (scripts/docs/messages.ts): do",
    ' * not edit. `describe(code, "es")` (./describe.ts) reads them.',
    " */",
    'import type { ErrorCode } from "./error.ts";',
    "",
    "export interface Sentences {",
    "  es: string;",
    "  en: string;",
    "}",
    "",
    "/** Every result code: what a transmission, a status query or a delivery answers, or a document keeps. */",
    "export type ResultCode = keyof typeof RESULT_MESSAGES;",
    "",
    ...table("RESULT_MESSAGES", "string", RESULT_MESSAGES),
    "",
    ...table("ERROR_MESSAGES", "ErrorCode", ERROR_MESSAGES),
    "",
  ].join("\n");
}
