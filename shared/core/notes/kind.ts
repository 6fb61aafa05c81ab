/**
 * Notes of an invoice — credit notes, debit notes — as the lifecycle sees them: kinds of fiscal
 * document that the service writes for an invoice the authority accepted and sends at once, whose
 * "accepted" is `emitida`, whose first sending, stopped before anything left, leaves them in `error`
 * to be reissued, and whose routes (`/<kind>s`, `…/reissue`, `…/refresh`, `…/representation`,
 * `…/deliver`) say the same things in their own words. A note kind's descriptor is made here from
 * what differs: its kind, its noun, where its routes and PDFs live, its checks and payload, its PDF.
 */
import type { DocumentKind } from "../../kernel/rows.ts";
import type { DocumentKindSpec } from "../documents/kind.ts";

/** The kinds that are notes of an invoice. */
export type NoteKind = Exclude<DocumentKind, "invoice">;

/** A note's status as its routes answer it: `emitida` once accepted, `error` reissuable, `en_proceso` unknown. */
export type NoteStatus = "en_proceso" | "emitida" | "error";

/** What a note kind's descriptor is made of. */
export interface NoteKindParts<K extends NoteKind>
  extends Pick<DocumentKindSpec<K>, "kind" | "folder" | "prepare" | "pdfModel" | "fileName"> {
  /** "credit note", "debit note". */
  noun: string;
  /** Where its routes are mounted: "/credit-notes". */
  routes: `/${string}`;
  /** What to do about one the authority rejected, when not "correct it, then reissue it". */
  whenRejected?: string;
}

/** The descriptor of a note kind: accepted is `emitida`, unsent `error`, the words its routes'. */
export function noteKind<K extends NoteKind>(
  parts: NoteKindParts<K>,
): DocumentKindSpec<K> & { accepted: "emitida" } {
  const { noun, routes, whenRejected, ...kind } = parts;
  return {
    ...kind,
    accepted: "emitida",
    unsent: "error",
    words: {
      noun,
      alreadyAccepted: `already issued: the authority accepted this ${noun}`,
      howToResend: `send it again with ${routes}/reissue`,
      whileInProgress: `use ${routes}/refresh to ask the authority, or ${routes}/reissue once it is idle`,
      ...(whenRejected ? { whenRejected } : {}),
    },
  };
}
