/**
 * The stand-in's memory on disk, for `npm start`: DIAN keeps every document it validated, so a
 * restarted local server must too, or a `/refresh` of yesterday's invoice would hear "never
 * received" and its AttachedDocument would find no copy. One JSON line per document recorded
 * (appended, never rewritten while running), an accepted one's XML copy with it; read back at
 * start, the newest STORE_LIMITS.documents lines within the last MAX_READ_BYTES of the file only,
 * each checked before it is believed (the store then drops copies past its own bound). A file grown
 * past twice the lines, or past MAX_READ_BYTES, is rewritten at start with what the store kept.
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { type DianStore, STORE_LIMITS, type StoredCopy, type StoredDocument } from "./store.ts";

/** The most read back at start: a full store (responses and copies) is well under it. */
export const MAX_READ_BYTES = 256 * 1024 * 1024;

const KEY = /^[0-9a-f]{96}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** The largest copy: an XML of DIAN's message size, in base64. */
const MAX_COPY_CHARS = Math.ceil(10_485_760 / 3) * 4;

function storedCopy(value: unknown): StoredCopy | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object") return undefined;
  const { xmlBase64, senderCode, receiverCode } = value as Record<string, unknown>;
  if (typeof xmlBase64 !== "string" || xmlBase64.length > MAX_COPY_CHARS || !BASE64.test(xmlBase64))
    return undefined;
  if (typeof senderCode !== "string" || senderCode.length > 50) return undefined;
  if (typeof receiverCode !== "string" || receiverCode.length > 50) return undefined;
  return { xmlBase64, senderCode, receiverCode };
}

function storedDocument(value: unknown): StoredDocument | null {
  if (!value || typeof value !== "object") return null;
  const { key, identity, accepted, response, copy, issueDate } = value as Record<string, unknown>;
  if (typeof key !== "string" || !KEY.test(key) || typeof identity !== "string" || identity.length > 200)
    return null;
  if (issueDate !== undefined && (typeof issueDate !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(issueDate)))
    return null;
  if (typeof accepted !== "boolean" || !response || typeof response !== "object") return null;
  const checkedCopy = storedCopy(copy);
  if (checkedCopy === undefined || (checkedCopy && !accepted)) return null;
  return { ...(value as StoredDocument), copy: checkedCopy };
}

/** The last `max` bytes of `file` as text, from the first whole line on. */
function readTail(file: string, max: number): { text: string; whole: boolean } {
  const size = statSync(file).size;
  const length = Math.min(size, max);
  const buffer = new Uint8Array(length);
  const fd = openSync(file, "r");
  try {
    for (let at = 0; at < length; ) {
      const got = readSync(fd, buffer, at, length - at, size - length + at);
      if (got === 0) break;
      at += got;
    }
  } finally {
    closeSync(fd);
  }
  // a character cut at the start is in the partial first line, dropped below
  const text = new TextDecoder().decode(buffer);
  if (length === size) return { text, whole: true };
  return { text: text.slice(text.indexOf("\n") + 1), whole: false };
}

/**
 * Reads `file` into `store` (at most its last `maxReadBytes`) and appends every later record to it.
 * Returns how many were read.
 */
export function persistStore(store: DianStore, file: string, maxReadBytes = MAX_READ_BYTES): number {
  mkdirSync(dirname(file), { recursive: true });
  let read = 0;
  if (existsSync(file)) {
    const { text, whole } = readTail(file, maxReadBytes);
    const lines = text.split("\n").filter((line) => line !== "");
    for (const line of lines.slice(-STORE_LIMITS.documents)) {
      try {
        const stored = storedDocument(JSON.parse(line));
        if (stored) {
          store.restore(stored);
          read++;
        }
      } catch {
        // a line cut short by a crash: skipped
      }
    }
    if (!whole || lines.length > 2 * STORE_LIMITS.documents) {
      const kept = store.documents.map((stored) => JSON.stringify(stored));
      writeFileSync(file, kept.length > 0 ? `${kept.join("\n")}\n` : "");
    }
  }
  store.onRecord = (stored) => appendFileSync(file, `${JSON.stringify(stored)}\n`);
  return read;
}
