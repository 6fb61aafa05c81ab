/**
 * Each of the stand-in's document checks fails with DIAN's code when its input is wrong: a document
 * changed after signing (ZE02), a CUFE made with another key (FAD06), a security code made with
 * another PIN (FAB27b), a wrong check digit (FAJ24), a number outside the range (FAD05d), a schema
 * error (ZB01), XML that does not parse (89), a notification that does not reject (FAJ43b).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { dianInvoice, signedAtIssue } from "../../devkit/dian/documents.ts";
import type { DianStandIn } from "../../sandbox/dian/index.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import type { DianDocumentInput } from "../../shared/providers/dian/input.ts";
import {
  createTestCertificates,
  errorMessages,
  field,
  post,
  type Sender,
  seededStandIn,
  senderOf,
  soapRequest,
  zipBase64,
} from "../support/dian-stand-in.ts";

let sender: Sender;
let signer: Signer;
let standIn: DianStandIn;
let nit: string;

beforeAll(async () => {
  const certs = createTestCertificates();
  nit = certs.nit;
  sender = senderOf(certs);
  signer = await openPkcs12(certs.p12, certs.password);
  standIn = seededStandIn(certs);
  await standIn.dianCaPem();
}, 120_000);

async function send(files: Record<string, Uint8Array>) {
  const envelope = await soapRequest(sender, "SendBillSync", {
    fileName: "invoice.zip",
    contentFile: zipBase64(files),
  });
  const text = await (await post(standIn, envelope, "SendBillSync")).text();
  return { text, code: field(text, "StatusCode"), errors: errorMessages(text) };
}

const signed = async (input: DianDocumentInput) =>
  (await buildSignedDocument(input, signer, signedAtIssue(input))).xml;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (value: string) => new TextEncoder().encode(value);
const codes = (errors: string[]) => errors.map((e) => /^Regla: (\w+),/.exec(e)?.[1]);

describe("the signature", () => {
  it("rejects a document changed after signing: ZE02, and only that", async () => {
    const xml = text(await signed(dianInvoice(2)));
    const tampered = xml.replace("Gracias por su compra", "Gracias por su compra!");
    expect(tampered).not.toBe(xml);
    const result = await send({ "invoice.xml": bytes(tampered) });
    expect(result.code).toBe("99");
    expect(result.errors).toEqual(["Regla: ZE02, Rechazo: Valor de la firma inválido."]);
    expect(
      field(Buffer.from(field(result.text, "XmlBase64Bytes") ?? "", "base64").toString(), "ResponseCode"),
    ).toBe("04");
  });

  it("rejects a policy hash DIAN does not accept: ZE02 Política de firma inválida", async () => {
    const xml = text(await signed(dianInvoice(2))).replace(
      "dMoMvtcG5aIzgYo0tIsSQeVJBDnUnfSOfBpxXrmor0Y=",
      "AAAA",
    );
    const result = await send({ "invoice.xml": bytes(xml) });
    expect(result.errors).toContain("Regla: ZE02, Rechazo: Política de firma inválida.");
  });
});

describe("the content", () => {
  it("rejects a CUFE computed with another technical key: FAD06", async () => {
    const input = dianInvoice(2, (d) => {
      d.issuer.technical_key = "0".repeat(40);
    });
    const result = await send({ "invoice.xml": await signed(input) });
    expect(result.errors).toEqual(["Regla: FAD06, Rechazo: Valor del CUFE no está calculado correctamente."]);
  });

  it("rejects a SoftwareSecurityCode made with another PIN: FAB27b", async () => {
    const input = dianInvoice(2);
    input.dian.software.pin = "99999";
    const result = await send({ "invoice.xml": await signed(input) });
    expect(codes(result.errors)).toEqual(["FAB27b"]);
  });

  it("rejects an unknown software: FAB24b", async () => {
    const input = dianInvoice(2);
    input.dian.software.id = "00000000-0000-4000-8000-000000000000";
    expect(codes((await send({ "invoice.xml": await signed(input) })).errors)).toContain("FAB24b");
  });

  it("rejects the issuer's wrong check digit: FAJ24", async () => {
    const input = dianInvoice(2, (d) => {
      d.issuer.check_digit = d.issuer.check_digit === "3" ? "4" : "3";
    });
    expect(codes((await send({ "invoice.xml": await signed(input) })).errors)).toEqual(["FAJ24"]);
  });

  it("rejects a number outside the issuer's range: FAD05d", async () => {
    standIn.putIssuer({
      ...(standIn.registry.issuers.find((i) => i.nit === nit) as NonNullable<
        DianStandIn["registry"]["issuers"][0]
      >),
      ranges: standIn.registry.issuers[0]?.ranges.map((r) => ({ ...r, to: "990000010" })) ?? [],
    });
    try {
      const input = dianInvoice(2, (d) => {
        d.number = "SETP994000000";
      });
      const found = codes((await send({ "invoice.xml": await signed(input) })).errors);
      expect(found).toContain("FAD05d");
      expect(found).toContain("FAB12b");
    } finally {
      standIn.putIssuer({
        ...(standIn.registry.issuers[0] as NonNullable<DianStandIn["registry"]["issuers"][0]>),
        ranges: standIn.registry.issuers[0]?.ranges.map((r) => ({ ...r, to: "995000000" })) ?? [],
      });
    }
  });

  it("accepts with a notification: FAJ43b when the name differs from the RUT's, still 00", async () => {
    const issuer = standIn.registry.issuers[0] as NonNullable<DianStandIn["registry"]["issuers"][0]>;
    standIn.putIssuer({ ...issuer, rutName: "Otra Razón Social S.A.S." });
    try {
      const result = await send({ "invoice.xml": await signed(dianInvoice(2)) });
      expect(result.code).toBe("00");
      expect(field(result.text, "IsValid")).toBe("true");
      expect(result.errors).toEqual([
        "Regla: FAJ43b, Notificación: Nombre informado No corresponde al registrado en el RUT con respecto al Nit suminstrado.",
      ]);
    } finally {
      standIn.putIssuer({ ...issuer, rutName: undefined });
    }
  });
});

describe("the XML", () => {
  it("answers ZB01 (99) to a document the schema refuses", async () => {
    const xml = text(await signed(dianInvoice(1))).replace(
      "<cbc:UBLVersionID>",
      "<cbc:Foo>x</cbc:Foo><cbc:UBLVersionID>",
    );
    const result = await send({ "invoice.xml": bytes(xml) });
    expect(result.code).toBe("99");
    expect(result.errors).toEqual(["Regla: ZB01, Rechazo: Fallo en el esquema XML del archivo"]);
    expect(field(result.text, "StatusMessage")).toContain("Foo");
  });

  it("answers 89 to XML that does not parse, as DIAN does (an undeclared prefix)", async () => {
    const xml = text(await signed(dianInvoice(1))).replace(/ xmlns:sts="[^"]*"/, "");
    const result = await send({ "invoice.xml": bytes(xml) });
    expect(result.code).toBe("89");
    expect(field(result.text, "StatusDescription")).toMatch(/^Error al parsear xml\. .*sts/);
  });

  it("answers 89 to a ZIP with two XMLs, and to a ZIP without any", async () => {
    const xml = await signed(dianInvoice(1));
    const two = await send({ "a.xml": xml, "b.xml": xml });
    expect(two.code).toBe("89");
    expect(field(two.text, "StatusMessage")).toBe(
      "Encontrados mas de un XML descomprimiendo el archivo ZIP: Se debe enviar solo un fichero XML.",
    );
    const none = await send({ "readme.txt": bytes("hola") });
    expect(none.code).toBe("89");
  });
});
