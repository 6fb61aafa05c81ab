/**
 * The issuer and the buyer as a DIAN UBL 2.1 document names them (Anexo Técnico 1.9, groups
 * AccountingSupplierParty and AccountingCustomerParty): the RUT fields, the NIT with its check digit
 * in `schemeID` and the identification type in `schemeName`, the DIVIPOLA address.
 */

import { NIT_ID_TYPE, nitCheckDigit } from "../../co/check-digit.ts";
import { cityName, departmentName } from "../../co/divipola.ts";
import type { Buyer, Issuer } from "../../ports/providers/protocol.ts";
import { type Child, el, xmlSafe } from "./xml.ts";

/** DIAN, the agency of Colombian identification schemes (UN/EDIFACT 3055 code 195). */
export const DIAN_AGENCY = {
  schemeAgencyID: "195",
  schemeAgencyName: "CO, DIAN (Dirección de Impuestos y Aduanas Nacionales)",
} as const;

/** What a party's tax scheme is when it is not responsible for IVA (and DIAN's "not applicable"). */
const NOT_APPLICABLE = { id: "ZZ", name: "No aplica" } as const;
const IVA = { id: "01", name: "IVA" } as const;
/** RUT responsibility "no responsable" (R-99-PN): what a party without listed responsibilities is. */
const NO_RESPONSIBILITIES = "R-99-PN";

export const text = (name: string, value: string, attributes: Record<string, string | undefined> = {}) =>
  el(name, attributes, xmlSafe(value));

/** A party's identification: type in schemeName, check digit in schemeID (NITs only). */
function companyId(name: string, idType: string, number: string, checkDigit: string | undefined) {
  return text(name, number, {
    ...DIAN_AGENCY,
    schemeName: idType,
    schemeID: idType === NIT_ID_TYPE ? checkDigit : undefined,
  });
}

/** The DIVIPOLA address (municipality code, its department's two digits), in Colombia. */
function address(name: string, cityCode: string | undefined, line: string | undefined): Child {
  if (!cityCode) return undefined;
  const city = cityName(cityCode);
  const department = departmentName(cityCode);
  return el(
    name,
    {},
    text("cbc:ID", cityCode),
    city && text("cbc:CityName", city),
    department && text("cbc:CountrySubentity", department),
    text("cbc:CountrySubentityCode", cityCode.slice(0, 2)),
    line && el("cac:AddressLine", {}, text("cbc:Line", line)),
    el(
      "cac:Country",
      {},
      text("cbc:IdentificationCode", "CO"),
      text("cbc:Name", "Colombia", { languageID: "es" }),
    ),
  );
}

function taxScheme(scheme: { id: string; name: string }) {
  return el("cac:TaxScheme", {}, text("cbc:ID", scheme.id), text("cbc:Name", scheme.name));
}

function contact(email: string | undefined, phone?: string): Child {
  if (!email && !phone) return undefined;
  return el(
    "cac:Contact",
    {},
    phone && text("cbc:Telephone", phone),
    email && text("cbc:ElectronicMail", email),
  );
}

/**
 * The issuer's tax registration (RUT): the document's supplier has it, and the AttachedDocument's
 * SenderParty is it.
 */
export function supplierTaxScheme(issuer: Issuer) {
  return el(
    "cac:PartyTaxScheme",
    {},
    text("cbc:RegistrationName", issuer.legal_name),
    companyId("cbc:CompanyID", NIT_ID_TYPE, issuer.nit, issuer.check_digit),
    text("cbc:TaxLevelCode", issuer.fiscal_responsibilities?.join(";") || NO_RESPONSIBILITIES),
    address("cac:RegistrationAddress", issuer.city_code, issuer.address),
    taxScheme(issuer.tax_regime === "48" ? IVA : NOT_APPLICABLE),
  );
}

/**
 * The issuer. `registrationPrefix` is the invoice's numbering prefix (CorporateRegistrationScheme),
 * given for invoices only.
 */
export function supplierParty(issuer: Issuer, registrationPrefix: string | undefined) {
  const nit = () => companyId("cbc:CompanyID", NIT_ID_TYPE, issuer.nit, issuer.check_digit);
  return el(
    "cac:AccountingSupplierParty",
    {},
    text("cbc:AdditionalAccountID", issuer.person_type ?? "1"),
    el(
      "cac:Party",
      {},
      el("cac:PartyName", {}, text("cbc:Name", issuer.trade_name ?? issuer.legal_name)),
      issuer.city_code &&
        el("cac:PhysicalLocation", {}, address("cac:Address", issuer.city_code, issuer.address)),
      supplierTaxScheme(issuer),
      el(
        "cac:PartyLegalEntity",
        {},
        text("cbc:RegistrationName", issuer.legal_name),
        nit(),
        registrationPrefix !== undefined &&
          el("cac:CorporateRegistrationScheme", {}, text("cbc:ID", registrationPrefix)),
      ),
      contact(issuer.email),
    ),
  );
}

/** The buyer's check digit: the one given, else computed (NITs only). */
export function buyerCheckDigit(buyer: Buyer): string | undefined {
  if (buyer.id_type !== NIT_ID_TYPE) return undefined;
  return buyer.check_digit ?? nitCheckDigit(buyer.id_number) ?? undefined;
}

/** The buyer's tax registration: the document's customer has it, and the AttachedDocument's ReceiverParty is it. */
export function customerTaxScheme(buyer: Buyer) {
  return el(
    "cac:PartyTaxScheme",
    {},
    text("cbc:RegistrationName", buyer.name),
    companyId("cbc:CompanyID", buyer.id_type, buyer.id_number, buyerCheckDigit(buyer)),
    text("cbc:TaxLevelCode", NO_RESPONSIBILITIES),
    address("cac:RegistrationAddress", buyer.city_code, buyer.address),
    taxScheme(NOT_APPLICABLE),
  );
}

/** The buyer: a legal entity (1) when identified by NIT, else a natural person (2). */
export function customerParty(buyer: Buyer) {
  const dv = buyerCheckDigit(buyer);
  const id = () => companyId("cbc:CompanyID", buyer.id_type, buyer.id_number, dv);
  return el(
    "cac:AccountingCustomerParty",
    {},
    text("cbc:AdditionalAccountID", buyer.id_type === NIT_ID_TYPE ? "1" : "2"),
    el(
      "cac:Party",
      {},
      el(
        "cac:PartyIdentification",
        {},
        text("cbc:ID", buyer.id_number, {
          schemeName: buyer.id_type,
          schemeID: dv,
        }),
      ),
      el("cac:PartyName", {}, text("cbc:Name", buyer.name)),
      buyer.city_code &&
        el("cac:PhysicalLocation", {}, address("cac:Address", buyer.city_code, buyer.address)),
      customerTaxScheme(buyer),
      el("cac:PartyLegalEntity", {}, text("cbc:RegistrationName", buyer.name), id()),
      contact(buyer.email, buyer.phone),
    ),
  );
}
