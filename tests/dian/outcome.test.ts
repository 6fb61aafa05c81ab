import { describe, expect, it } from "vitest";
import { testSetStatusOf } from "../../shared/co/test-set.ts";
import {
  ProviderMalformedError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from "../../shared/ports/providers/errors.ts";
import { DocumentOutcome, RuleViolation } from "../../shared/ports/providers/protocol.ts";
import { type DianResponse, readAnswer } from "../../shared/providers/dian/answers.ts";
import { numberingVerdict } from "../../shared/providers/dian/numbering.ts";
import { batchOutcome, sendOutcome, statusOutcome } from "../../shared/providers/dian/outcome.ts";
import { MAX_RULES, parseRule } from "../../shared/providers/dian/rules.ts";
import { uploadOutcome } from "../../shared/providers/dian/test-set.ts";
import { APPLICATION_RESPONSE, answer, FIXTURE_KEY, FIXTURE_ZIP_KEY, OTHER_KEY } from "./fixtures.ts";

const expected = { documentKey: FIXTURE_KEY };

function read<O extends "SendBillSync" | "GetStatus">(
  operation: O,
  file: string,
  replace?: Record<string, string>,
) {
  const got = readAnswer(operation, answer(file, replace));
  if (!("result" in got)) throw new Error("a Fault");
  return got.result as DianResponse;
}

/** A GetStatus answer (get-status-accepted.xml's shape) with other errors, status and description. */
function readGetStatus(change: { errors: string[]; statusCode: string; description: string }): DianResponse {
  const text = new TextDecoder()
    .decode(answer("get-status-accepted.xml"))
    .replace(/(<b:ErrorMessage[^>]*>)[\s\S]*?(<\/b:ErrorMessage>)/, (_, open, close) =>
      [open, ...change.errors.map((e) => `<c:string>${e}</c:string>`), close].join(""),
    )
    .replace("<b:IsValid>true</b:IsValid>", "<b:IsValid>false</b:IsValid>")
    .replace("<b:StatusCode>00</b:StatusCode>", `<b:StatusCode>${change.statusCode}</b:StatusCode>`)
    .replace(
      "<b:StatusDescription>Procesado Correctamente.</b:StatusDescription>",
      `<b:StatusDescription>${change.description}</b:StatusDescription>`,
    );
  const got = readAnswer("GetStatus", new TextEncoder().encode(text));
  if (!("result" in got)) throw new Error("a Fault");
  return got.result;
}

function batch(file: string): DianResponse[] {
  const got = readAnswer("GetStatusZip", answer(file));
  if (!("result" in got)) throw new Error("a Fault");
  return got.result;
}

/** The thrown error of `run`. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("did not throw");
}

describe("DIAN's rule strings", () => {
  it("read as code, kind and DIAN's message, whatever the accent or the spacing", () => {
    expect(parseRule("Regla: FAU04, Rechazo: Base imponible distinta.", "notificacion")).toEqual({
      code: "FAU04",
      kind: "rechazo",
      message: "Base imponible distinta.",
    });
    expect(parseRule("Regla: FAJ43b, Notificación: Nombre, con coma.", "rechazo")).toEqual({
      code: "FAJ43b",
      kind: "notificacion",
      message: "Nombre, con coma.",
    });
    expect(parseRule("Regla:90,Rechazo:Documento procesado anteriormente.", "notificacion").code).toBe("90");
    expect(parseRule("Regla: RUT01, Notificacion: sin tilde", "rechazo").kind).toBe("notificacion");
  });

  it("keep a string without DIAN's wording, under the kind its answer implies, within the protocol's bounds", () => {
    expect(parseRule("Error inesperado", "rechazo")).toEqual({
      code: "DIAN",
      kind: "rechazo",
      message: "Error inesperado",
    });
    const huge = parseRule(`Regla: ${"C".repeat(80)}, Rechazo: ${"m".repeat(5000)}`, "rechazo");
    expect(RuleViolation.safeParse(huge).success).toBe(true);
  });
});

describe("SendBillSync's answer", () => {
  it("IsValid true is accepted, with DIAN's ApplicationResponse and the document key", () => {
    const outcome = sendOutcome(read("SendBillSync", "send-bill-sync-accepted.xml"), expected);
    expect(outcome).toEqual({
      status: "accepted",
      statusCode: "00",
      documentKey: FIXTURE_KEY,
      applicationResponse: APPLICATION_RESPONSE,
      duplicate: false,
      rules: [],
      message: "DIAN accepted the document.",
      authorityMessage: "Procesado Correctamente. La Factura electrónica SETP990000002, ha sido autorizada.",
    });
  });

  it("keeps notifications as rules of kind notificacion: a notification alone never rejects", () => {
    const outcome = sendOutcome(read("SendBillSync", "send-bill-sync-notifications.xml"), expected);
    expect(outcome.status).toBe("accepted");
    expect(outcome.rules.map((r) => [r.code, r.kind])).toEqual([
      ["FAJ44b", "notificacion"],
      ["FAJ43b", "notificacion"],
    ]);
    expect(outcome.message).toBe("DIAN accepted the document with 2 notifications.");
  });

  it("status 99 is rejected with each rule's code and DIAN's message, rejections first", () => {
    const outcome = sendOutcome(read("SendBillSync", "send-bill-sync-rejected.xml"), expected);
    expect(outcome.status).toBe("rejected");
    expect(outcome.rules).toEqual([
      { code: "FAD06", kind: "rechazo", message: "Valor del CUFE no está calculado correctamente." },
      {
        code: "FAU04",
        kind: "rechazo",
        message:
          "Base imponible distinta a la suma de los valores de las bases imponibles de todas líneas de detalle.",
      },
      {
        code: "FAB27b",
        kind: "rechazo",
        message: "No fue informado el código de seguridad del software o es incorrecto.",
      },
      {
        code: "FAJ43b",
        kind: "notificacion",
        message: "Nombre informado No corresponde al registrado en el RUT con respecto al Nit suminstrado.",
      },
    ]);
    expect(outcome.message).toBe("DIAN rejected the document: rules FAD06, FAU04, FAB27b.");
    expect(outcome.authorityMessage).toBe(
      "Validación contiene errores en campos mandatorios. Documento con errores en campos mandatorios.",
    );
  });

  it("rule 90 about our own CUFE is accepted: the earlier ApplicationResponse and DIAN's key", () => {
    const outcome = sendOutcome(read("SendBillSync", "send-bill-sync-duplicate.xml"), {
      documentKey: FIXTURE_KEY.toUpperCase(),
    });
    expect(outcome).toMatchObject({
      status: "accepted",
      duplicate: true,
      documentKey: FIXTURE_KEY,
      applicationResponse: APPLICATION_RESPONSE,
      rules: [],
    });
    expect(outcome.message).toMatch(/already accepted this document \(rule 90/);
  });

  it("rule 90 about another document's CUFE is rejected: the number was used before", () => {
    const outcome = sendOutcome(read("SendBillSync", "send-bill-sync-duplicate.xml"), {
      documentKey: OTHER_KEY,
    });
    expect(outcome.status).toBe("rejected");
    expect(outcome.rules).toEqual([
      { code: "90", kind: "rechazo", message: "Documento procesado anteriormente." },
    ]);
    expect(outcome.message).toContain(FIXTURE_KEY);
    expect(outcome.message).toMatch(/number was used before/);
  });

  it("rule 90 without a key is pending: only GetStatus by our CUFE can tell whose it is", () => {
    const response = read("SendBillSync", "send-bill-sync-duplicate.xml", {
      [`<b:XmlDocumentKey>${FIXTURE_KEY}</b:XmlDocumentKey>`]: '<b:XmlDocumentKey i:nil="true"/>',
    });
    expect(sendOutcome(response, expected).status).toBe("pending");
  });

  it("status 89 is rejected with DIAN's reason as the rule and our advice by its cause", () => {
    const unauthorized = sendOutcome(read("SendBillSync", "send-bill-sync-89.xml"), expected);
    expect(unauthorized.status).toBe("rejected");
    expect(unauthorized.rules).toEqual([
      {
        code: "89",
        kind: "rechazo",
        message: "NIT 900123456 no autorizado a enviar documentos para emisor con NIT 900654321.",
      },
    ]);
    expect(unauthorized.message).toMatch(/certificate's NIT may not send documents for this issuer/);
    const twoFiles = sendOutcome(read("SendBillSync", "send-bill-sync-89-two-xml.xml"), expected);
    expect(twoFiles.status).toBe("rejected");
    expect(twoFiles.message).toMatch(/the ZIP must hold exactly one XML/);
    expect(twoFiles.authorityMessage).toBe(
      "Encontrados mas de un XML descomprimiendo el archivo ZIP: Se debe enviar solo un fichero XML.",
    );
  });

  it("98 is pending, and 66 (stored, not validated yet) is pending too", () => {
    const inProcess = read("SendBillSync", "get-status-98.xml", { GetStatus: "SendBillSync" });
    expect(sendOutcome(inProcess, expected)).toMatchObject({ status: "pending", statusCode: "98" });
    const stored = read("SendBillSync", "get-status-66.xml", { GetStatus: "SendBillSync" });
    expect(sendOutcome(stored, expected)).toMatchObject({ status: "pending", statusCode: "66" });
  });

  it("DIAN's own failure (500) settles nothing: an unavailable error that may have processed the send", () => {
    const failed = read("SendBillSync", "get-status-500.xml", { GetStatus: "SendBillSync" });
    const error = thrown(() => sendOutcome(failed, expected));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ maybeProcessed: true, operation: "submit", providerCode: "500" });
  });

  it("an acceptance of another CUFE is malformed, never someone else's validation", () => {
    const error = thrown(() =>
      sendOutcome(read("SendBillSync", "send-bill-sync-accepted.xml"), { documentKey: OTHER_KEY }),
    );
    expect(error).toBeInstanceOf(ProviderMalformedError);
  });

  it("fits the protocol's outcome: at most 100 rules, each within its bounds, duplicates dropped", () => {
    const strings = Array.from({ length: 150 }, (_, i) => `Regla: N${i}, Notificación: aviso ${i}`);
    const response: DianResponse = {
      errorMessages: [
        "Regla: FAU04, Rechazo: x",
        "Regla: FAU04, Rechazo: x",
        ...strings,
        "Regla: FAD06, Rechazo: y",
      ],
      errorMessagesOmitted: 7,
      isValid: false,
      statusCode: "99",
      statusDescription: null,
      statusMessage: null,
      applicationResponse: null,
      documentKey: FIXTURE_KEY,
      fileName: null,
    };
    const outcome = sendOutcome(response, expected);
    expect(outcome.rules).toHaveLength(MAX_RULES);
    expect(outcome.rules.slice(0, 2).map((r) => r.code)).toEqual(["FAU04", "FAD06"]);
    expect(outcome.message).toBe("DIAN rejected the document: rules FAU04, FAD06 (59 more not shown).");
    const protocol = DocumentOutcome.safeParse({
      reference: "3f1c9a52-4a4e-4f58-9d21-0c6a6f2b7e11",
      provider_reference: FIXTURE_KEY,
      status: outcome.status,
      message: outcome.message,
      errors: outcome.rules,
    });
    expect(protocol.success).toBe(true);
  });
});

describe("GetStatus's answer", () => {
  it("accepted with its notifications once each (DIAN lists them twice)", () => {
    const outcome = statusOutcome(read("GetStatus", "get-status-accepted.xml"), expected);
    expect(outcome.status).toBe("accepted");
    expect(outcome.rules.map((r) => r.code)).toEqual(["FAJ44b", "FAJ43b"]);
  });

  it("66 is not found: DIAN never received the document (the adapter's query answers null)", () => {
    expect(statusOutcome(read("GetStatus", "get-status-66.xml"), expected)).toEqual({
      status: "not_found",
      statusCode: "66",
      rules: [],
      authorityMessage: "TrackId no existe en los registros de la DIAN.",
      message: "DIAN has no document with this CUFE/CUDE: it never received it.",
    });
  });

  it("rule 90 is a rejection: GetStatus's XmlDocumentKey is the CUFE asked about, not the earlier document's", () => {
    // [D] DianPAServices.GetStatus sets XmlDocumentKey = trackId whatever the validations say, and
    // answers 00 for a document whose ApplicationResponse exists (ours, accepted before): a 99 with
    // rule 90 (ValidateDocumentDuplicity) means another accepted document holds the number, which it
    // names in StatusDescription ("Documento <number> procesado anteriormente. CUFE <key> ")
    const duplicate = (description: string) =>
      statusOutcome(
        readGetStatus({
          errors: ["Regla: 90, Rechazo: Documento procesado anteriormente."],
          statusCode: "99",
          description,
        }),
        expected,
      );
    const other = duplicate(`Documento SETP990000002 procesado anteriormente. CUFE ${OTHER_KEY} `);
    expect(other.status).toBe("rejected");
    expect(other.message).toContain(OTHER_KEY);
    expect(other.message).toMatch(/number was used before/);
    expect(duplicate("Validación contiene errores en campos mandatorios.").status).toBe("rejected");
    // only DIAN naming our own CUFE as the one processed before makes it ours
    const ours = duplicate(`Documento SETP990000002 procesado anteriormente. CUFE ${FIXTURE_KEY} `);
    expect(ours).toMatchObject({ status: "accepted", duplicate: true });
  });

  it("98 is pending; 89 (a malformed track id) and 500 are errors of the query, never processed", () => {
    expect(statusOutcome(read("GetStatus", "get-status-98.xml"), expected).status).toBe("pending");
    const refused = thrown(() => statusOutcome(read("GetStatus", "get-status-89.xml"), expected));
    expect(refused).toBeInstanceOf(ProviderRejectedError);
    expect(refused).toMatchObject({ maybeProcessed: false, operation: "query" });
    const failed = thrown(() => statusOutcome(read("GetStatus", "get-status-500.xml"), expected));
    expect(failed).toBeInstanceOf(ProviderUnavailableError);
    expect(failed).toMatchObject({ maybeProcessed: false });
  });
});

describe("GetStatusZip's answer", () => {
  it("a batch in process (no StatusCode) is pending", () => {
    expect(batchOutcome(batch("get-status-zip-pending.xml"), expected)).toMatchObject({
      status: "pending",
      statusCode: "",
      authorityMessage: "Batch en proceso de validación.",
    });
    expect(batchOutcome([], expected).status).toBe("pending");
  });

  it("a document of the batch still in validation (StatusCode 0, 'En proceso de validación') is pending", () => {
    // [D] DianPAServices.GetStatusZip answers a batch document whose GlobalBatchFileResult is still
    // BatchFileStatus.InProcess (0) with StatusCode "0" and the status's description, nothing else
    const inValidation = readAnswer(
      "GetStatusZip",
      answer("get-status-zip-pending.xml", {
        "<b:StatusCode/>": "<b:StatusCode>0</b:StatusCode>",
        "Batch en proceso de validación.": "En proceso de validación",
      }),
    );
    if (!("result" in inValidation)) throw new Error("a Fault");
    expect(batchOutcome(inValidation.result, expected)).toMatchObject({
      status: "pending",
      statusCode: "0",
      rules: [],
      authorityMessage: "En proceso de validación",
    });
  });

  it("a validated batch is its document's outcome", () => {
    const outcome = batchOutcome(batch("get-status-zip-accepted.xml"), expected);
    expect(outcome).toMatchObject({ status: "accepted", applicationResponse: APPLICATION_RESPONSE });
  });

  it("the test set's own status (2, 'Set de prueba … Aceptado') is not a validation of the document", () => {
    const outcome = batchOutcome(batch("get-status-zip-test-set.xml"), expected);
    expect(outcome.status).toBe("rejected");
    expect(outcome.statusCode).toBe("2");
    expect(outcome.message).toMatch(/test set is already accepted \(Aceptado\)/);
    expect(testSetStatusOf(outcome.authorityMessage)).toEqual({
      testSetId: "f2e50ee4-3dbd-4a72-8bb2-e66782ad36ff",
      status: "aceptado",
    });
  });

  it("a rejected test set's status (2, 'Set de prueba … Rechazado') says the set was rejected", () => {
    const rejectedSet = readAnswer(
      "GetStatusZip",
      answer("get-status-zip-test-set.xml", { "se encuentra Aceptado.": "se encuentra Rechazado." }),
    );
    if (!("result" in rejectedSet)) throw new Error("a Fault");
    const outcome = batchOutcome(rejectedSet.result, expected);
    expect(outcome).toMatchObject({ status: "rejected", statusCode: "2" });
    expect(outcome.message).toMatch(/test set was rejected \(Rechazado\)/);
    expect(testSetStatusOf(outcome.authorityMessage)?.status).toBe("rechazado");
    expect(testSetStatusOf("Procesado Correctamente.")).toBeNull();
  });

  it("with several answers, the one about our document; none of them: malformed", () => {
    const [ours] = batch("get-status-zip-accepted.xml");
    if (!ours) throw new Error("no answer");
    const other = { ...ours, documentKey: OTHER_KEY, isValid: false, statusCode: "99" };
    expect(batchOutcome([other, ours], expected).status).toBe("accepted");
    expect(thrown(() => batchOutcome([other, other], expected))).toBeInstanceOf(ProviderMalformedError);
  });
});

describe("SendTestSetAsync's answer", () => {
  it("a ZipKey is pending on GetStatusZip", () => {
    const got = readAnswer("SendTestSetAsync", answer("send-test-set-async.xml"));
    if (!("result" in got)) throw new Error("a Fault");
    expect(uploadOutcome(got.result)).toEqual({
      status: "pending",
      zipKey: FIXTURE_ZIP_KEY,
      message: "DIAN took the test set batch; its result comes from GetStatusZip.",
    });
  });

  it("no ZipKey is rejected with DIAN's reason: production, a missing test set id", () => {
    const got = readAnswer("SendTestSetAsync", answer("send-test-set-async-production.xml"));
    if (!("result" in got)) throw new Error("a Fault");
    const outcome = uploadOutcome(got.result);
    expect(outcome).toMatchObject({
      status: "rejected",
      authorityMessage: "Acción no disponible en producción.",
    });
    expect(outcome.message).toMatch(/for habilitación only/);
    const missing = uploadOutcome({
      zipKey: null,
      errors: [{ ...blank, processedMessage: "Identificador del set de pruebas es obligatorio." }],
    });
    expect(missing.message).toMatch(/test set id is missing/);
  });

  it("DIAN's own failure may have stored the batch: unavailable, maybe processed", () => {
    const error = thrown(() =>
      uploadOutcome({
        zipKey: null,
        errors: [{ ...blank, processedMessage: "Ha ocurrido un error. Por favor inténtentelo nuevamente." }],
      }),
    );
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ maybeProcessed: true, operation: "submit" });
    expect(thrown(() => uploadOutcome({ zipKey: "not-a-guid", errors: [] }))).toBeInstanceOf(
      ProviderMalformedError,
    );
  });
});

const blank = {
  documentKey: null,
  processedMessage: null,
  senderCode: null,
  success: false,
  xmlFileName: null,
};

describe("GetNumberingRange's answer", () => {
  const list = (code: string, description: string) => {
    const got = readAnswer(
      "GetNumberingRange",
      answer("get-numbering-range-refused.xml", { CODE: code, DESCRIPTION: description }),
    );
    if (!("result" in got)) throw new Error("a Fault");
    return got.result;
  };

  const query = { accountCode: "900123456", accountCodeT: "900123456", softwareCode: "56f2ae4e" };

  it("100 is ok, naming the ranges", () => {
    const got = readAnswer("GetNumberingRange", answer("get-numbering-range.xml"));
    if (!("result" in got)) throw new Error("a Fault");
    const verdict = numberingVerdict(got.result, query);
    expect(verdict.ok).toBe(true);
    expect(verdict.message).toMatch(
      /^DIAN knows the software 56f2ae4e and its numbering ranges for NIT 900123456: FE /,
    );
  });

  it.each([
    [
      "301",
      "No fue encontrado ningún rango de numeración para el NIT: 900123456.",
      /no authorized numbering range/,
    ],
    [
      "302",
      "No registra prefijos asociados al código de software: 56f2ae4e.",
      /no numbering range associated/,
    ],
    ["303", "El código del software no corresponde al NIT: 900123456.", /does not belong to NIT/],
    [
      "401",
      "NIT: 900123456 no autorizado para consultar rangos de numeración del NIT: 900654321",
      /may not consult/,
    ],
  ])(
    "%s is not ok: what to fix in English, DIAN's words kept apart for the log",
    (code, description, advice) => {
      const verdict = numberingVerdict(list(code, description), query);
      expect(verdict).toMatchObject({ ok: false, dianSays: description });
      expect(verdict.message).toMatch(advice);
      expect(verdict.message).not.toContain(description);
    },
  );

  it("500 is DIAN's failure, not a verdict", () => {
    const verdict = numberingVerdict(
      list("500", "Ha ocurrido un error en el servicio solicitado, por favor intente mas tarde."),
      query,
    );
    expect(verdict.ok).toBe(false);
    expect(verdict.failure).toBeInstanceOf(ProviderUnavailableError);
    expect(verdict.failure).toMatchObject({ maybeProcessed: false, operation: "check_credential" });
  });
});
