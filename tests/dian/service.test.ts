/**
 * DIAN's client against a real HTTP server on loopback standing where DIAN's web service does (the
 * network edge): what it posts, and what each kind of answer — DIAN's shapes, Faults, HTTP errors,
 * silence, garbage, redirects, floods — becomes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { dianInvoice, signedAtIssue } from "../../devkit/dian/documents.ts";
import { xmlsecVerifyEnvelope } from "../../devkit/dian/xml-tools.ts";
import {
  ProviderError,
  ProviderMalformedError,
  ProviderRateLimitedError,
  ProviderRejectedError,
  ProviderRequestError,
  ProviderTimeoutError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
} from "../../shared/ports/providers/errors.ts";
import { readAnswer } from "../../shared/providers/dian/answers.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import { submissionFiles } from "../../shared/providers/dian/package.ts";
import {
  createDianService,
  type DianDocumentFile,
  type DianService,
} from "../../shared/providers/dian/service.ts";
import { MAX_ANSWER_BYTES } from "../../shared/providers/dian/soap-reader.ts";
import { answer, FIXTURE_KEY, FIXTURE_ZIP_KEY } from "./fixtures.ts";

const PASSWORD = "clave-secreta-9f2d7c41";
const PIN = "pin-8e1f6a93";
const TECHNICAL_KEY = "tk-secreta-5b7c2e90d1";
const NOW = new Date("2026-11-20T15:30:00.000Z");

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

let server: Server;
let url: string;
let received: Received[] = [];
let handle: (request: Received, response: ServerResponse) => void;
let certs: TestCertificates;
let signer: Signer;
let document: DianDocumentFile;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const got = {
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks),
      };
      received.push(got);
      handle(got, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/WcfDianCustomerServices.svc`;
  certs = createTestCertificates({ password: PASSWORD });
  signer = await openPkcs12(certs.p12, certs.password);
  const input = dianInvoice(3, (doc) => {
    doc.issuer.technical_key = TECHNICAL_KEY;
  });
  input.dian.software.pin = PIN;
  const signed = await buildSignedDocument(input, signer, signedAtIssue(input));
  document = {
    files: submissionFiles({
      kind: "invoice",
      issuerNit: "900123456",
      package: { year: 2026, consecutive: 1 },
    }),
    xml: signed.xml,
  };
}, 60_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
  handle = (_request, response) => response.writeHead(500).end();
});

const service = (timeoutMs = 2000): DianService =>
  createDianService({ url, signer, timeoutMs, now: () => NOW });

/** Answers with DIAN's bytes, as WCF does. */
function soap(status: number, bytes: Uint8Array | string) {
  return (_request: Received, response: ServerResponse) =>
    response.writeHead(status, { "Content-Type": "application/soap+xml; charset=utf-8" }).end(bytes);
}

