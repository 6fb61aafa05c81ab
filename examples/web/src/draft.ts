/**
 * A draft invoice, written as the signed-in user with supabase-js: the `invoices` row (buyer, a
 * ReteFuente withholding) and its `invoice_lines` (quantity, price, IVA, a discount). Inputs only:
 * the database computes every amount (docs/creating-invoices.md), and RLS lets an admin or operador
 * write a draft, a lector not. The number is the company's prefix and its next consecutive.
 */
import type { TablesInsert } from "@einvoicing/client";
import { byId } from "./format.ts";
import type { Session } from "./session.ts";

const MAX_LINES = 10;
/** The database's bound on a line's quantity × unit price (…_amounts.sql): 1,000,000,000,000 pesos. */
const LINE_LIMIT = 1_000_000_000_000;
/** The highest consecutive a number holds (15 digits, the invoices' check). */
const MAX_CONSECUTIVE = 999_999_999_999_999;
/** Saves tried with the next numbers when another draft took one meanwhile (23505). */
const NUMBER_TRIES = 5;
const IVA_RATES = ["19", "5", "0"];

/** DIAN's check digit of a NIT (its "dígito de verificación"). */
export function nitCheckDigit(nit: string): string {
  const weights = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71];
  const digits = [...nit].reverse();
  const sum = digits.reduce((total, digit, i) => total + Number(digit) * (weights[i] ?? 0), 0);
  const rest = sum % 11;
  return String(rest > 1 ? 11 - rest : rest);
}

function input(value: string, attributes: Record<string, string>): HTMLInputElement {
  const element = document.createElement("input");
  element.value = value;
  for (const [name, attribute] of Object.entries(attributes)) element.setAttribute(name, attribute);
  return element;
}

/** Says in the form what the database would refuse of a line: a blank description, too large a line. */
function checkLine(row: HTMLTableRowElement): void {
  const field = (name: string) => row.querySelector(`[name="${name}"]`) as HTMLInputElement;
  const description = field("description");
  const price = field("price");
  description.setCustomValidity(description.value.trim() ? "" : "Escriba una descripción.");
  price.setCustomValidity(
    Number(field("quantity").value) * Number(price.value) < LINE_LIMIT
      ? ""
      : "Cantidad × precio unitario debe ser menor que $ 1.000.000.000.000.",
  );
}

/** At 10 lines, "Agregar línea" is off (and says why). */
function limitLines(body: HTMLTableSectionElement): void {
  const add = byId<HTMLButtonElement>("add-line");
  add.disabled = body.rows.length >= MAX_LINES;
  add.title = add.disabled ? `Máximo ${MAX_LINES} líneas por borrador.` : "";
}

function addLine(body: HTMLTableSectionElement, description: string, quantity: string, price: string): void {
  if (body.rows.length >= MAX_LINES) return;
  const tr = document.createElement("tr");
  const iva = document.createElement("select");
  iva.name = "iva";
  for (const rate of IVA_RATES) iva.add(new Option(`${rate} %`, rate));
  const remove = document.createElement("button");
  remove.type = "button";
  remove.textContent = "Quitar";
  remove.addEventListener("click", () => {
    if (body.rows.length > 1) tr.remove();
    limitLines(body);
  });
  const fields = [
    input(description, { name: "description", required: "", maxlength: "200" }),
    input(quantity, {
      name: "quantity",
      type: "number",
      required: "",
      min: "0.01",
      max: "100000",
      step: "0.01",
    }),
    input(price, { name: "price", type: "number", required: "", min: "0", max: "1000000000", step: "0.01" }),
    iva,
    input("0", { name: "discount", type: "number", required: "", min: "0", max: "100", step: "0.01" }),
    remove,
  ];
  tr.append(
    ...fields.map((field) => {
      const td = document.createElement("td");
      td.append(field);
      return td;
    }),
  );
  tr.addEventListener("input", () => checkLine(tr));
  body.append(tr);
  limitLines(body);
}

type Line = Omit<TablesInsert<"invoice_lines">, "invoice_id" | "org_id">;

function readLines(body: HTMLTableSectionElement): Line[] {
  return [...body.rows].map((row, i) => {
    const value = (name: string) =>
      (row.querySelector(`[name="${name}"]`) as HTMLInputElement | HTMLSelectElement).value;
    const discount = Number(value("discount"));
    return {
      position: i + 1,
      description: value("description").trim(),
      quantity: Number(value("quantity")),
      unit_price: Number(value("price")),
      taxes: [{ code: "01", percent: Number(value("iva")) }],
      allowance_charges:
        discount > 0 ? [{ charge: false, reason_code: "00", reason: "Descuento", percent: discount }] : [],
    };
  });
}

