/**
 * What parsing a PDF made elsewhere (a docsgen provider's) would cost, found before pdf-lib parses
 * it: pdf-lib inflates every stream and builds every object on the event loop that serves every
 * tenant, so a PDF of a few compressed megabytes can hold gigabytes (a "zip bomb" stream) or
 * hundreds of thousands of objects. This reads the bytes once, counts the objects (those in object
 * streams by their declared /N), and inflates the streams with a budget, stopping at the first byte
 * past it. Streams that are not zlib data are counted by their raw size.
 */

/** Inflated stream bytes a PDF to stamp may hold: a 100-page document needs a few megabytes. */
export const MAX_INFLATED_BYTES = 32 * 1024 * 1024;
/** Objects a PDF to stamp may hold: a 100-page document has a few thousand at most. */
export const MAX_OBJECTS = 20_000;

/** Why the PDF is too costly to parse, or undefined. */
export async function pdfCostProblem(bytes: Uint8Array): Promise<string | undefined> {
  const text = new TextDecoder("latin1").decode(bytes);
  let objects = 0;
  for (const _ of text.matchAll(/\d+\s+\d+\s+obj\b/g)) objects++;
  for (const m of text.matchAll(
    /\/Type\s*\/ObjStm\b[^>]*?\/N\s+(\d+)|\/N\s+(\d+)[^>]*?\/Type\s*\/ObjStm\b/g,
  )) {
    objects += Number(m[1] ?? m[2] ?? 0);
  }
  if (objects > MAX_OBJECTS) return `a PDF of more than ${MAX_OBJECTS} objects`;

  let budget = MAX_INFLATED_BYTES;
  for (let at = text.indexOf("stream"); at !== -1; at = text.indexOf("stream", at + 6)) {
    if (text.startsWith("end", at - 3)) continue;
    const start =
      text[at + 6] === "\r" && text[at + 7] === "\n" ? at + 8 : text[at + 6] === "\n" ? at + 7 : -1;
    if (start === -1) continue;
    const end = text.indexOf("endstream", start);
    if (end === -1) break;
    budget -= await inflatedSize(bytes.subarray(start, end), budget);
    if (budget < 0) return `a PDF whose streams inflate past ${MAX_INFLATED_BYTES} bytes`;
    at = end + 3;
  }
  return undefined;
}

/** The stream's inflated size, reading no more than `budget + 1` bytes of it; its raw size if not zlib. */
async function inflatedSize(data: Uint8Array, budget: number): Promise<number> {
  const reader = new Blob([data as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new DecompressionStream("deflate"))
    .getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return size;
      size += value.byteLength;
      if (size > budget) {
        void reader.cancel().catch(() => {});
        return size;
      }
    }
  } catch {
    // not zlib data (or cut short): parsing it costs what it weighs
    return Math.max(size, data.byteLength);
  }
}
