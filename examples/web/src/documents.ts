/**
 * The organization's documents, newest first, 10 to a page: invoices, credit notes or debit notes,
 * filtered by status, with the total count (supabase-js `.range()` with `count: "exact"` through
 * /rest/v1). Choosing an invoice opens it.
 */
import { byId, cell, money, result, rules } from "./format.ts";
import type { Session } from "./session.ts";

const PAGE_SIZE = 10;
type Kind = "invoices" | "credit_notes" | "debit_notes";

export interface DocumentList {
  reload(): Promise<void>;
}

export function createDocumentList(
  session: Session,
  open: (invoiceId: string) => void,
  fail: (error: unknown) => void,
): DocumentList {
  const kind = byId<HTMLSelectElement>("kind");
  const status = byId<HTMLSelectElement>("status");
  const body = byId<HTMLTableElement>("documents").tBodies[0] as HTMLTableSectionElement;
  const previous = byId<HTMLButtonElement>("previous");
  const next = byId<HTMLButtonElement>("next");
  const pageLabel = byId("page");
  let page = 0;
  let latest = 0;

  const reload = async () => {
    // only the last reload asked for is shown: an earlier one that answers later is dropped
    const ticket = ++latest;
    const table = kind.value as Kind;
    // the three tables share these columns; supabase-js types the query by the table it names
    let query = session.supabase
      .from(table as "invoices")
      .select("id, number, status, last_code, authority_rules, total", { count: "exact" })
      .eq("org_id", session.orgId);
    if (status.value) query = query.eq("status", status.value);
    const from = page * PAGE_SIZE;
    const { data, count, error } = await query
      .order("created_at", { ascending: false })
      .order("number", { ascending: false })
      .range(from, from + PAGE_SIZE - 1);
    if (ticket !== latest) return;
    if (error) return fail(error);
    body.replaceChildren(
      ...(data ?? []).map((row) => {
        const tr = document.createElement("tr");
        tr.dataset.id = row.id;
        tr.dataset.status = row.status;
        tr.append(
          cell(row.number),
          cell(row.status),
          cell(result(row.last_code)),
          cell(rules(row.authority_rules)),
          cell(money(row.total)),
        );
        if (table === "invoices") {
          tr.classList.add("openable");
          tr.addEventListener("click", () => open(row.id));
        }
        return tr;
      }),
    );
    const pages = Math.max(1, Math.ceil((count ?? 0) / PAGE_SIZE));
    pageLabel.textContent = `Página ${page + 1} de ${pages} (${count ?? 0} documentos)`;
    previous.disabled = page === 0;
    next.disabled = page + 1 >= pages;
  };

  const restart = () => {
    page = 0;
    void reload();
  };
  // assigned, not added: signing in as another user replaces the last user's handlers
  kind.onchange = restart;
  status.onchange = restart;
  previous.onclick = () => {
    page = Math.max(0, page - 1);
    void reload();
  };
  next.onclick = () => {
    page += 1;
    void reload();
  };
  return { reload };
}
