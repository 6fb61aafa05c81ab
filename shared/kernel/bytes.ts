/** Reading a body into bytes without ever buffering more than a cap. */

/**
 * Reads at most `max` bytes of `stream`, then stops reading (a huge body is never buffered);
 * `truncated` says whether there was more.
 */
export async function readCapped(
  stream: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!stream) return { bytes: new Uint8Array(0), truncated: false };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: concatBytes(chunks), truncated: false };
    if (size + value.byteLength > max) {
      void reader.cancel().catch(() => {});
      return { bytes: concatBytes(chunks), truncated: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
}

/**
 * The chunks as one array: the chunk itself when there is only one and it is the whole of its
 * buffer; otherwise a copy. A stream's chunk may be a view into a larger buffer (Deno's fetch reads
 * a body into 64 KiB ones): kept as it is, a 500-byte answer would hold 64 KiB for as long as it lives.
 */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const only = chunks.length === 1 ? chunks[0] : undefined;
  if (only && only.buffer instanceof ArrayBuffer && only.byteLength === only.buffer.byteLength)
    return only as Uint8Array<ArrayBuffer>;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
