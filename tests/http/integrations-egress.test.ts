/**
 * Where /integrations/test and /integrations/save may send a key. Every forbidden target — private,
 * loopback, link-local, CGNAT and metadata addresses, in IPv4 and IPv6 forms, and names that resolve
 * to one — is a 400 with nothing sent; a saved url that has since come to resolve to one is not used
 * either; the local development setting still allows loopback. And a provider that cannot be
 * reached, is slow or answers garbage is `ok: false` (test) or a 502/504 with nothing stored (save),
 * never anything else. The DNS is a fake (the resolver port); the network faults are msw's.
 */
import { HttpResponse, http } from "msw";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, PUBLIC_TEST_ADDRESS, type TestApp } from "../../devkit/app.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
} from "../../sandbox/index.ts";
import { HostResolutionError, type Resolver } from "../../shared/ports/egress/url-policy.ts";
import { useNetworkEdge } from "../support/msw.ts";

const KEY = "sk_sandbox_egress_key_1234";
const TIMEOUT_MS = 400;

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let token: string;
const sent: string[] = [];
const adapterTax = createSandboxProvider({ knobs: { hangMs: 5_000 } });
const router = createSandboxRouter({
  adapterTax,
  docsgen: createSandboxDocsgen(),
  deliver: createSandboxDeliver(),
});

/** The fake DNS: names not listed resolve to a public address; `[]` is a name that does not exist. */
const dns = new Map<string, string[]>();
const asked: string[] = [];
const resolver: Resolver = async (host) => {
  asked.push(host);
  const answer = dns.get(host) ?? [PUBLIC_TEST_ADDRESS];
  if (answer.length === 0) throw new HostResolutionError(`the provider host ${host} could not be resolved`);
  return answer;
};

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db, {
    env: { EINV_PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS) },
    resolver,
    providerFetch: (input, init) => {
      sent.push(new Request(input, init).url);
      return router(input, init);
    },
  });
  tenant = await createTenant(db);
  token = await t.token(tenant.admin);
});
afterAll(() => db?.close());
beforeEach(() => {
  sent.length = 0;
  asked.length = 0;
  dns.clear();
  adapterTax.reset();
});

const target = (extra: Record<string, unknown> = {}) => ({
  org_id: tenant.org.id,
  company_id: tenant.company.id,
  service: "adapter-tax",
  environment: "uat",
  ...extra,
});
const call = async (route: "test" | "save", extra: Record<string, unknown>, app = t) =>
  app.post(`/integrations/${route}`, target(extra), app === t ? token : await app.token(tenant.admin));

const credentialRows = async () =>
  db.superuser("select url from einv_private.credentials where company_id = $1 and environment = 'uat'", [
    tenant.company.id,
  ]);

