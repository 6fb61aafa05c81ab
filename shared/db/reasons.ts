/**
 * The sentences a caller reads for the reason codes the database API raises. SQL says what happened
 * (`never_sent`, with the document kind in the error's detail, and after a colon the one value the
 * sentence needs: `line_already_credited:<line id>`); the words are chosen here, once.
 */
export type DocumentKind = "invoice" | "credit_note" | "debit_note";

const NOUNS: Record<string, string> = {
  invoice: "invoice",
  credit_note: "credit note",
  debit_note: "debit note",
  credential: "credential",
  webhook: "webhook endpoint",
};

const SENTENCES: Record<string, (noun: string, value: string) => string> = {
  not_found: (noun) => `${capitalise(noun)} not found.`,
  company_not_found: () => "Company not found in this organization.",
  test_set_invalid: () =>
    "A test set's invoices are written 1 to 50 at a time, under a test set id of at most 64 letters, digits and dashes.",
  test_set_full: (noun) =>
    `The test set already has its \`send\` of ${noun}s (the run's cap): no more are issued.`,
  test_set_outside_range: (_, number) =>
    `The test set's next invoice number ${number} is outside the company's numbering resolution: in habilitación the company's numbering is DIAN's test range (prefix SETP, 990000000–995000000; docs/dian.md, step 3), whose top (from 994000001) the test set's documents take.`,
  test_set_in_production: () =>
    "This invoice belongs to habilitación's test set: it is sent only in uat, never in production. Set the company's active environment to uat to finish the set (/integrations/test-set).",
  never_sent: (noun) => `This ${noun} was never sent; transmit it first.`,
  busy: (noun) => `This ${noun} is being transmitted or changed meanwhile; try again shortly.`,
  not_claimed: (noun) => `This ${noun} is no longer claimed by this transmission.`,
  not_accepted: (noun) => `Only a ${noun} the authority accepted can be delivered.`,
  unknown_status: () => "The outcome to record has an unknown status.",
  unknown_kind: () => "Unknown kind of document.",
  outside_org_folder: () => "A representation must live under its organization's folder.",
  delivery_not_open: () => "This delivery was already recorded.",
  delivery_already_retried: () => "This delivery was already tried again; that newer attempt carries on.",
  incomplete_credential: () => "A credential is saved with its url, settings and sealed key together.",
  unknown_event: () => "Unknown kind of credential event.",
  too_many_webhooks: (_, max) =>
    `An organization has at most ${max} webhook endpoints, disabled ones included; give one a new url and events instead.`,
  incomplete_webhook: () => "A new webhook endpoint is saved with its url and sealed secret together.",
  idempotency_body_differs: () =>
    "This Idempotency-Key was already used on this route with a different body; use a new key for a new request.",
  idempotency_in_flight: () =>
    "A request with this Idempotency-Key is still being processed; retry once it has answered.",
  invoice_not_accepted: (noun, status) =>
    `A ${noun} is issued only for an invoice the authority accepted (transmitida); this one is ${status}.`,
  invoice_in_progress: (noun) =>
    `The invoice is being transmitted; issue the ${noun} once the authority has accepted it (try again shortly).`,
  line_not_of_invoice: (_, line) => `Line ${line} is not a line of this invoice.`,
  line_already_credited: (_, line) =>
    `Line ${line} has nothing left to credit: it is credited by another credit note that the authority ` +
    "accepted or may still accept; if that note is in error, reissue or refresh it instead of issuing a new one.",
  credit_exceeds_line: (_, left) => {
    const [line, units, base] = left.split(" ");
    return (
      `Line ${line} has ${units} unit(s) and ${base} of base (before tax) left to credit, ` +
      "counting every credit note that stands; this note asks for more."
    );
  },
  credit_below_a_cent: (_, line) =>
    `The quantity asked of line ${line} is worth less than a cent at its unit price: it would credit nothing.`,
  credit_line_invalid: (_, entry) =>
    `${entry ? `The line ${entry}` : "The list of lines"} cannot be credited as asked: list 1 to 1,000 ` +
    'distinct lines, each with a quantity (concept "1") or an amount (concepts "3" to "6"), a decimal greater than 0.',
  nothing_left_to_credit: () => "Every line of this invoice has already been credited.",
  document_allowances_need_annulment: () =>
    'This invoice has discounts or charges of its own (not of a line): it is credited whole, by an annulment (concept "2").',
  debit_note_invalid: () =>
    'A debit note needs a DIAN concept ("1" to "4") and a reason of 1 to 500 characters.',
  debit_line_invalid: (_, entry) =>
    `${entry ? `The line ${entry}` : "The list of lines"} cannot be charged as asked: list 1 to 1,000 lines, ` +
    "each with a description, a quantity and a unit price, and at most 10 taxes and 10 discounts or charges.",
  debit_note_empty: () =>
    "The lines come to nothing: a debit note charges something (its total must be above 0.00).",
  annulment_incomplete: (_, left) =>
    `An annulment (concept "2") must credit everything still uncredited; ${left} line(s) would be left out.`,
};

/** The caller's sentence for a reason code, or undefined when `reason` is not one. */
export function reasonSentence(reason: string, kind: string | null | undefined): string | undefined {
  const at = reason.indexOf(":");
  const sentence = SENTENCES[at === -1 ? reason : reason.slice(0, at)];
  return sentence?.(NOUNS[kind ?? ""] ?? "document", at === -1 ? "" : reason.slice(at + 1));
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
