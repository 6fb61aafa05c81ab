/**
 * DIAN's answers in the shapes it really sends (tests/dian/answers/, each file naming the recorded
 * answer whose shape it follows), read as bytes, and the keys and texts those files hold.
 */
import { readFileSync } from "node:fs";

const DIR = new URL("./answers/", import.meta.url);

/** A fixture's bytes, with `replace`'s pairs substituted in its text. */
export function answer(name: string, replace: Record<string, string> = {}): Uint8Array {
  let text = readFileSync(new URL(name, DIR), "utf8");
  for (const [from, to] of Object.entries(replace)) text = text.split(from).join(to);
  return new TextEncoder().encode(text);
}

/** The ApplicationResponse the fixtures carry in XmlBase64Bytes, as bytes. */
export const APPLICATION_RESPONSE = new Uint8Array(readFileSync(new URL("application-response.xml", DIR)));

/** The XML get-xml-by-document-key.xml carries in XmlBytesBase64 (DIAN's copy of a document), as bytes. */
export const DOCUMENT_COPY = new Uint8Array(readFileSync(new URL("document-copy.xml", DIR)));

/** The CUFE the fixtures' document has. */
export const FIXTURE_KEY =
  "5a53a3b1094f3552e66ba2fbcad1742f6e8effe4825598ef07798dc2495cee131256895cf37f166b992f7934ac6395f1";
/** Another document's CUFE. */
export const OTHER_KEY =
  "44216f9613287d965421d5c6b6a6cd29e18790738183027f3227df1230acb54ea085d834efc56843d81aa6569ac24c89";
/** The test set batch's ZipKey in send-test-set-async.xml. */
export const FIXTURE_ZIP_KEY = "3b200a8e-6e89-47dc-8dff-97874a8ab286";