async function failure(run: Promise<unknown>): Promise<ProviderError> {
  const error = await run.then(
    () => {
      throw new Error("the call succeeded");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

const text = (request: Received | undefined) => request?.body.toString("utf8") ?? "";

describe("what the client posts", () => {
  it("posts one signed envelope to the URL, the action in SOAP 1.2's Content-Type, the document alone in its ZIP", async () => {
    handle = soap(200, answer("send-bill-sync-accepted.xml"));
    const got = await service().sendBillSync(document);
    expect(got).toEqual(
      (readAnswer("SendBillSync", answer("send-bill-sync-accepted.xml")) as { result: unknown }).result,
    );
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/WcfDianCustomerServices.svc");
    expect(request?.headers["content-type"]).toBe(
      'application/soap+xml;charset=UTF-8;action="http://wcf.dian.colombia/IWcfDianCustomerServices/SendBillSync"',
    );
    const body = text(request);
    expect((await xmlsecVerifyEnvelope(new Uint8Array(request?.body ?? []))).ok).toBe(true);
    expect(body).toContain(`>${url}</wsa:To>`);
    expect(body).toContain("<wsu:Created>2026-11-20T15:30:00.000Z</wsu:Created>");
    expect(body).toContain(`<wcf:fileName>${document.files.zip}</wcf:fileName>`);
    const zipped = /<wcf:contentFile>([^<]+)<\/wcf:contentFile>/.exec(body)?.[1] ?? "";
    const files = unzipSync(Buffer.from(zipped, "base64"));
    expect(Object.keys(files)).toEqual([document.files.xml]);
    expect(files[document.files.xml]).toEqual(document.xml);
  }, 30_000);

  it("posts each operation's action and parameters, each envelope with its own Ids", async () => {
    const calls: [string, () => Promise<unknown>, string][] = [
      [
        "SendTestSetAsync",
        () => service().sendTestSetAsync(document, "f2e50ee4-3dbd-4a72-8bb2-e66782ad36ff"),
        "send-test-set-async.xml",
      ],
      ["GetStatusZip", () => service().getStatusZip(FIXTURE_ZIP_KEY), "get-status-zip-pending.xml"],
      ["GetStatus", () => service().getStatus(FIXTURE_KEY.toUpperCase()), "get-status-accepted.xml"],
      [
        "GetNumberingRange",
        () =>
          service().getNumberingRange({
            accountCode: "900123456",
            accountCodeT: "900123456",
            softwareCode: "56f2ae4e-9812-4fad-9255-08fcfcd5ccb0",
          }),
        "get-numbering-range.xml",
      ],
      [
        "GetXmlByDocumentKey",
        () => service().getXmlByDocumentKey(FIXTURE_KEY.toUpperCase()),
        "get-xml-by-document-key.xml",
      ],
    ];
    for (const [operation, call, fixture] of calls) {
      handle = soap(200, answer(fixture));
      await call();
      const request = received.at(-1);
      expect(request?.headers["content-type"]).toContain(
        `action="http://wcf.dian.colombia/IWcfDianCustomerServices/${operation}"`,
      );
      expect(text(request)).toContain(`<soap:Body><wcf:${operation}>`);
    }
    expect(text(received[1])).toContain(`<wcf:trackId>${FIXTURE_ZIP_KEY}</wcf:trackId>`);
    expect(text(received[2])).toContain(`<wcf:trackId>${FIXTURE_KEY}</wcf:trackId>`);
    expect(text(received[4])).toContain(
      `<wcf:GetXmlByDocumentKey><wcf:trackId>${FIXTURE_KEY}</wcf:trackId></wcf:GetXmlByDocumentKey>`,
    );
    const ids = received.map((r) => /wsu:Id="(id-[^"]+)"/.exec(text(r))?.[1]);
    expect(new Set(ids).size).toBe(received.length);
  });

  it("refuses a malformed request before anything is sent", async () => {
    const client = service();
    await expect(client.getStatus("short")).rejects.toBeInstanceOf(ProviderRequestError);
    await expect(client.getStatusZip("not-a-guid")).rejects.toBeInstanceOf(ProviderRequestError);
    await expect(client.getXmlByDocumentKey("short")).rejects.toMatchObject({
      operation: "attached_document",
    });
    await expect(client.sendTestSetAsync(document, "x y")).rejects.toBeInstanceOf(ProviderRequestError);
    await expect(
      client.getNumberingRange({ accountCode: "90012345-6", accountCodeT: "900123456", softwareCode: "s" }),
    ).rejects.toBeInstanceOf(ProviderRequestError);
    await expect(
      client.sendBillSync({ ...document, files: { ...document.files, zip: "../evil zip" } }),
    ).rejects.toBeInstanceOf(ProviderRequestError);
    expect(received).toEqual([]);
  });
});

describe("failures", () => {
  it("no answer in time: a timeout that may have processed a send, not a read", async () => {
    handle = () => {}; // never answers
    const send = await failure(service(300).sendBillSync(document));
    expect(send).toBeInstanceOf(ProviderTimeoutError);
    expect(send).toMatchObject({ maybeProcessed: true, operation: "submit" });
    expect(send.message).toMatch(
      /DIAN did not answer SendBillSync within 300 ms\. DIAN may have processed it/,
    );
    const read = await failure(service(300).getStatus(FIXTURE_KEY));
    expect(read).toBeInstanceOf(ProviderTimeoutError);
    expect(read).toMatchObject({ maybeProcessed: false, operation: "query" });
    const copy = await failure(service(300).getXmlByDocumentKey(FIXTURE_KEY));
    expect(copy).toBeInstanceOf(ProviderTimeoutError);
    expect(copy).toMatchObject({ maybeProcessed: false, operation: "attached_document" });
  });

  it("the timeout covers the answer's body: headers then silence is a timeout too", async () => {
    handle = (_request, response) => {
      response.writeHead(200, { "Content-Type": "application/soap+xml" });
      response.write("<s:Envelope");
    };
    const error = await failure(service(300).sendBillSync(document));
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(error.maybeProcessed).toBe(true);
  });

  it("a lost connection is unavailable: maybe processed for a send, not for a read", async () => {
    handle = (_request, response) => response.socket?.destroy();
    const send = await failure(service().sendTestSetAsync(document, "f2e50ee4-3dbd-4a72-8bb2-e66782ad36ff"));
    expect(send).toBeInstanceOf(ProviderUnavailableError);
    expect(send.maybeProcessed).toBe(true);
    const read = await failure(service().getStatusZip(FIXTURE_ZIP_KEY));
    expect(read).toBeInstanceOf(ProviderUnavailableError);
    expect(read.maybeProcessed).toBe(false);
  });

  it("a 500 that is no Fault is unavailable: maybe processed for a send, not for a read", async () => {
    handle = (_request, response) =>
      response.writeHead(500, { "Content-Type": "text/html" }).end("<html>Runtime Error</html>");
    const send = await failure(service().sendBillSync(document));
    expect(send).toBeInstanceOf(ProviderUnavailableError);
    expect(send).toMatchObject({ maybeProcessed: true, status: 500 });
    const read = await failure(
      service().getNumberingRange({ accountCode: "900123456", accountCodeT: "900123456", softwareCode: "s" }),
    );
    expect(read).toMatchObject({ maybeProcessed: false, operation: "check_credential" });
  });

  it("a Fault about the certificate or the security header is unauthorized: nothing was processed", async () => {
    handle = soap(500, answer("fault-certificate-expired.xml"));
    const expired = await failure(service().sendBillSync(document));
    expect(expired).toBeInstanceOf(ProviderUnauthorizedError);
    expect(expired).toMatchObject({
      maybeProcessed: false,
      code: "credential_rejected",
      providerCode: "Client",
    });
    expect(expired.providerMessage).toContain("Certificado se encuentra expirado.");
    expect(expired.message).not.toContain("Certificado");
    handle = soap(500, answer("fault-invalid-security.xml"));
    const security = await failure(service().getStatus(FIXTURE_KEY));
    expect(security).toBeInstanceOf(ProviderUnauthorizedError);
  });

  it("another client Fault is a refusal; a receiver Fault is unavailable and may have processed a send", async () => {
    handle = soap(500, answer("fault-client.xml"));
    const refused = await failure(service().sendBillSync(document));
    expect(refused).toBeInstanceOf(ProviderRejectedError);
    expect(refused.maybeProcessed).toBe(false);
    expect(refused.message).toBe("DIAN refused SendBillSync (SOAP Fault Client).");
    expect(refused.providerMessage).toBe("The creator of this fault did not specify a Reason.");
    handle = soap(500, answer("fault-receiver.xml"));
    const failed = await failure(service().sendBillSync(document));
    expect(failed).toBeInstanceOf(ProviderUnavailableError);
    expect(failed.maybeProcessed).toBe(true);
  });

  it("a redirect is not followed", async () => {
    handle = (request, response) => {
      if (request.path.includes("elsewhere"))
        return soap(200, answer("send-bill-sync-accepted.xml"))(request, response);
      response.writeHead(302, { Location: `${url}/elsewhere` }).end();
    };
    const error = await failure(service().sendBillSync(document));
    expect(error).toBeInstanceOf(ProviderMalformedError);
    expect(error.message).toMatch(/redirect \(HTTP 302\), which is not followed/);
    expect(received.map((r) => r.path)).toEqual(["/WcfDianCustomerServices.svc"]);
  });

  it("an answer over DIAN's message limit is malformed, announced or streamed", async () => {
    handle = (_request, response) => {
      response.writeHead(200, {
        "Content-Type": "application/soap+xml",
        "Content-Length": String(MAX_ANSWER_BYTES + 1),
      });
      response.write(" ");
    };
    const announced = await failure(service().getStatus(FIXTURE_KEY));
    expect(announced).toBeInstanceOf(ProviderMalformedError);
    expect(announced.message).toContain(`a body over ${MAX_ANSWER_BYTES} bytes`);
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    handle = (_request, response) => {
      response.writeHead(200, { "Content-Type": "application/soap+xml" });
      for (let i = 0; i < 11; i++) response.write(chunk);
      response.end();
    };
    const streamed = await failure(service().sendBillSync(document));
    expect(streamed).toBeInstanceOf(ProviderMalformedError);
    expect(streamed.maybeProcessed).toBe(true);
  });

  it("garbage, or a DOCTYPE, in a 200 is malformed: maybe processed for a send", async () => {
    handle = soap(200, "OK");
    const garbage = await failure(service().sendBillSync(document));
    expect(garbage).toBeInstanceOf(ProviderMalformedError);
    expect(garbage).toMatchObject({ maybeProcessed: true, status: 200 });
    expect(garbage.message).toMatch(/DIAN answered SendBillSync with a body that is not well-formed XML/);
    handle = soap(200, '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>');
    const doctype = await failure(service().getStatus(FIXTURE_KEY));
    expect(doctype).toBeInstanceOf(ProviderMalformedError);
    expect(doctype).toMatchObject({ maybeProcessed: false });
  });

  it("401/403 are unauthorized and 429 rate limited, never processed", async () => {
    handle = (_request, response) => response.writeHead(403).end("Forbidden");
    expect(await failure(service().sendBillSync(document))).toBeInstanceOf(ProviderUnauthorizedError);
    handle = (_request, response) => response.writeHead(429, { "Retry-After": "7" }).end();
    const limited = await failure(service().sendBillSync(document));
    expect(limited).toBeInstanceOf(ProviderRateLimitedError);
    expect(limited).toMatchObject({ maybeProcessed: false, retryAfterSeconds: 7 });
  });
});

describe("secrets", () => {
  it("never sends the certificate's password, the software PIN or the technical key, and no message holds them", async () => {
    const echo = (status: number) => (request: Received, response: ServerResponse) => {
      const said = text(request).replace(/[<>&]/g, " ");
      response
        .writeHead(status, { "Content-Type": "application/soap+xml" })
        .end(
          `<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><s:Fault><s:Code><s:Value>s:Client</s:Value></s:Code><s:Reason><s:Text xml:lang="es-CO">${said}</s:Text></s:Reason></s:Fault></s:Body></s:Envelope>`,
        );
    };
    const errors: unknown[] = [];
    for (const handler of [echo(500), echo(200), soap(500, "x"), () => {}, soap(200, "garbage")]) {
      handle = handler;
      errors.push(
        await service(300)
          .sendBillSync(document)
          .catch((e: unknown) => e),
      );
      errors.push(
        await service(300)
          .getStatus(FIXTURE_KEY)
          .catch((e: unknown) => e),
      );
    }
    const sent = received.map(text).join("\n");
    expect(received.length).toBeGreaterThan(0);
    const said = errors
      .map((e) =>
        e instanceof Error
          ? `${e.message} ${JSON.stringify(e)} ${String((e.cause as Error | undefined)?.message)}`
          : String(e),
      )
      .join("\n");
    for (const secret of [PASSWORD, PIN, TECHNICAL_KEY]) {
      expect(sent).not.toContain(secret);
      expect(said).not.toContain(secret);
    }
    expect(new TextDecoder().decode(document.xml)).not.toContain(PIN);
  });
});
