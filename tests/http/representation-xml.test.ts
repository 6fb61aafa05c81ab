/**
 * `xml_path` of /representation and /credit-notes/representation, through the real app and
 * database with the sandbox at the edge: the AttachedDocument XML beside the PDF, downloadable by a
 * member of the organization with their own session (the local Storage stand-in, driven by
 * supabase-js) and signed as DIAN mode signs it, by nobody else, and null until the authority
 * accepted the document.
 */
import { createClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TEST_API_KEY, TEST_URL, type TestApp } from "../../devkit/app.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant, type User } from "../../devkit/factories.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/index.ts";
import { createStorageDownloadHandler } from "../../scripts/local/storage-download.ts";
import { DOCUMENTS_BUCKET } from "../../shared/ports/storage.ts";
import { expectSignedAttachedDocument, sandboxCa } from "../support/attached-document.ts";
import { DOCUMENT_KINDS, type DocumentKind } from "../support/document-kinds.ts";
import { openRouteSuite } from "../support/route-suite.ts";

let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let tenant: Tenant;
let token: string;
let stranger: Tenant;

beforeAll(async () => {
  sandbox = createSandboxProvider();
  ({ db, t, tenant, token } = await openRouteSuite({ providerFetch: sandbox.fetch }));
  stranger = await createTenant(db);
});
afterAll(() => db?.close());
beforeEach(() => sandbox.setKnobs({ failNext: [] }));

interface Representation {
  path: string;
  stamped: boolean;
  cached: boolean;
  xml_path: string | null;
}

async function represent(kind: DocumentKind, id: string): Promise<Representation> {
  const response = await t.post(
    kind.routes.representation,
    { org_id: tenant.org.id, [kind.idField]: id },
    token,
  );
  expect(response.status).toBe(200);
  return response.json();
}

/** The object at `path`, downloaded as a web app does: supabase-js with the user's own session. */
async function download(user: User, path: string) {
  const handler = createStorageDownloadHandler({
    client: db.client,
    store: t.documents,
    verifyToken: t.deps.verifyToken,
  });
  const supabase = createClient(TEST_URL, TEST_API_KEY, {
    global: {
      fetch: (input, init) => handler(new Request(input, init)),
      headers: { Authorization: `Bearer ${await t.token(user)}` },
    },
    auth: { persistSession: false, autoRefreshToken: false },
  });
  return supabase.storage.from(DOCUMENTS_BUCKET).download(path);
}

const suite = () => ({ db, t, tenant, token });

describe.each(DOCUMENT_KINDS)("xml_path of the $name representation", (kind) => {
  it("names the AttachedDocument beside the PDF once accepted, and keeps it on the cached answer", async () => {
    const sent = await kind.send(suite());
    expect(sent.status).toBe(kind.accepted);
    const first = await represent(kind, sent.id);
    expect(first.stamped).toBe(true);
    expect(first.xml_path).toMatch(new RegExp(`^${tenant.org.id}/${kind.folder}/${sent.id}/ad-[^/]+\\.xml$`));
    const again = await represent(kind, sent.id);
    expect(again).toMatchObject({ cached: true, xml_path: first.xml_path });
  });

  it("is downloaded by a member with their own session, as XML, and by nobody of another organization", async () => {
    const sent = await kind.send(suite());
    const { xml_path } = await represent(kind, sent.id);
    if (!xml_path) throw new Error("an accepted document has an xml_path");
    const { data, error } = await download(tenant.lector, xml_path);
    expect(error).toBeNull();
    const xml = new Uint8Array(await (data as Blob).arrayBuffer());
    expect(new TextDecoder().decode(xml)).toMatch(/^<\?xml[^>]*\?><AttachedDocument /);
    expect((data as Blob).type).toBe("application/xml");
    // the AttachedDocument the sandbox signed as DIAN mode does, kept byte for byte
    await expectSignedAttachedDocument(xml, await sandboxCa(sandbox.fetch), kind.kind);
    expect((await download(stranger.admin, xml_path)).data).toBeNull();
  });

  it("is null until the authority accepted the document", async () => {
    // the provider fails the submit: the document is not accepted (en_proceso or error)
    const sent = await kind.send(suite(), () =>
      sandbox.setKnobs({ failNext: [{ kind: "error", on: "submit" }] }),
    );
    expect(sent.status).not.toBe(kind.accepted);
    const rep = await represent(kind, sent.id);
    expect(rep).toMatchObject({ stamped: false, xml_path: null });
  });

  it("answers the PDF when the provider cannot hand the XML over, and names the XML on the next call", async () => {
    const sent = await kind.send(suite());
    sandbox.setKnobs({ failNext: [{ kind: "error", on: "attached_document" }] });
    const first = await represent(kind, sent.id);
    expect(first).toMatchObject({ stamped: true, xml_path: null });
    const second = await represent(kind, sent.id);
    expect(second.xml_path).toMatch(/\.xml$/);
    expect(second.path).toBe(first.path); // the PDF was not rendered again
  });
});