describe("a url that is not a public https host", () => {
  const FORBIDDEN: [string, string, Record<string, string[]>?][] = [
    ["loopback", "https://127.0.0.1/adapter-tax"],
    ["a private address", "https://10.0.0.1/adapter-tax"],
    ["the cloud metadata address", "https://169.254.169.254/latest/meta-data"],
    ["a carrier-grade NAT address", "https://100.64.0.1/adapter-tax"],
    ["IPv6 loopback", "https://[::1]/adapter-tax"],
    ["IPv4-mapped loopback", "https://[::ffff:127.0.0.1]/adapter-tax"],
    ["IPv6 link-local", "https://[fe80::1]/adapter-tax"],
    [
      "a name that resolves to loopback",
      "https://rebind.provider.test/adapter-tax",
      {
        "rebind.provider.test": ["127.0.0.1"],
      },
    ],
    [
      "a name whose answers include a private one",
      "https://mixed.provider.test/adapter-tax",
      {
        "mixed.provider.test": [PUBLIC_TEST_ADDRESS, "10.1.2.3"],
      },
    ],
    [
      "a name that resolves to the metadata address",
      "https://meta.provider.test/",
      {
        "meta.provider.test": ["169.254.169.254"],
      },
    ],
    [
      "a name that resolves to IPv4-mapped loopback",
      "https://v6.provider.test/",
      {
        "v6.provider.test": ["2606:4700::1111", "::ffff:127.0.0.1"],
      },
    ],
    [
      "a name that resolves to unique-local IPv6",
      "https://ula.provider.test/",
      {
        "ula.provider.test": ["fd00::1"],
      },
    ],
    [
      "a name with a trailing dot that resolves to loopback",
      "https://rebind.provider.test./",
      {
        "rebind.provider.test": ["127.0.0.1"],
      },
    ],
    ["a private name", "https://provider.internal/"],
    ["plain http", "http://sandbox.provider.test/adapter-tax"],
    ["credentials in the url", "https://user:secret@sandbox.provider.test/adapter-tax"],
    ["a query string", "https://sandbox.provider.test/adapter-tax?access_token=secret"],
    ["a fragment", "https://sandbox.provider.test/adapter-tax#secret"],
  ];

  it.each(FORBIDDEN)(
    "is refused for %s: 400 naming url, nothing sent or stored",
    async (_what, url, answers) => {
      for (const [name, addresses] of Object.entries(answers ?? {})) dns.set(name, addresses);
      for (const route of ["test", "save"] as const) {
        const response = await call(route, { api_key: KEY, url });
        expect(response.status).toBe(400);
        const { error } = await response.json();
        expect(error.code).toBe("validation_failed");
        expect(error.details).toEqual([
          { field: "url", message: expect.stringMatching(/^The url is not allowed: /) },
        ]);
      }
      expect(sent).toEqual([]);
      expect(await credentialRows()).toEqual([]);
    },
  );

  it("records the refusal as an event", async () => {
    dns.set("rebind.provider.test", ["127.0.0.1"]);
    await call("test", { api_key: KEY, url: "https://rebind.provider.test/" });
    await call("save", { api_key: KEY, url: "https://rebind.provider.test/" });
    const rows = await db.superuser<{ kind: string; outcome: string }>(
      `select kind, data ->> 'outcome' as outcome from public.events
        where document_id = $1 and data ->> 'url' = 'https://rebind.provider.test/' order by id`,
      [tenant.company.id],
    );
    expect(rows).toEqual([
      { kind: "credential_tested", outcome: "refused_url" },
      { kind: "credential_save_refused", outcome: "refused_url" },
    ]);
  });

  it("records a refused url without its credentials, query or fragment, in events and logs", async () => {
    const secret = "tok_in_the_url_5ca1ab1e";
    const urls = [
      `https://user:${secret}@api.provider.test/adapter-tax`,
      `https://api.provider.test/adapter-tax?access_token=${secret}`,
      `https://api.provider.test/adapter-tax#${secret}`,
    ];
    const logsBefore = t.logs.length;
    for (const url of urls) {
      for (const route of ["test", "save"] as const) {
        expect((await call(route, { api_key: KEY, url, environment: "prd" })).status).toBe(400);
      }
    }
    const rows = await db.superuser<{ kind: string; url: string; outcome: string }>(
      `select kind, data ->> 'url' as url, data ->> 'outcome' as outcome from public.events
        where document_id = $1 and data ->> 'environment' = 'prd' and data ->> 'outcome' = 'refused_url'
        order by id`,
      [tenant.company.id],
    );
    expect(rows).toEqual(
      urls.flatMap(() => [
        { kind: "credential_tested", url: "https://api.provider.test/adapter-tax", outcome: "refused_url" },
        {
          kind: "credential_save_refused",
          url: "https://api.provider.test/adapter-tax",
          outcome: "refused_url",
        },
      ]),
    );
    const everything = JSON.stringify(await db.superuser("select * from public.events"));
    expect(everything).not.toContain(secret);
    expect(t.logs.slice(logsBefore).join("\n")).not.toContain(secret);
    expect(sent).toEqual([]);
  });

  it("asks the resolver once per check, and sends to the name it checked", async () => {
    const response = await call("test", { api_key: KEY, url: "https://api.provider.test/adapter-tax" });
    expect((await response.json()).ok).toBe(true);
    expect(asked).toEqual(["api.provider.test"]);
    expect(sent).toEqual(["https://api.provider.test/adapter-tax/credentials/check"]);
  });

  it("does not use a saved url whose name has since come to resolve to a private address", async () => {
    const url = "https://later.provider.test/adapter-tax";
    expect((await call("save", { api_key: KEY, url, environment: "prd" })).status).toBe(200);
    sent.length = 0;
    dns.set("later.provider.test", ["127.0.0.1"]);
    for (const route of ["test", "save"] as const) {
      const response = await call(route, { environment: "prd" });
      expect(response.status).toBe(422);
      expect((await response.json()).error.message).toMatch(/^The saved url cannot be used: .*not public/);
    }
    expect(sent).toEqual([]);
  });
});

describe("the local development setting", () => {
  it("still allows loopback and plain http, without asking the resolver", async () => {
    const local = await createTestApp(db, {
      env: { EINV_ALLOW_PRIVATE_PROVIDER_URLS: "true" },
      resolver,
      providerFetch: (input, init) => {
        sent.push(new Request(input, init).url);
        return router(input, init);
      },
    });
    dns.set("localhost", []);
    for (const url of ["http://127.0.0.1:54321/adapter-tax", "http://localhost:54321/adapter-tax"]) {
      const response = await call("test", { api_key: KEY, url }, local);
      expect(await response.json()).toMatchObject({ ok: true });
    }
    expect(asked).toEqual([]);
    expect(sent).toEqual([
      "http://127.0.0.1:54321/adapter-tax/credentials/check",
      "http://localhost:54321/adapter-tax/credentials/check",
    ]);
  });
});

