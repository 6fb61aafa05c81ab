/**
 * `sts:DianExtensions`, the first `ext:UBLExtension` of every DIAN document (Anexo Técnico 1.9,
 * DIAN_UBL_Structures.xsd): the numbering resolution (invoices), the country, the software and its
 * security code, DIAN as the authorising party, and the QR's lookup URL.
 */

import { nitCheckDigit } from "../../co/check-digit.ts";
import { dianQrUrl } from "../../co/cufe.ts";
import { hexDigest } from "../../crypto/digest.ts";
import type { SubmitDocumentRequest } from "../../ports/providers/protocol.ts";
import type { DianMode } from "./input.ts";
import { DIAN_AGENCY, text } from "./parties.ts";
import { el } from "./xml.ts";

/** DIAN's own NIT and its check digit: the AuthorizationProvider of every document. */
export const DIAN_NIT = { nit: "800197268", checkDigit: "4" } as const;

/**
 * The SoftwareSecurityCode: SHA-384, lowercase hex, of the software id, its PIN and the document's
 * number, concatenated (DIAN rule FAB27b).
 */
export function softwareSecurityCode(softwareId: string, pin: string, number: string): Promise<string> {
  return hexDigest("SHA-384", `${softwareId}${pin}${number}`);
}

/** `sts:InvoiceSource`: the document's country, Colombia (UN/ECE's country code list). */
export function invoiceSource() {
  return el(
    "sts:InvoiceSource",
    {},
    text("cbc:IdentificationCode", "CO", {
      listAgencyID: "6",
      listAgencyName: "United Nations Economic Commission for Europe",
      listSchemeURI: "urn:oasis:names:specification:ubl:codelist:gc:CountryIdentificationCode-2.1",
    }),
  );
}

/** The extension block of `document`, whose CUFE/CUDE is `authorityCode`. */
export async function dianExtensions(document: SubmitDocumentRequest, dian: DianMode, authorityCode: string) {
  const { software, resolution } = dian;
  const providerNit = software.provider_nit ?? document.issuer.nit;
  const providerDv =
    providerNit === document.issuer.nit
      ? document.issuer.check_digit
      : (nitCheckDigit(providerNit) ?? undefined);
  return el(
    "sts:DianExtensions",
    {},
    resolution &&
      el(
        "sts:InvoiceControl",
        {},
        text("sts:InvoiceAuthorization", resolution.number),
        el(
          "sts:AuthorizationPeriod",
          {},
          text("cbc:StartDate", resolution.start_date),
          text("cbc:EndDate", resolution.end_date),
        ),
        el(
          "sts:AuthorizedInvoices",
          {},
          resolution.prefix !== "" && text("sts:Prefix", resolution.prefix),
          text("sts:From", resolution.from),
          text("sts:To", resolution.to),
        ),
      ),
    invoiceSource(),
    el(
      "sts:SoftwareProvider",
      {},
      text("sts:ProviderID", providerNit, { ...DIAN_AGENCY, schemeID: providerDv, schemeName: "31" }),
      text("sts:SoftwareID", software.id, { ...DIAN_AGENCY }),
    ),
    text("sts:SoftwareSecurityCode", await softwareSecurityCode(software.id, software.pin, document.number), {
      ...DIAN_AGENCY,
    }),
    el(
      "sts:AuthorizationProvider",
      {},
      text("sts:AuthorizationProviderID", DIAN_NIT.nit, {
        ...DIAN_AGENCY,
        schemeID: DIAN_NIT.checkDigit,
        schemeName: "31",
      }),
    ),
    text("sts:QRCode", dianQrUrl(authorityCode, document.environment)),
  );
}
