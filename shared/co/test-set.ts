/**
 * DIAN's words about a habilitación test set itself, whoever transmits: once a set is closed, DIAN
 * answers a later batch of it with the set's status instead of validating the document
 * ([F] GetStatusZip_habilitation.xml: StatusCode 2, "Set de prueba con identificador <id> se
 * encuentra Aceptado."). The DIAN adapter reads it into a document's outcome
 * (../providers/dian/outcome.ts); /integrations/test-set reads it back from the documents
 * (../core/integrations/test-set.ts).
 */

/** The set's id and status DIAN's words name, or null when they say nothing of a test set's status. */
export function testSetStatusOf(
  words: string,
): { testSetId: string; status: "aceptado" | "rechazado" } | null {
  const found =
    /set de pruebas? con identificador\s+([0-9A-Za-z-]{1,64})\s+se encuentra\s+(aceptado|rechazado)/i.exec(
      words,
    );
  if (!found?.[1] || !found[2]) return null;
  return { testSetId: found[1], status: found[2].toLowerCase() === "aceptado" ? "aceptado" : "rechazado" };
}