describe("a provider that does not answer properly", () => {
  const URL_ = "https://sandbox.provider.test/adapter-tax";

  it.each([
    ["slow", { kind: "hang" }, new RegExp(`did not answer the credential check within ${TIMEOUT_MS} ms`)],
    [
      "answering garbage",
      { kind: "malformed" },
      /answered the credential check with a body that is not JSON/,
    ],
    ["failing", { kind: "error" }, /failed on the credential check \(HTTP 503\)/],
    ["rate limiting", { kind: "rate_limited" }, /rate limiting/],
  ] as const)("when %s is ok: false with HTTP 200, saying so", async (_what, fault, message) => {
    adapterTax.setKnobs({ failNext: [{ ...fault, on: "check" }] });
    const response = await call("test", { api_key: KEY, url: URL_ });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: false, message: expect.stringMatching(message) });
  });

  it("whose name does not resolve is ok: false, saying so, with nothing sent", async () => {
    dns.set("gone.provider.test", []);
    const response = await call("test", { api_key: KEY, url: "https://gone.provider.test/" });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      ok: false,
      message:
        "The tax provider could not be reached: the provider host gone.provider.test could not be resolved.",
    });
    expect(sent).toEqual([]);
  });

  it.each([
    ["slow", { kind: "hang" }, 504, "provider_timeout"],
    ["answering garbage", { kind: "malformed" }, 502, "provider_error"],
    ["failing", { kind: "error" }, 502, "provider_error"],
  ] as const)("when %s (%s) makes a save answer %i, storing nothing", async (_what, fault, status, code) => {
    adapterTax.setKnobs({ failNext: [{ ...fault, on: "check" }] });
    const response = await call("save", { api_key: KEY, url: URL_ });
    expect(response.status).toBe(status);
    expect((await response.json()).error.code).toBe(code);
    expect(await credentialRows()).toEqual([]);
  });
});

describe("a provider that cannot be reached (network faults at the edge)", () => {
  const edge = useNetworkEdge();
  let net: TestApp;
  beforeAll(async () => {
    // no provider fetch handed in: calls go through the global fetch, where msw stands
    net = await createTestApp(db, { env: { EINV_PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS) }, resolver });
  });

  it("is ok: false with HTTP 200 when the connection fails", async () => {
    edge.use(http.get("https://down.provider.test/credentials/check", () => HttpResponse.error()));
    const response = await call("test", { api_key: KEY, url: "https://down.provider.test/" }, net);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      ok: false,
      message: "The tax provider could not be reached for the credential check.",
    });
    const save = await call("save", { api_key: KEY, url: "https://down.provider.test/" }, net);
    expect(save.status).toBe(502);
    expect(await credentialRows()).toEqual([]);
  });

  it("is ok: false when the provider answers a redirect, which is not followed", async () => {
    edge.use(
      http.get("https://moved.provider.test/credentials/check", () =>
        HttpResponse.redirect("http://169.254.169.254/latest/meta-data", 302),
      ),
    );
    const response = await call("test", { api_key: KEY, url: "https://moved.provider.test/" }, net);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      ok: false,
      message: expect.stringMatching(/unexpected HTTP 302/),
    });
  });
});

describe("document calls through a saved credential", () => {
  it("apply the same policy: a saved name that now resolves to loopback is not used, nothing sent", async () => {
    const url = "https://docs.provider.test/adapter-tax";
    expect((await call("save", { api_key: KEY, url })).status).toBe(200);
    sent.length = 0;
    dns.set("docs.provider.test", ["127.0.0.1"]);
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const response = await t.post(
      "/transmit",
      { org_id: tenant.org.id, invoice_ids: [invoice.id] },
      await t.token(tenant.operador),
    );
    const [entry] = (await response.json()).results;
    expect(entry).toMatchObject({
      status: "error",
      message: expect.stringMatching(
        /cannot be used: .*resolves to an address that is not public; save it again/,
      ),
    });
    expect(sent).toEqual([]);
    const [row] = await db.superuser<{ status: string }>("select status from invoices where id = $1", [
      invoice.id,
    ]);
    expect(row?.status).toBe("pendiente");
  });

  it("treat a saved name that does not resolve as a provider that cannot be reached, sending nothing", async () => {
    const url = "https://flaky.provider.test/adapter-tax";
    expect((await call("save", { api_key: KEY, url, environment: "uat" })).status).toBe(200);
    sent.length = 0;
    dns.set("flaky.provider.test", []);
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const response = await t.post(
      "/transmit",
      { org_id: tenant.org.id, invoice_ids: [invoice.id] },
      await t.token(tenant.operador),
    );
    const [entry] = (await response.json()).results;
    // nothing left, so the invoice stays as it was: not sent, and says why
    expect(entry).toMatchObject({
      status: "error",
      message: expect.stringMatching(
        /^not sent: .*could not be reached: the provider host flaky\.provider\.test could not be resolved/,
      ),
    });
    expect(sent).toEqual([]);
    const [row] = await db.superuser<{ status: string }>("select status from invoices where id = $1", [
      invoice.id,
    ]);
    expect(row?.status).toBe("pendiente");
  });
});
