/**
 * DIAN's conventions for what a buyer receives: the e-mail's subject (five `;`-separated fields a
 * reception mailbox parses) and the files' names (the issuer's package consecutive in hex, never the
 * document's number).
 */
import { describe, expect, it } from "vitest";
import { buyerEmail } from "../../shared/co/delivery-email.ts";
import { dianDeliveryFiles, MAX_CONSECUTIVE } from "../../shared/co/delivery-files.ts";

const files = dianDeliveryFiles({ issuerNit: "900123456", package: { year: 2026, consecutive: 1 } });
const company = { nit: "900123456", legal_name: "Demo Comercial S.A.S.", trade_name: "Demo Comercial" };
const email = (over: Partial<Parameters<typeof buyerEmail>[0]> = {}) =>
  buyerEmail({ kind: "invoice", number: "SETP990000001", company, authorityCode: "ab12", files, ...over });

describe("the delivery e-mail's subject", () => {
  it("is NIT;legal name;number;01;trade name for an invoice, as DIAN's example", () => {
    expect(email().subject).toBe("900123456;Demo Comercial S.A.S.;SETP990000001;01;Demo Comercial");
  });

  it("carries 91 for a credit note, and the text names the invoice it corrects", () => {
    const note = email({ kind: "credit_note", number: "NC12", corrects: { number: "SETP990000001" } });
    expect(note.subject).toBe("900123456;Demo Comercial S.A.S.;NC12;91;Demo Comercial");
    expect(note.text).toContain(
      "la nota crédito electrónica NC12, que corrige la factura electrónica SETP990000001",
    );
    expect(note.text).toContain("(CUDE ab12)");
  });

  it("uses the legal name when the company has no trade name", () => {
    expect(email({ company: { ...company, trade_name: null } }).subject).toBe(
      "900123456;Demo Comercial S.A.S.;SETP990000001;01;Demo Comercial S.A.S.",
    );
  });

  it("keeps five fields when a name holds `;` (it becomes `,`) or line breaks (one line)", () => {
    const subject = email({
      company: { ...company, legal_name: "Uno; Dos S.A.S.", trade_name: "Tres;\r\nBcc: x@evil.test" },
    }).subject;
    expect(subject).toBe("900123456;Uno, Dos S.A.S.;SETP990000001;01;Tres, Bcc: x@evil.test");
    expect(subject.split(";")).toHaveLength(5);
  });
});

describe("the delivered files' names", () => {
  it("are z/ad + NIT to 10 digits + 000 + the package's year + its consecutive in 8 hex digits", () => {
    expect(files).toEqual({
      zip: "z09001234560002600000001.zip",
      xml: "ad09001234560002600000001.xml",
      pdf: "ad09001234560002600000001.pdf",
    });
    const last = dianDeliveryFiles({
      issuerNit: "9001-2",
      package: { year: 2031, consecutive: MAX_CONSECUTIVE },
    });
    expect(last.zip).toBe("z000009001200031ffffffff.zip");
  });

  it("refuse a consecutive or a year the name cannot hold", () => {
    for (const consecutive of [0, MAX_CONSECUTIVE + 1, 1.5]) {
      expect(() => dianDeliveryFiles({ issuerNit: "1", package: { year: 2026, consecutive } })).toThrow(
        RangeError,
      );
    }
    expect(() => dianDeliveryFiles({ issuerNit: "1", package: { year: 1999, consecutive: 1 } })).toThrow(
      RangeError,
    );
  });
});
