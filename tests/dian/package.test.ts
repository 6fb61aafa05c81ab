import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { packDocument, submissionFiles } from "../../shared/providers/dian/package.ts";

describe("a document's ZIP for DIAN", () => {
  it("names the XML fv (invoice) or nc (credit note) and the ZIP z, after the Anexo's convention", () => {
    const pkg = { year: 2026, consecutive: 0x1a2b };
    expect(submissionFiles({ kind: "invoice", issuerNit: "900123456", package: pkg })).toEqual({
      xml: "fv09001234560002600001a2b.xml",
      zip: "z09001234560002600001a2b.zip",
    });
    expect(submissionFiles({ kind: "credit_note", issuerNit: "900.123.456", package: pkg }).xml).toBe(
      "nc09001234560002600001a2b.xml",
    );
    expect(() =>
      submissionFiles({ kind: "invoice", issuerNit: "900123456", package: { year: 2026, consecutive: 0 } }),
    ).toThrow(RangeError);
  });

  it("holds exactly the one XML, its bytes untouched", async () => {
    const xml = new TextEncoder().encode('<?xml version="1.0"?><Invoice>ñ</Invoice>');
    const files = submissionFiles({
      kind: "invoice",
      issuerNit: "900123456",
      package: { year: 2026, consecutive: 1 },
    });
    const packed = await packDocument(files, xml, new Date("2026-11-20T15:30:00Z"));
    expect(packed.fileName).toBe(files.zip);
    const entries = unzipSync(Buffer.from(packed.contentFile, "base64"));
    expect(Object.keys(entries)).toEqual([files.xml]);
    expect(entries[files.xml]).toEqual(xml);
  });
});
