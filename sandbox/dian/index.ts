/**
 * The DIAN stand-in (DESIGN §10, docs/sandbox.md "DIAN stand-in"): a fetch handler that serves DIAN's
 * `WcfDianCustomerServices.svc` — SOAP 1.2, WS-Security — for SendBillSync, SendTestSetAsync,
 * GetStatusZip, GetStatus, GetNumberingRange and GetXmlByDocumentKey, checks what DIAN checks with implementations that
 * share nothing with our client (xml-crypto, @xmldom/xmldom, libxml2-wasm, node-forge), and answers
 * in DIAN's shapes. Control endpoints (local only, no key): `/_sandbox/dian/next-response`, `reset`,
 * `knobs`, `release`, `requests`.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readCapped } from "../../shared/kernel/bytes.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import { type SandboxFetch, sleep, toRequest } from "../common.ts";
import { faultEnvelope } from "./answers.ts";
import { handleControl } from "./control.ts";
import { EnvelopeError, type Operation, operationOfAction, readEnvelope } from "./envelope.ts";
import { createDianKnobs, type DianKnobs, type DianKnobsPatch, ruleSettings } from "./knobs.ts";
import { MAX_MESSAGE_BYTES, tooLarge } from "./limits.ts";
import {
  getNumberingRange,
  getStatus,
  getStatusZip,
  getXmlByDocumentKey,
  type OperationContext,
  sendBillSync,
  sendTestSetAsync,
} from "./operations.ts";
import { persistStore } from "./persistence.ts";
import {
  checkLimits,
  createRegistry,
  type DianIssuerEntry,
  type DianRegistry,
  type DianTestSet,
  putIssuer,
  REGISTRY_LIMITS,
} from "./registry.ts";
import { checkSecurity } from "./security.ts";
import { DianStore, type StoredDocument } from "./store.ts";
import type { TestSetTally } from "./test-sets.ts";
import { wsdl } from "./wsdl.ts";

export { OPERATIONS, type Operation } from "./envelope.ts";
export type { DianFault, DianKnobs, DianKnobsPatch } from "./knobs.ts";
export type {
  DianIssuerEntry,
  DianRangeEntry,
  DianRegistry,
  DianSoftwareEntry,
  DianTestSet,
} from "./registry.ts";
export {
  OBSERVED_TEST_SET,
  type TestSetRequirement,
  type TestSetStatus,
} from "./test-sets.ts";
export { MAX_MESSAGE_BYTES };

/** A test set's tally without its bookkeeping. */
export type TestSetTallyView = Omit<TestSetTally, "counted">;

const LOG_LIMIT = 1_000;
const SOAP = "application/soap+xml; charset=utf-8";

/** DIAN's own signing certificate for the ApplicationResponses: a PKCS#12 and the CA that issued it. */
export interface DianCertificate {
  p12: Uint8Array;
  password: string;
  caPem: string;
}

export interface DianStandInOptions {
  registry?: Partial<DianRegistry>;
  knobs?: DianKnobsPatch;
  /** Where every request is written raw, as `<time>-<operation>.xml` (`npm start`: `.data/dian`). */
  requestsDir?: string;
  /** Where the documents it validated are kept across restarts (./persistence.ts); default memory only. */
  storeFile?: string;
  /** "DIAN"'s certificate; default: one generated (NIT 800197268) on first need. */
  dianCertificate?: DianCertificate | (() => Promise<DianCertificate>);
  now?: () => Date;
}

export interface DianRequestLogEntry {
  received_at: string;
  operation: Operation | "unknown";
  bytes: number;
  /** replayed: a next-response; fault: a SOAP Fault; injected: a knob's fault; answered otherwise. */
  result: "answered" | "replayed" | "fault" | "injected" | "abandoned";
  file?: string;
}

export interface DianStandIn {
  /** The handler; also a drop-in fetch (relative URLs resolve to http://sandbox.local). */
  fetch: SandboxFetch;
  /** What the stand-in knows; change it with the methods below (they keep its limits). */
  readonly registry: DianRegistry;
  putIssuer(issuer: DianIssuerEntry): void;
  trustCa(pem: string): void;
  addTestSet(testSet: DianTestSet): void;
  readonly knobs: DianKnobs;
  setKnobs(patch: DianKnobsPatch): DianKnobs;
  /** Lets every batch held in process finish (knob holdBatches). */
  releaseBatches(): void;
  /** The next call of `operation` answers exactly `body`, once. */
  setNextResponse(operation: Operation, body: Uint8Array | string): void;
  /** Test set `id`'s tally as DIAN's validator keeps it (./test-sets.ts): sent, accepted, rejected per kind. */
  testSetTally(id: string): TestSetTallyView;
  /** Forgets documents, batches, next responses and the log; restores the knobs; releases hung answers. */
  reset(): void;
  /** The PEM of the CA that issued "DIAN"'s certificate: what verifies an ApplicationResponse. */
  dianCaPem(): Promise<string>;
  readonly requests: readonly DianRequestLogEntry[];
  readonly documents: readonly StoredDocument[];
}

