/**
 * The example web app: pick a demo user, list the organization's documents, write a draft invoice,
 * then transmit it, download its PDF and XML, deliver it and issue notes on it (./invoice.ts).
 */
import { createDocumentList } from "./documents.ts";
import { loadCompanies, setUpDraftForm } from "./draft.ts";
import { byId } from "./format.ts";
import { createInvoicePanel, type InvoicePanel } from "./invoice.ts";
import { explain } from "./messages.ts";
import { type DemoConfig, loadDemoConfig, signIn } from "./session.ts";

const errorBox = byId("error");

/** Shows what went wrong in Spanish; the cause goes to the console for the developer. */
function fail(error: unknown): void {
  console.warn(error);
  errorBox.textContent = explain(error);
  errorBox.hidden = false;
}

let panel: InvoicePanel | undefined;

async function start(config: DemoConfig, index: number): Promise<void> {
  const user = config.users[index];
  if (!user) return;
  await panel?.close();
  errorBox.hidden = true;
  const session = signIn(config, user);
  byId("whoami").textContent = `${user.email}, ${user.role} de ${user.org_name}`;
  byId("selected").hidden = true;
  const list = createDocumentList(session, (id) => void panel?.open(id), fail);
  panel = createInvoicePanel(session, list.reload, fail);
  const opened = panel;
  setUpDraftForm(
    session,
    async (id) => {
      await list.reload();
      await opened.open(id);
    },
    fail,
  );
  await loadCompanies(session);
  byId("app").hidden = false;
  await list.reload();
}

async function main(): Promise<void> {
  const config = await loadDemoConfig();
  const select = byId<HTMLSelectElement>("user");
  select.replaceChildren(
    ...config.users.map((user, i) => new Option(`${user.email} (${user.role}, ${user.org_name})`, String(i))),
  );
  const operador = config.users.findIndex((user) => user.role === "operador");
  select.value = String(Math.max(0, operador));
  byId<HTMLFormElement>("login").onsubmit = (event) => {
    event.preventDefault();
    start(config, Number(select.value)).catch(fail);
  };
}

main().catch((error: unknown) => {
  console.warn(error);
  errorBox.textContent =
    error instanceof Error && error.message.includes("npm start")
      ? "El servidor local no está listo: ejecute npm start en la raíz del repositorio."
      : explain(error);
  errorBox.hidden = false;
});
