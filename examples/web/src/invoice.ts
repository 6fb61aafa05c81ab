/**
 * One invoice and what can be done with it: transmit it and watch its status change (pushed by
 * `onDocumentStatus` where Realtime runs; re-read from the table here), ask the authority again
 * (/refresh), download its PDF and its XML from the private bucket with the user's session, e-mail it
 * to the buyer, and correct it with a credit note or raise it with a debit note, each delivered in
 * turn. Every answer's `code` is shown with the client's Spanish sentence for it.
 */
import { describe } from "@einvoicing/client";
import { byId, cell, money, result, rules } from "./format.ts";
import type { Session } from "./session.ts";

const WATCH_EVERY_MS = 1000;
const WATCH_AT_MOST = 60;

interface Note {
  id: string;
  number: string;
  status: string;
  last_code: string | null;
  kind: "credit" | "debit";
}

export interface InvoicePanel {
  open(invoiceId: string): Promise<void>;
  /** Stops listening for status changes (on signing out). */
  close(): Promise<void>;
}

export function createInvoicePanel(
  session: Session,
  changed: () => Promise<void>,
  fail: (error: unknown) => void,
): InvoicePanel {
  const { supabase, einvoicing, orgId } = session;
  const section = byId("selected");
  const history = byId<HTMLOListElement>("history");
  const downloads = byId("downloads");
  const notesBody = byId<HTMLTableElement>("notes").tBodies[0] as HTMLTableSectionElement;
  let invoiceId = "";
  let lastStatus = "";

  /** Re-reads the invoice (and its notes) and shows it; answers its status. */
  const show = async (): Promise<string> => {
    const { data, error } = await supabase
      .from("invoices")
      .select(
        "id, number, status, last_code, last_message, authority_rules, subtotal, tax_total, total, " +
          "withholding_total_amount, net_payable_amount, invoice_lines(id, position, description, quantity)",
      )
      .eq("id", invoiceId)
      .order("position", { referencedTable: "invoice_lines" })
      .single();
    if (error) throw error;
    const invoice = data as unknown as {
      number: string;
      status: string;
      last_code: string | null;
      authority_rules: unknown;
      subtotal: number;
      tax_total: number;
      total: number;
      withholding_total_amount: number;
      net_payable_amount: number;
      invoice_lines: { id: string; position: number; description: string; quantity: number }[];
    };
    byId("selected-number").textContent = invoice.number;
    byId("selected-status").textContent = invoice.status;
    byId("selected-result").textContent = `${result(invoice.last_code)} ${
      invoice.authority_rules ? `Reglas DIAN: ${rules(invoice.authority_rules)}` : ""
    }`.trim();
    byId("selected-totals").textContent =
      `Subtotal ${money(invoice.subtotal)} · IVA ${money(invoice.tax_total)} · Total ${money(invoice.total)} · ` +
      `Retenciones ${money(invoice.withholding_total_amount)} · A pagar ${money(invoice.net_payable_amount)}`;
    if (invoice.status !== lastStatus) {
      history.append(cell(`${new Date().toLocaleTimeString("es-CO")}: ${invoice.status}`, "li"));
      lastStatus = invoice.status;
    }
    byId<HTMLSelectElement>("credit-line").replaceChildren(
      ...invoice.invoice_lines.map(
        (line) => new Option(`${line.position}. ${line.description} (${line.quantity})`, line.id),
      ),
    );
    await showNotes();
    return invoice.status;
  };

  const showNotes = async () => {
    const columns = "id, number, status, last_code";
    const [credit, debit] = await Promise.all([
      supabase.from("credit_notes").select(columns).eq("invoice_id", invoiceId).order("created_at"),
      supabase.from("debit_notes").select(columns).eq("invoice_id", invoiceId).order("created_at"),
    ]);
    if (credit.error) throw credit.error;
    if (debit.error) throw debit.error;
    const notes: Note[] = [
      ...credit.data.map((note) => ({ ...note, kind: "credit" as const })),
      ...debit.data.map((note) => ({ ...note, kind: "debit" as const })),
    ];
    notesBody.replaceChildren(...notes.map(noteRow));
  };

  const noteRow = (note: Note): HTMLTableRowElement => {
    const tr = document.createElement("tr");
    tr.dataset.id = note.id;
    tr.dataset.kind = note.kind;
    const delivery = cell("");
    const sent = document.createElement("span");
    const send = document.createElement("button");
    send.type = "button";
    send.textContent = "Enviar";
    send.disabled = note.status !== "emitida";
    send.addEventListener("click", () =>
      act(async () => {
        const answer =
          note.kind === "credit"
            ? await einvoicing.creditNotes.deliver({ org_id: orgId, credit_note_id: note.id })
            : await einvoicing.debitNotes.deliver({ org_id: orgId, debit_note_id: note.id });
        sent.textContent = ` ${answer.status}: ${describe(answer.code, "es")} (${answer.to})`;
      }),
    );
    delivery.append(send, sent);
    tr.append(
      cell(note.number),
      cell(note.kind === "credit" ? "Nota crédito" : "Nota débito"),
      cell(note.status),
      cell(result(note.last_code)),
      delivery,
    );
    return tr;
  };

  /** One action at a time: the panel's buttons are off while it runs; a failure is told in Spanish. */
  const act = async (action: () => Promise<void>) => {
    const buttons = [...section.querySelectorAll("button")];
    for (const button of buttons) button.disabled = true;
    try {
      await action();
    } catch (error) {
      fail(error);
    } finally {
      for (const button of buttons) button.disabled = false;
      for (const button of notesBody.querySelectorAll("button")) {
        const row = button.closest("tr");
        button.disabled = row?.children[2]?.textContent !== "emitida";
      }
    }
  };

  /** Until the invoice leaves en_proceso: re-read it every second (where Realtime runs, it is pushed). */
  const watch = async () => {
    for (let i = 0; (await show()) === "en_proceso"; i++) {
      if (i === WATCH_AT_MOST) {
        byId("selected-result").textContent =
          `Sin respuesta de la DIAN después de ${(WATCH_AT_MOST * WATCH_EVERY_MS) / 1000} s: la página dejó de vigilar el estado. ` +
          "Use «Consultar estado» para preguntar de nuevo.";
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, WATCH_EVERY_MS));
    }
  };

  const stopRealtime = session.realtime
    ? einvoicing.onDocumentStatus(orgId, (event) => {
        if (event.document_id === invoiceId) void show().catch(fail);
        void changed();
      })
    : undefined;

  const link = (blob: Blob, filename: string, label: string) => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = filename;
    a.textContent = `${label}: ${filename} (${Math.ceil(blob.size / 1024)} KB)`;
    a.dataset.type = label;
    downloads.append(a, " ");
  };

  byId("transmit").onclick = () =>
    act(async () => {
      const { results } = await einvoicing.transmit({ org_id: orgId, invoice_ids: [invoiceId] });
      const [entry] = results;
      if (entry) {
        byId("selected-result").textContent =
          `${result(entry.code)} ${entry.authority_rules ? `Reglas DIAN: ${rules(entry.authority_rules)}` : ""}`;
      }
      await watch();
      await changed();
    });
  byId("refresh").onclick = () =>
    act(async () => {
      await einvoicing.refresh({ org_id: orgId, invoice_id: invoiceId });
      await show();
      await changed();
    });
  byId("pdf").onclick = () =>
    act(async () => {
      const { pdf, filename } = await einvoicing.downloadRepresentation({
        org_id: orgId,
        invoice_id: invoiceId,
      });
      link(pdf, filename, "PDF");
    });
  byId("xml").onclick = () =>
    act(async () => {
      const { xml, xml_path } = await einvoicing.downloadAttachedDocument({
        org_id: orgId,
        invoice_id: invoiceId,
      });
      link(xml, xml_path?.split("/").pop() ?? "documento.xml", "XML");
    });
  byId("deliver").onclick = () =>
    act(async () => {
      const answer = await einvoicing.deliver({ org_id: orgId, invoice_id: invoiceId });
      byId("selected-result").textContent =
        `Envío: ${answer.status}, ${describe(answer.code, "es")} (${answer.to})`;
    });

  byId<HTMLFormElement>("credit-note").onsubmit = (event) => {
    event.preventDefault();
    void act(async () => {
      const concept = byId<HTMLSelectElement>("credit-concept").value as "1" | "2" | "3" | "4" | "5" | "6";
      const lineId = byId<HTMLSelectElement>("credit-line").value;
      const amount = byId<HTMLInputElement>("credit-amount").value.trim();
      // an annulment credits everything left; a return gives back units; 3 to 6 credit a base amount
      const lines =
        concept === "2"
          ? undefined
          : [concept === "1" ? { line_id: lineId, quantity: amount } : { line_id: lineId, amount }];
      const answer = await einvoicing.creditNotes.create({
        org_id: orgId,
        invoice_id: invoiceId,
        concept_code: concept,
        reason: byId<HTMLInputElement>("credit-reason").value.trim(),
        ...(lines ? { lines } : {}),
      });
      byId("selected-result").textContent = `Nota crédito: ${answer.status}, ${result(answer.code)}`;
      await showNotes();
      await changed();
    });
  };
  byId<HTMLFormElement>("debit-note").onsubmit = (event) => {
    event.preventDefault();
    void act(async () => {
      const answer = await einvoicing.debitNotes.create({
        org_id: orgId,
        invoice_id: invoiceId,
        concept_code: byId<HTMLSelectElement>("debit-concept").value as "1" | "2" | "3" | "4",
        reason: byId<HTMLInputElement>("debit-reason").value.trim(),
        // interest is not subject to IVA here: a line without taxes is "excluido"
        lines: [
          {
            description: byId<HTMLInputElement>("debit-description").value.trim(),
            quantity: "1",
            unit_price: byId<HTMLInputElement>("debit-amount").value.trim(),
          },
        ],
      });
      byId("selected-result").textContent = `Nota débito: ${answer.status}, ${result(answer.code)}`;
      await showNotes();
      await changed();
    });
  };

  return {
    async open(id) {
      invoiceId = id;
      lastStatus = "";
      history.replaceChildren();
      downloads.replaceChildren();
      section.hidden = false;
      await act(async () => {
        await show();
      });
    },
    async close() {
      await stopRealtime?.();
    },
  };
}
