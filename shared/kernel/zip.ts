/**
 * ZIP archives, with fflate: pure JavaScript (no native code; its synchronous path needs no Node
 * built-in), so it runs alike on Deno and Node. Loaded only when an archive is made.
 */

export interface ZipEntry {
  name: string;
  bytes: Uint8Array;
}

/**
 * The entries, deflated, in order. `modified` is every entry's time (a DOS time, 1980–2099, in the
 * process's time zone): a fixed time keeps the archive the same for the same contents.
 */
export async function zipFiles(entries: readonly ZipEntry[], modified: Date): Promise<Uint8Array> {
  const { zipSync } = await import("fflate");
  const names = new Set(entries.map((entry) => entry.name));
  if (names.size !== entries.length) throw new TypeError("zip entry names must be distinct");
  return zipSync(Object.fromEntries(entries.map((entry) => [entry.name, entry.bytes])), {
    level: 6,
    mtime: modified,
  });
}
