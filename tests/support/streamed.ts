/**
 * A body streamed in the given pieces, without a Content-Length; `cancelled` says whether the reader
 * gave up on it (a reader that stops at a size limit must cancel the stream, not drain it).
 */
export function streamed(pieces: Uint8Array[]): {
  body: ReadableStream<Uint8Array>;
  cancelled: () => boolean;
} {
  let cancelled = false;
  const queue = [...pieces];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, cancelled: () => cancelled };
}