export function createDianStandIn(options: DianStandInOptions = {}): DianStandIn {
  const now = options.now ?? (() => new Date());
  const registry = createRegistry(options.registry);
  const knobs = createDianKnobs(options.knobs);
  const store = new DianStore();
  if (options.storeFile) persistStore(store, options.storeFile);
  const nextResponses = new Map<Operation, Uint8Array>();
  const requests: DianRequestLogEntry[] = [];
  let resetController = new AbortController();
  let dian: Promise<{ signer: Signer; caPem: string }> | undefined;
  let lastStamp = "";
  let sequence = 0;

  const dianIdentity = () => {
    dian ??= (async () => {
      const source = options.dianCertificate;
      const certificate =
        typeof source === "function" ? await source() : (source ?? (await generatedDianCertificate()));
      return { signer: await openPkcs12(certificate.p12, certificate.password), caPem: certificate.caPem };
    })();
    return dian;
  };

  async function writeRequest(operation: string, bytes: Uint8Array, at: Date): Promise<string | undefined> {
    if (!options.requestsDir) return undefined;
    const stamp = at.toISOString().replace(/[:.]/g, "-");
    sequence = stamp === lastStamp ? sequence + 1 : 0;
    lastStamp = stamp;
    const file = join(options.requestsDir, `${stamp}${sequence ? `-${sequence}` : ""}-${operation}.xml`);
    await mkdir(options.requestsDir, { recursive: true });
    await writeFile(file, bytes);
    return file;
  }

  function log(entry: DianRequestLogEntry): DianRequestLogEntry {
    requests.push(entry);
    if (requests.length > LOG_LIMIT) requests.splice(0, requests.length - LOG_LIMIT);
    return entry;
  }

  const soap = (body: string | Uint8Array, status = 200) =>
    new Response(typeof body === "string" ? body : (body.slice() as Uint8Array<ArrayBuffer>), {
      status,
      headers: { "content-type": SOAP },
    });

  async function handleSoap(request: Request): Promise<Response> {
    if (Number(request.headers.get("content-length") ?? 0) > MAX_MESSAGE_BYTES) return tooLarge();
    const { bytes, truncated } = await readCapped(request.body, MAX_MESSAGE_BYTES);
    if (truncated) return tooLarge();
    if (!/^application\/soap\+xml/i.test(request.headers.get("content-type") ?? "")) {
      return new Response(
        "Cannot process the message because the content type is not 'application/soap+xml'.",
        {
          status: 415,
        },
      );
    }
    const at = now();
    const raw = new TextDecoder().decode(bytes);
    let parsed: ReturnType<typeof readEnvelope> | EnvelopeError;
    try {
      parsed = readEnvelope(raw);
    } catch (error) {
      if (!(error instanceof EnvelopeError)) throw error;
      parsed = error;
    }
    const operation =
      parsed instanceof EnvelopeError
        ? (operationOfAction(/<(?:\w+:)?Action[^>]*>([^<]{0,300})</.exec(raw)?.[1]?.trim() ?? "") ??
          "unknown")
        : parsed.operation;
    const entry = log({ received_at: at.toISOString(), operation, bytes: bytes.length, result: "answered" });
    entry.file = await writeRequest(operation, bytes, at);

    const signal = AbortSignal.any([request.signal, resetController.signal]);
    if (!(await sleep(knobs.current.latencyMs, signal))) {
      entry.result = "abandoned";
      return new Response("abandoned", { status: 503 });
    }
    if (operation !== "unknown") {
      const replay = nextResponses.get(operation);
      if (replay) {
        nextResponses.delete(operation);
        entry.result = "replayed";
        return soap(replay);
      }
    }
    const fault = operation === "unknown" ? undefined : knobs.take(operation);
    if (fault === "error") {
      entry.result = "injected";
      return new Response("<html><body>500 Internal Server Error</body></html>", {
        status: 500,
        headers: { "content-type": "text/html" },
      });
    }
    if (fault === "fault") {
      entry.result = "injected";
      return soap(faultEnvelope("Client", "The creator of this fault did not specify a Reason."), 500);
    }
    if (parsed instanceof EnvelopeError) {
      entry.result = "fault";
      return parsed.kind === "action"
        ? soap(faultEnvelope("Sender", parsed.message, "ActionNotSupported"), 500)
        : soap(faultEnvelope("Sender", parsed.message), 500);
    }
    const security = checkSecurity(parsed, raw, registry, at);
    if (!security.ok) {
      entry.result = "fault";
      return soap(faultEnvelope(security.code, security.reason, security.subcode), 500);
    }
    const context: OperationContext = {
      registry,
      store,
      signer: async () => (await dianIdentity()).signer,
      senderNit: security.certificate.nit,
      now: at,
      rules: ruleSettings(knobs.current, at),
      pendingPolls: knobs.current.pendingPolls,
      holdBatches: knobs.current.holdBatches,
      testSetRequired: knobs.current.testSetRequired,
    };
    const answer = await HANDLERS[parsed.operation](parsed, context);
    if (fault === "hang") {
      entry.result = "injected";
      await sleep(knobs.current.hangMs, signal);
    }
    if (fault === "garbage") {
      entry.result = "injected";
      return soap("<html>upstream garbled</html>");
    }
    return soap(answer);
  }

  function addTestSet(testSet: DianTestSet): void {
    registry.testSets = [...registry.testSets.filter((s) => s.id !== testSet.id), { ...testSet }];
    checkLimits(registry);
  }

  function releaseBatches(): void {
    for (const batch of store.batches.values()) {
      batch.held = false;
      batch.pollsLeft = 0;
    }
  }

  function reset(): void {
    resetController.abort();
    resetController = new AbortController();
    knobs.reset();
    store.clear();
    nextResponses.clear();
    requests.length = 0;
  }

  const fetch: SandboxFetch = async (input, init) => {
    const request = toRequest(input, init);
    const url = new URL(request.url);
    const control = /\/_sandbox\/dian\/([a-z-]+)$/.exec(url.pathname);
    if (control?.[1]) {
      return handleControl(control[1], request, url, {
        setNextResponse: (operation, bytes) => nextResponses.set(operation, bytes),
        reset,
        releaseBatches,
        knobs,
        requests: () => requests,
        testSetTally: (id) => {
          const { counted: _, ...view } = store.tally(id);
          return view;
        },
        addTestSet,
      });
    }
    if (/\/WcfDianCustomerServices\.svc$/i.test(url.pathname)) {
      if (request.method === "GET" && url.searchParams.has("wsdl")) {
        return new Response(wsdl(url.href.split("?")[0] ?? ""), {
          headers: { "content-type": "text/xml; charset=utf-8" },
        });
      }
      if (request.method === "POST") return handleSoap(request);
    }
    return new Response("Endpoint not found.", { status: 404 });
  };

  return {
    fetch,
    registry,
    putIssuer: (issuer) => putIssuer(registry, issuer),
    trustCa: (pem) => {
      registry.trustedCaPems.push(pem);
      checkLimits(registry);
    },
    addTestSet,
    get knobs() {
      return knobs.current;
    },
    setKnobs: (patch) => knobs.set(patch),
    releaseBatches,
    setNextResponse: (operation, body) =>
      nextResponses.set(operation, typeof body === "string" ? new TextEncoder().encode(body) : body.slice()),
    reset,
    dianCaPem: async () => (await dianIdentity()).caPem,
    testSetTally: (id) => {
      const { counted: _, ...view } = store.tally(id);
      return structuredClone(view);
    },
    get requests() {
      return requests;
    },
    get documents() {
      return store.documents;
    },
  };
}

const HANDLERS = {
  SendBillSync: sendBillSync,
  SendTestSetAsync: sendTestSetAsync,
  GetStatusZip: getStatusZip,
  GetStatus: getStatus,
  GetNumberingRange: getNumberingRange,
  GetXmlByDocumentKey: getXmlByDocumentKey,
} satisfies Record<Operation, unknown>;

/** A "DIAN" certificate made on the spot (devkit/dian/certificates.ts): NIT 800197268 in its subject. */
export async function generatedDianCertificate(): Promise<DianCertificate> {
  const { createTestCertificates } = await import("../../devkit/dian/certificates.ts");
  const certs = createTestCertificates({
    nit: "800197268",
    companyName: "Unidad Especial Dirección de Impuestos y Aduanas Nacionales",
    password: "dian-stand-in",
  });
  return { p12: certs.p12, password: certs.password, caPem: certs.caPem };
}

export { REGISTRY_LIMITS };
