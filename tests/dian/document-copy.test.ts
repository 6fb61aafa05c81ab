/**
 * What GetXmlByDocumentKey's answer means (./document-copy.ts), read from answers in the shape DIAN's
 * C# declares (tests/dian/answers/get-xml-by-document-key*.xml) with each code and text DIAN's code
 * writes ([D] WcfDianCustomerServices.GetXmlByDocumentKey, DianPAServices.GetXmlByDocumentKey).
 */
import { describe, expect, it } from "vitest";
import {
  ProviderMalformedError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
} from "../../shared/ports/providers/errors.ts";
import { readAnswer } from "../../shared/providers/dian/answers.ts";
import { documentCopy } from "../../shared/providers/dian/document-copy.ts";
import { answer, DOCUMENT_COPY, FIXTURE_KEY } from "./fixtures.ts";

const expected = { documentKey: FIXTURE_KEY };

function read(code: string, message: string) {
  const bytes = answer("get-xml-by-document-key-refused.xml", { CODE: code, MESSAGE: message });
  const read = readAnswer("GetXmlByDocumentKey", bytes);
  if (!("result" in read)) throw new Error("expected a result");
  return read.result;
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("nothing thrown");
}

describe("DIAN's copy of a document", () => {
  it("100: the XML exactly as DIAN holds it", () => {
    const read = readAnswer("GetXmlByDocumentKey", answer("get-xml-by-document-key.xml"));
    if (!("result" in read)) throw new Error("expected a result");
    expect(documentCopy(read.result, expected)).toEqual({ found: true, xml: DOCUMENT_COPY });
  });

  it("404: DIAN holds no validated document with the code, in our words, DIAN's kept apart", () => {
    const words = `Xml con CUFE: '${FIXTURE_KEY}' no encontrado.`;
    expect(documentCopy(read("404", words), expected)).toEqual({
      found: false,
      message: `DIAN holds no validated document with the CUFE/CUDE ${FIXTURE_KEY} (404).`,
      authorityMessage: words,
    });
  });

  it("401: the certificate may not read the document, a credential problem; nothing was processed", () => {
    const error = thrown(() =>
      documentCopy(
        read(
          "401",
          "NIT: 900999999 del certificado no autorizado para consultar xmls de emisor con NIT: 900123456 y receptor con NIT: 222222222222",
        ),
        expected,
      ),
    );
    expect(error).toBeInstanceOf(ProviderUnauthorizedError);
    expect(error).toMatchObject({
      operation: "attached_document",
      maybeProcessed: false,
      providerCode: "401",
    });
    expect((error as Error).message).toMatch(
      /^DIAN says the company's certificate may not read this document \(401\)/,
    );
    // DIAN's own words beside ours, never inside them
    expect((error as { providerMessage?: string }).providerMessage).toMatch(
      /^NIT: 900999999 del certificado no autorizado/,
    );
    expect((error as Error).message).not.toContain("900999999");
  });

  it("500: DIAN's service failed, unavailable; 89 and 206: refused; none maybe processed", () => {
    const failed = thrown(() =>
      documentCopy(read("500", "Ha ocurrido un error. Por favor inténtentelo de nuevo."), expected),
    );
    expect(failed).toBeInstanceOf(ProviderUnavailableError);
    expect(failed).toMatchObject({
      operation: "attached_document",
      maybeProcessed: false,
      providerCode: "500",
    });
    for (const [code, words] of [
      ["89", "TrackId inválido (Length)."],
      ["206", "Xml con errores en los campos número documento emisor o número documento receptor"],
    ]) {
      const refused = thrown(() => documentCopy(read(code as string, words as string), expected));
      expect(refused).toBeInstanceOf(ProviderRejectedError);
      expect(refused).toMatchObject({
        operation: "attached_document",
        maybeProcessed: false,
        providerCode: code,
      });
    }
  });

  it("a code DIAN's code never writes, or 100 without the XML, is malformed", () => {
    for (const answered of [read("777", "¿?"), read("100", "Accion completada OK")]) {
      const error = thrown(() => documentCopy(answered, expected));
      expect(error).toBeInstanceOf(ProviderMalformedError);
      expect(error).toMatchObject({ operation: "attached_document", maybeProcessed: false });
    }
  });
});
