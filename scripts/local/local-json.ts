/**
 * `.data/local.json`: everything a developer needs to call the local server — base URL, apikey,
 * a ready token per demo user, and the demo organizations, companies, invoices (with their line ids)
 * and credit notes.
 */

import type { LocalSigner } from "../../devkit/auth.ts";
import type { SqlClient } from "../../shared/db/sql-client.ts";
import { DEMO_SANDBOX_KEY } from "./demo-credentials.ts";
import type { LocalDian } from "./dian-demo.ts";

/** The local deployment's publishable key. Not a secret: it only names the project. */
export const LOCAL_API_KEY = "sb_publishable_local_einvoicing";

export interface LocalRun {
  /** The functions root, as the contract's `{base_url}`: operations are at `{base_url}/v1/einvoicing/<route>`. */
  base_url: string;
  apikey: string;
  users: { email: string; user_id: string; role: string; org_id: string; access_token: string }[];
  orgs: { id: string; name: string }[];
  companies: { id: string; org_id: string; nit: string; legal_name: string; active_environment: string }[];
  invoices: {
    id: string;
    org_id: string;
    company_id: string;
    number: string;
    status: string;
    /** The invoice's lines in order: what `line_ids` of /credit-notes names. */
    line_ids: string[];
  }[];
  credit_notes: { id: string; org_id: string; invoice_id: string; number: string; status: string }[];
  /** The reconcile function: POST here with `Authorization: Bearer <secret>`. */
  reconcile: { url: string; secret: string };
  /** For /integrations/test and /integrations/save: a key the sandbox accepts, and its url per service. */
  sandbox: { api_key: string; urls: Record<"adapter-tax" | "docsgen" | "deliver", string> };
  /** DIAN direct: the demo company that transmits to the DIAN stand-in, and how to check what it sent. */
  dian: LocalDian;
}

export async function describeLocalRun(
  client: SqlClient,
  signer: LocalSigner,
  baseUrl: string,
  reconcile: LocalRun["reconcile"],
  dian: LocalDian,
): Promise<LocalRun> {
  return client.transaction(async (s) => {
    const members = await s.query<{ user_id: string; email: string; role: string; org_id: string }>(
      `select u.id as user_id, u.email, m.role, m.org_id
         from auth.users u join public.memberships m on m.user_id = u.id
        order by m.org_id, case m.role when 'admin' then 1 when 'operador' then 2 else 3 end, u.email`,
    );
    const users = await Promise.all(
      members.map(async (m) => ({
        email: m.email,
        user_id: m.user_id,
        role: m.role,
        org_id: m.org_id,
        access_token: await signer.sign({ id: m.user_id, email: m.email }, { expiresIn: "30d" }),
      })),
    );
    return {
      base_url: `${baseUrl}/functions`,
      apikey: LOCAL_API_KEY,
      users,
      orgs: await s.query("select id, name from public.organizations order by name"),
      companies: await s.query(
        "select id, org_id, nit, legal_name, active_environment from public.companies order by legal_name",
      ),
      invoices: await s.query(
        `select i.id, i.org_id, i.company_id, i.number, i.status,
                array(select l.id from public.invoice_lines l where l.invoice_id = i.id order by l.position) as line_ids
           from public.invoices i order by i.org_id, i.number`,
      ),
      credit_notes: await s.query(
        "select id, org_id, invoice_id, number, status from public.credit_notes order by org_id, number",
      ),
      reconcile,
      sandbox: {
        api_key: DEMO_SANDBOX_KEY,
        urls: {
          "adapter-tax": `${baseUrl}/sandbox/adapter-tax`,
          docsgen: `${baseUrl}/sandbox/docsgen`,
          deliver: `${baseUrl}/sandbox/deliver`,
        },
      },
      dian,
    };
  });
}

/** The demo user the printed curl lines act as: the first organization's operador. */
export function curlUser(local: LocalRun): LocalRun["users"][number] | undefined {
  return local.users.find((u) => u.role === "operador") ?? local.users[0];
}

/**
 * One curl line: the first organization's operador transmits `invoiceIds`, by default three of its
 * pending invoices.
 */
export function printCurl(local: LocalRun, invoiceIds?: string[]): string {
  const user = curlUser(local);
  if (!user) return "# no demo users: the database was not seeded";
  const ids =
    invoiceIds ??
    local.invoices
      .filter((i) => i.org_id === user.org_id && i.status === "pendiente")
      .slice(0, 3)
      .map((i) => i.id);
  const body = JSON.stringify({ org_id: user.org_id, invoice_ids: ids });
  return [
    `curl -sS -X POST '${local.base_url}/v1/einvoicing/transmit'`,
    `-H 'Authorization: Bearer ${user.access_token}'`,
    `-H 'apikey: ${local.apikey}'`,
    "-H 'Content-Type: application/json'",
    `-d '${body}'`,
  ].join(" ");
}
