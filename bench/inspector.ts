/**
 * The V8 heap of another Deno process, read through its inspector (`deno run --inspect=…`, the
 * Chrome DevTools Protocol over a WebSocket): a full collection and the heap used after it, and
 * heap snapshots (`*.heapsnapshot`, for Chrome DevTools' Memory tab or ./heap-snapshot.ts). Nothing
 * runs inside the measured process but V8's own inspector.
 */
import { writeFileSync } from "node:fs";

export interface Inspector {
  /**
   * A full garbage collection, then what the process's JavaScript holds, in bytes: its objects (V8's
   * heap used) and the ArrayBuffers' backing stores, which live outside that heap (answers' bytes,
   * PDFs, streams' chunks) but are as much the process's memory.
   */
  heapAfterGc(): Promise<{ objects: number; buffers: number }>;
  /** The same without collecting first: what the heap holds now, garbage included. */
  heapNow(): Promise<{ objects: number; buffers: number }>;
  /** Writes a heap snapshot (after V8's own full collection) to `path`. */
  snapshot(path: string): Promise<void>;
  close(): void;
}

type HeapUsage = { usedSize: number; backingStorageSize?: number };
type Message = {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
};

/** Connects to the inspector listening on 127.0.0.1:`port` (waits up to 30 s for it). */
export async function openInspector(port: number): Promise<Inspector> {
  const deadline = Date.now() + 30_000;
  let target: string | undefined;
  while (!target) {
    try {
      const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
        webSocketDebuggerUrl?: string;
      }[];
      target = list[0]?.webSocketDebuggerUrl;
    } catch {
      // not listening yet
    }
    if (!target) {
      if (Date.now() > deadline) throw new Error(`no inspector on 127.0.0.1:${port} after 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const socket = new WebSocket(target);
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error(`could not open the inspector at ${target}`));
  });
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let onEvent: ((m: Message) => void) | undefined;
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as Message;
    if (message.id === undefined) return onEvent?.(message);
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiting?.reject(new Error(`inspector: ${JSON.stringify(message.error)}`));
    else waiting?.resolve(message.result);
  };
  const send = <T>(method: string, params: Record<string, unknown> = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  const heapNow = async () => {
    const usage = await send<HeapUsage>("Runtime.getHeapUsage");
    return { objects: usage.usedSize, buffers: usage.backingStorageSize ?? 0 };
  };
  return {
    async heapAfterGc() {
      // twice: what the first frees (weak references, finalizers) the second collects
      await send("HeapProfiler.collectGarbage");
      await send("HeapProfiler.collectGarbage");
      return heapNow();
    },
    heapNow,
    async snapshot(path) {
      const chunks: string[] = [];
      onEvent = (m) => {
        if (m.method === "HeapProfiler.addHeapSnapshotChunk") chunks.push(String(m.params?.chunk));
      };
      await send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
      onEvent = undefined;
      writeFileSync(path, chunks.join(""));
    },
    close: () => socket.close(),
  };
}
