/**
 * The stand-in's memory on disk, for `npm start`: DIAN keeps every document it validated, so a
 * restarted local server must too, or a `/refresh` of yesterday's invoice would hear "never
 * received". One JSON line per document recorded (appended, never rewritten while running); read
 * back at start, the newest STORE_LIMITS.documents lines only, each checked before it is believed.
 * A file grown past twice that is compacted at start.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type DianStore, STORE_LIMITS, type StoredDocument } from "./store.ts";

const KEY = /^[0-9a-f]{96}$/;

function storedDocument(value: unknown): StoredDocument | null {
  if (!value || typeof value !== "object") return null;
  const { key, identity, accepted, response } = value as Record<string, unknown>;
  if (typeof key !== "string" || !KEY.test(key) || typeof identity !== "string" || identity.length > 200)
    return null;
  if (typeof accepted !== "boolean" || !response || typeof response !== "object") return null;
  return value as StoredDocument;
}

/** Reads `file` into `store` and appends every later record to it. Returns how many were read. */
export function persistStore(store: DianStore, file: string): number {
  mkdirSync(dirname(file), { recursive: true });
  let read = 0;
  if (existsSync(file)) {
    const lines = readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line !== "");
    const kept = lines.slice(-STORE_LIMITS.documents);
    for (const line of kept) {
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
    if (lines.length > 2 * STORE_LIMITS.documents) writeFileSync(file, `${kept.join("\n")}\n`);
  }
  store.onRecord = (stored) => appendFileSync(file, `${JSON.stringify(stored)}\n`);
  return read;
}
