/**
 * Hand-broken (and hand-built) DIAN documents for the stand-in's rule tests: a document the devkit's
 * invoice or credit note makes, built unsigned by our builder, edited element by element in its tree,
 * then given the CUFE/CUDE its edited fields hash to (computed here from the tree, with the formula
 * DIAN's ValidateCufe uses, so only the rule under test breaks) and signed (XAdES, as the service
 * signs). The stand-in then reads the XML alone.
 */
import { createHash } from "node:crypto";
import { signedAtIssue } from "../../devkit/dian/documents.ts";
import type { Signer } from "../../shared/providers/dian/certificate.ts";
import type { DianDocumentInput } from "../../shared/providers/dian/input.ts";
import { signDocument } from "../../shared/providers/dian/signature.ts";
import { buildUnsignedDocument, type UnsignedDocument } from "../../shared/providers/dian/ubl.ts";
import { type Child, el, type XmlElement, type XmlNode } from "../../shared/providers/dian/xml.ts";

export type { XmlElement };
export { el };

const isElement = (node: XmlNode): node is XmlElement => typeof node === "object" && "name" in node;

/** The element children of `parent` named `name` (qualified as written: `cac:TaxTotal`). */
export function children(parent: XmlElement, name: string): XmlElement[] {
  return parent.children.filter((c): c is XmlElement => isElement(c) && c.name === name);
}

/**
 * Every element at `path` under `from`: steps joined by `/`, each a qualified name, optionally
 * `[n]` (1-based) to take the n-th of that name.
 */
export function findAll(from: XmlElement, path: string): XmlElement[] {
  let nodes = [from];
  for (const step of path.split("/")) {
    const [, name = step, index] = /^([^[]+)(?:\[(\d+)\])?$/.exec(step) ?? [];
    nodes = nodes.flatMap((node) => {
      const found = children(node, name);
      return index ? (found[Number(index) - 1] ? [found[Number(index) - 1] as XmlElement] : []) : found;
    });
  }
  return nodes;
}

/** The first element at `path`; throws when there is none (the test's edit is wrong). */
export function find(from: XmlElement, path: string): XmlElement {
  const [first] = findAll(from, path);
  if (!first) throw new Error(`no ${path}`);
  return first;
}

export const textOf = (element: XmlElement): string =>
  element.children.filter((c): c is string => typeof c === "string").join("");

/** Replaces the text of the element at `path`. */
export function setText(from: XmlElement, path: string, value: string): void {
  find(from, path).children = [value];
}

/** Removes the elements at `path`. */
export function remove(from: XmlElement, path: string): void {
  const steps = path.split("/");
  const last = steps.pop() as string;
  for (const parent of steps.length ? findAll(from, steps.join("/")) : [from]) {
    const gone = new Set(findAll(parent, last));
    parent.children = parent.children.filter((c) => !(isElement(c) && gone.has(c)));
  }
}

/** Inserts `nodes` into `parent` right after its last child named `after` (or first, when none). */
export function insertAfter(parent: XmlElement, after: string, ...nodes: Child[]): void {
  const present = nodes.filter((n): n is XmlNode => n !== undefined && n !== null && n !== false);
  let at = -1;
  parent.children.forEach((c, i) => {
    if (isElement(c) && c.name === after) at = i;
  });
  parent.children.splice(at + 1, 0, ...present);
}

/** An element holding one text: `text("cbc:Amount", "10.00", { currencyID: "COP" })`. */
export const text = (name: string, value: string, attributes: Record<string, string> = {}) =>
  el(name, attributes, value);

/** The document before it is signed: edit its `root`. */
export function unsigned(input: DianDocumentInput): Promise<UnsignedDocument> {
  return buildUnsignedDocument(input);
}

/** DIAN's F2 of an amount: truncated to two decimals ("0.00" for none). */
function f2(value: string | undefined): string {
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(value ?? "0");
  if (!match) return value ?? "";
  return `${match[1]}${match[2]}.${`${match[3] ?? ""}00`.slice(0, 2)}`;
}

/** The document TaxTotal amount of `scheme`: the first group whose first subtotal is of it. */
function schemeTotal(root: XmlElement, scheme: string): string | undefined {
  const group = children(root, "cac:TaxTotal").find((g) => {
    const [id] = findAll(g, "cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:ID");
    return id !== undefined && textOf(id) === scheme;
  });
  return group ? textOf(find(group, "cbc:TaxAmount")) : undefined;
}

/**
 * Gives the edited document the CUFE/CUDE its fields hash to (the range's technical key for an
 * invoice, the software PIN for a credit note, as ../../shared/co/cufe.ts and DIAN do), in cbc:UUID
 * and in the QR code's URL, then signs it on its issue date. The bytes to send.
 */
export async function signEdited(
  doc: UnsignedDocument,
  input: DianDocumentInput,
  signer: Signer,
): Promise<Uint8Array> {
  const { root } = doc;
  const totals = children(root, "cac:LegalMonetaryTotal")[0] as XmlElement;
  const party = (group: string) => textOf(find(root, `${group}/cac:Party/cac:PartyTaxScheme/cbc:CompanyID`));
  const key =
    input.document.kind === "invoice" ? (input.document.issuer.technical_key ?? "") : input.dian.software.pin;
  const source = [
    textOf(find(root, "cbc:ID")),
    textOf(find(root, "cbc:IssueDate")),
    textOf(find(root, "cbc:IssueTime")),
    f2(textOf(find(totals, "cbc:LineExtensionAmount"))),
    "01",
    f2(schemeTotal(root, "01")),
    "04",
    f2(schemeTotal(root, "04")),
    "03",
    f2(schemeTotal(root, "03")),
    f2(textOf(find(totals, "cbc:PayableAmount"))),
    party("cac:AccountingSupplierParty"),
    party("cac:AccountingCustomerParty"),
    key,
    textOf(find(root, "cbc:ProfileExecutionID")),
  ].join("");
  const code = createHash("sha384").update(source, "utf8").digest("hex");
  const uuid = find(root, "cbc:UUID");
  const before = textOf(uuid);
  uuid.children = [code];
  const qr = findAll(
    root,
    "ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent/sts:DianExtensions/sts:QRCode",
  )[0];
  if (qr) qr.children = [textOf(qr).replace(before, code)];
  const issued = {
    ...input,
    document: {
      ...input.document,
      issue_date: textOf(find(root, "cbc:IssueDate")),
      issue_time: textOf(find(root, "cbc:IssueTime")),
    },
  };
  return signDocument(doc, signer, { id: input.document.reference.toLowerCase(), ...signedAtIssue(issued) });
}
