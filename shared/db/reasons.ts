/**
 * The sentences a caller reads for the reason codes the database API raises. SQL says what happened
 * (`never_sent`, with the document kind in the error's detail); the words are chosen here, once.
 */
export type DocumentKind = "invoice" | "credit_note";

const NOUNS: Record<string, string> = {
  invoice: "invoice",
  credit_note: "credit note",
  credential: "credential",
};

const SENTENCES: Record<string, (noun: string) => string> = {
  not_found: (noun) => `${capitalise(noun)} not found.`,
  company_not_found: () => "Company not found in this organization.",
  never_sent: (noun) => `This ${noun} was never sent; transmit it first.`,
  busy: (noun) => `This ${noun} is being transmitted or changed meanwhile; try again shortly.`,
  not_claimed: (noun) => `This ${noun} is no longer claimed by this transmission.`,
  not_accepted: (noun) => `Only a ${noun} the authority accepted can be delivered.`,
  unknown_status: () => "The outcome to record has an unknown status.",
  unknown_kind: () => "Unknown kind of document.",
  outside_org_folder: () => "A representation must live under its organization's folder.",
  delivery_not_open: () => "This delivery was already recorded.",
};

/** The caller's sentence for a reason code, or undefined when `reason` is not one. */
export function reasonSentence(reason: string, kind: string | null | undefined): string | undefined {
  const sentence = SENTENCES[reason];
  return sentence?.(NOUNS[kind ?? ""] ?? "document");
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
