/**
 * DIAN's final consumer (consumidor final): the buyer of a retail (B2C) sale who is not identified.
 * DIAN's Anexo técnico names one identification for all of them — number `222222222222`, document
 * type `13` (cédula de ciudadanía), name "Consumidor final" — and it carries no check digit (only a
 * NIT, type 31, does).
 */

export const FINAL_CONSUMER = {
  id_type: "13",
  id_number: "222222222222",
  name: "Consumidor final",
} as const;

/** What a buyer identified as DIAN's final consumer lacks of the data DIAN requires; [] otherwise. */
export function finalConsumerProblems(buyer: {
  id_type: string | null;
  id_number: string | null;
  name: string | null;
}): string[] {
  if (buyer.id_number !== FINAL_CONSUMER.id_number) return [];
  const problems: string[] = [];
  if (buyer.id_type !== FINAL_CONSUMER.id_type) {
    problems.push(
      `the final consumer ${FINAL_CONSUMER.id_number} is identified with document type ${FINAL_CONSUMER.id_type}, not ${buyer.id_type ?? "none"}`,
    );
  }
  if (buyer.name !== null && buyer.name.trim().toLowerCase() !== FINAL_CONSUMER.name.toLowerCase()) {
    problems.push(
      `the final consumer ${FINAL_CONSUMER.id_number} is named "${FINAL_CONSUMER.name}", not "${buyer.name}"`,
    );
  }
  return problems;
}
