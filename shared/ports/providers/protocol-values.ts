/**
 * The provider protocol's plain values, without its schemas: building those (./protocol.ts,
 * ./docsgen.ts) costs a cold instance about 17 ms, which a /representation drawn by the built-in
 * renderer (no provider involved) should not pay (`npm run bench`, the cold start's imports). The
 * schemas are built from these.
 */

/** The media type of an AttachedDocument answer (`text/xml` is accepted too). */
export const ATTACHED_DOCUMENT_CONTENT_TYPE = "application/xml";

/**
 * The document's fiscal state as a rendered PDF shows it: `not_submitted` (never sent), `pending`
 * (sent, no decision yet), `accepted` (validated: the PDF carries the CUFE/CUDE), `rejected`.
 */
export const RENDER_STATUSES = ["not_submitted", "pending", "accepted", "rejected"] as const;
export type RenderStatus = (typeof RENDER_STATUSES)[number];

const RENDER_STATUS_OF = {
  pendiente: "not_submitted",
  en_proceso: "pending",
  transmitida: "accepted",
  emitida: "accepted",
  error: "rejected",
  descartada: "rejected",
} as const satisfies Record<string, RenderStatus>;

/** Our document's status → the protocol's: pendiente, en_proceso, transmitida, emitida, error. */
export function renderStatusOf(status: keyof typeof RENDER_STATUS_OF): RenderStatus {
  return RENDER_STATUS_OF[status];
}
