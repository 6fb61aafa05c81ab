/** Small helpers the views share: elements, money, a result code's sentence, DIAN's rules. */
import { describe } from "@einvoicing/client";

export function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

/** A table cell (or any element) holding `text`: never HTML, whatever the database says. */
export function cell(text: string, tag: "td" | "li" = "td"): HTMLElement {
  const element = document.createElement(tag);
  element.textContent = text;
  return element;
}

// amounts are kept to the cent, and shown so (es-CO would round pesos to whole ones)
const pesos = new Intl.NumberFormat("es-CO", {
  style: "currency",
  currency: "COP",
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
export const money = (amount: number | null | undefined): string => pesos.format(Number(amount ?? 0));

/** A result code (`accepted`, `rejected`, …) as the person reads it. */
export const result = (code: string | null | undefined): string =>
  code ? `${code}: ${describe(code, "es")}` : "—";

/** DIAN's rules an answer or a row carries, as `FAJ44b (rechazo): …`. */
export function rules(value: unknown): string {
  if (!Array.isArray(value) || value.length === 0) return "—";
  return value
    .map(
      (rule: { rule?: string; kind?: string; message?: string }) =>
        `${rule.rule} (${rule.kind}): ${rule.message}`,
    )
    .join("; ");
}