/**
 * The company's next number: its prefix and one past its highest consecutive in its resolution's
 * range (or the range's start). Only the highest is read, one row per query: numbers of one width,
 * whose text order is their numeric order, the widest first (DIAN's ranges, 990000000 to 995000000,
 * usually have one width). It goes by the unique index on (company_id, number), however many
 * invoices the company has.
 */
async function nextNumber(session: Session, companyId: string): Promise<{ prefix: string; next: number }> {
  const company = await session.supabase
    .from("companies")
    .select("invoice_prefix, resolution_from, resolution_to")
    .eq("id", companyId)
    .single();
  if (company.error) throw company.error;
  const prefix = company.data.invoice_prefix;
  const from = company.data.resolution_from ?? 1;
  const to = company.data.resolution_to ?? MAX_CONSECUTIVE;
  for (let width = String(to).length; width >= String(from).length; width--) {
    const { data, error } = await session.supabase
      .from("invoices")
      .select("number")
      .eq("company_id", companyId)
      .regexMatch("number", `^${prefix}[0-9]{${width}}$`)
      .order("number", { ascending: false })
      .limit(1);
    if (error) throw error;
    const [last] = data;
    if (last) return { prefix, next: Math.max(from, Number(last.number.slice(prefix.length)) + 1) };
  }
  return { prefix, next: from };
}

export async function loadCompanies(session: Session): Promise<void> {
  const select = byId<HTMLSelectElement>("company");
  const { data, error } = await session.supabase
    .from("companies")
    .select("id, legal_name")
    .eq("org_id", session.orgId)
    .order("legal_name");
  if (error) throw error;
  select.replaceChildren(...data.map((company) => new Option(company.legal_name, company.id)));
}

export function setUpDraftForm(
  session: Session,
  saved: (invoiceId: string) => Promise<void>,
  fail: (error: unknown) => void,
): void {
  const form = byId<HTMLFormElement>("draft");
  const body = byId<HTMLTableElement>("lines").tBodies[0] as HTMLTableSectionElement;
  body.replaceChildren();
  addLine(body, "Servicio de consultoría", "2", "150000");
  byId("add-line").onclick = () => addLine(body, "", "1", "0");

  form.onsubmit = async (event) => {
    event.preventDefault();
    // a value set without an input event (a script, autofill) is checked here too
    for (const row of body.rows) checkLine(row);
    if (!form.reportValidity()) return;
    const submit = form.querySelector("button[type=submit]") as HTMLButtonElement;
    submit.disabled = true;
    try {
      const companyId = byId<HTMLSelectElement>("company").value;
      const nit = byId<HTMLInputElement>("buyer-nit").value.trim();
      const retefuente = Number(byId<HTMLInputElement>("retefuente").value);
      const lines = readLines(body);
      const { prefix, next } = await nextNumber(session, companyId);
      // two people saving at once may pick the same number: the second insert is 23505, try the next
      let invoice: { id: string } | null = null;
      for (let attempt = 0; !invoice; attempt++) {
        const { data, error } = await session.supabase
          .from("invoices")
          .insert({
            org_id: session.orgId,
            company_id: companyId,
            number: `${prefix}${next + attempt}`,
            buyer_id_type: "31",
            buyer_id_number: nit,
            buyer_check_digit: nitCheckDigit(nit),
            buyer_name: byId<HTMLInputElement>("buyer-name").value.trim(),
            buyer_email: byId<HTMLInputElement>("buyer-email").value.trim() || null,
            buyer_address: byId<HTMLInputElement>("buyer-address").value.trim() || null,
            buyer_city_code: "11001", // Bogotá (DIVIPOLA)
            withholdings: retefuente > 0 ? [{ code: "06", percent: retefuente }] : [],
          })
          .select("id")
          .single();
        if (error && !(error.code === "23505" && attempt + 1 < NUMBER_TRIES)) throw error;
        invoice = data;
      }
      const written = await session.supabase
        .from("invoice_lines")
        .insert(lines.map((line) => ({ ...line, invoice_id: invoice.id, org_id: session.orgId })));
      if (written.error) {
        // no draft without its lines: it is still pendiente, so its writer may delete it
        await session.supabase.from("invoices").delete().eq("id", invoice.id);
        throw written.error;
      }
      await saved(invoice.id);
    } catch (error) {
      fail(error);
    } finally {
      submit.disabled = false;
    }
  };
}
