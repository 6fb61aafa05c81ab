/**
 * The issuer and the buyer as a DIAN UBL 2.1 document names them (Anexo Técnico 1.9, groups
 * AccountingSupplierParty and AccountingCustomerParty), every field from the party's data: the
 * person type (AdditionalAccountID), the identification with its type in `schemeName` and, for a
 * NIT, its check digit in `schemeID`, the fiscal responsibilities (TaxLevelCode), the tax scheme,
 * and the DIVIPOLA address with its country (brief-business §9).
 *
 * DIAN's final consumer (`222222222222`) is written as Odoo 19 writes it (l10n_co_dian
 * `account_edi_xml_ubl_dian.py` `_get_party_node`, yckhg/sse@d4c746f): identified, named, with its
 * PartyTaxScheme but no address, no PartyLegalEntity and no Contact.
 */

import { NIT_ID_TYPE, nitCheckDigit } from "../../co/check-digit.ts";
import { cityName, departmentName } from "../../co/divipola.ts";
import { FINAL_CONSUMER } from "../../co/final-consumer.ts";
import { PARTY_TAX_SCHEME_NAMES } from "../../co/fiscal-profile.ts";
import type { Buyer, Issuer } from "../../ports/providers/protocol.ts";
import { type Child, el, xmlSafe } from "./xml.ts";

/** DIAN, the agency of Colombian identification schemes (UN/EDIFACT 3055 code 195). */
export const DIAN_AGENCY = {
  schemeAgencyID: "195",
  schemeAgencyName: "CO, DIAN (Dirección de Impuestos y Aduanas Nacionales)",
} as const;

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

/** A country's name in Spanish, as the document's `Country/Name@languageID="es"` (CLDR, through Intl). */
function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(["es"], { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
}

type Address = Pick<
  Issuer,
  "address" | "city_code" | "city_name" | "department_code" | "department_name" | "postal_zone"
> & { country_code?: string | undefined };

/**
 * An address (PhysicalLocation/Address, RegistrationAddress): in Colombia the DIVIPOLA
 * municipality (5 digits) and department (its first 2), their names as the party's data has them
 * (else DIVIPOLA's); abroad, what the party gives and its country (the acquirer's DIVIPOLA fields
 * are checked only in Colombia: FAK30). Nothing to say: no address.
 */
function address(name: string, party: Address): Child {
  const country = party.country_code ?? "CO";
  const city = party.city_code;
  if (country === "CO" && !city) return undefined;
  const department = party.department_code ?? city?.slice(0, 2);
  const cityText = party.city_name ?? (city ? cityName(city) : undefined);
  const departmentText = party.department_name ?? (city ? departmentName(city) : undefined);
  return el(
    name,
    {},
    city && text("cbc:ID", city),
    cityText && text("cbc:CityName", cityText),
    party.postal_zone && text("cbc:PostalZone", party.postal_zone),
    departmentText && text("cbc:CountrySubentity", departmentText),
    department && text("cbc:CountrySubentityCode", department),
    party.address && el("cac:AddressLine", {}, text("cbc:Line", party.address)),
    el(
      "cac:Country",
      {},
      text("cbc:IdentificationCode", country),
      text("cbc:Name", countryName(country), { languageID: "es" }),
    ),
  );
}

function taxScheme(code: string) {
  return el(
    "cac:TaxScheme",
    {},
    text("cbc:ID", code),
    text("cbc:Name", PARTY_TAX_SCHEME_NAMES[code] ?? code),
  );
}

function contact(email: string | undefined, phone: string | undefined): Child {
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
    text("cbc:TaxLevelCode", issuer.fiscal_responsibilities.join(";")),
    address("cac:RegistrationAddress", issuer),
    taxScheme(issuer.tax_scheme),
  );
}

/**
 * The issuer. `registrationPrefix` is the invoice's numbering prefix (CorporateRegistrationScheme),
 * given for invoices only.
 */
export function supplierParty(issuer: Issuer, registrationPrefix: string | undefined) {
  const nit = () => companyId("cbc:CompanyID", NIT_ID_TYPE, issuer.nit, issuer.check_digit);
  const location = address("cac:Address", issuer);
  return el(
    "cac:AccountingSupplierParty",
    {},
    text("cbc:AdditionalAccountID", issuer.person_type),
    el(
      "cac:Party",
      {},
      el("cac:PartyName", {}, text("cbc:Name", issuer.trade_name ?? issuer.legal_name)),
      location && el("cac:PhysicalLocation", {}, location),
      supplierTaxScheme(issuer),
      el(
        "cac:PartyLegalEntity",
        {},
        text("cbc:RegistrationName", issuer.legal_name),
        nit(),
        registrationPrefix !== undefined &&
          el("cac:CorporateRegistrationScheme", {}, text("cbc:ID", registrationPrefix)),
      ),
      contact(issuer.email, issuer.phone),
    ),
  );
}

/** The buyer's check digit: the one given, else computed (NITs only). */
export function buyerCheckDigit(buyer: Buyer): string | undefined {
  if (buyer.id_type !== NIT_ID_TYPE) return undefined;
  return buyer.check_digit ?? nitCheckDigit(buyer.id_number) ?? undefined;
}

/** Whether the buyer is DIAN's final consumer, whom Odoo writes without address or legal entity. */
const isFinalConsumer = (buyer: Buyer) => buyer.id_number === FINAL_CONSUMER.id_number;

/** The buyer's tax registration: the document's customer has it, and the AttachedDocument's ReceiverParty is it. */
export function customerTaxScheme(buyer: Buyer) {
  return el(
    "cac:PartyTaxScheme",
    {},
    text("cbc:RegistrationName", buyer.name),
    companyId("cbc:CompanyID", buyer.id_type, buyer.id_number, buyerCheckDigit(buyer)),
    text("cbc:TaxLevelCode", buyer.fiscal_responsibilities.join(";")),
    !isFinalConsumer(buyer) && address("cac:RegistrationAddress", buyer),
    taxScheme(buyer.tax_scheme),
  );
}

/**
 * The buyer: a legal entity (1) or a natural person (2) as its data says, identified by its
 * document (PartyIdentification, which a natural person requires: FAK61).
 */
export function customerParty(buyer: Buyer) {
  const dv = buyerCheckDigit(buyer);
  const consumer = isFinalConsumer(buyer);
  const location = consumer ? undefined : address("cac:Address", buyer);
  return el(
    "cac:AccountingCustomerParty",
    {},
    text("cbc:AdditionalAccountID", buyer.person_type),
    el(
      "cac:Party",
      {},
      el(
        "cac:PartyIdentification",
        {},
        text("cbc:ID", buyer.id_number, { schemeName: buyer.id_type, schemeID: dv }),
      ),
      el("cac:PartyName", {}, text("cbc:Name", buyer.name)),
      location && el("cac:PhysicalLocation", {}, location),
      customerTaxScheme(buyer),
      !consumer &&
        el(
          "cac:PartyLegalEntity",
          {},
          text("cbc:RegistrationName", buyer.name),
          companyId("cbc:CompanyID", buyer.id_type, buyer.id_number, dv),
        ),
      !consumer && contact(buyer.email, buyer.phone),
    ),
  );
}
