/**
 * The ZIP a SendBillSync or SendTestSetAsync carries, opened with hard bounds so that a hostile
 * archive costs nothing: the central directory is read first (at most MAX_ENTRIES entries, no
 * encryption, no ZIP64), only the `.xml` entries are inflated, and inflation runs in 4 KiB slices that
 * stop as soon as the XML passes MAX_XML_BYTES (deflate expands at most ~1 000×, so one slice can never
 * allocate more than ~4 MiB before the count is checked). DIAN's own limits are not published; it
 * takes messages up to 10 485 760 bytes ([D] Web.config), and the stand-in allows its XMLs that
 * size inflated, one or all together.
 *
 * What counts as an XML follows DIAN's `ZipContainsXmlFiles`/`ExtractMultipleZip` ([D]
 * WcfDianCustomerServices.svc.cs, DianPAServices.UploadDocumentSync): entries whose name ends in
 * `.xml`, folders ignored.
 */
import { Inflate } from "fflate";

export const ZIP_LIMITS = {
  maxEntries: 100,
  maxXmlBytes: 10_485_760,
  maxXmlEntries: 50,
  /** All the XMLs together: without it, 50 entries just under maxXmlBytes would inflate to 500 MiB. */
  maxTotalXmlBytes: 10_485_760,
} as const;

export type ZipResult =
  | { kind: "not_zip" }
  | { kind: "unreadable"; why: string }
  | { kind: "too_large"; why: string }
  | { kind: "ok"; xmls: { name: string; bytes: Uint8Array }[] };

const u16 = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u32 = (b: Uint8Array, at: number) => (u16(b, at) | (u16(b, at + 2) << 16)) >>> 0;

/** Whether the bytes start as a ZIP does (what DIAN's MIME sniffing, urlmon's FindMimeFromData, sees). */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && u32(bytes, 0) === 0x04034b50;
}

/** Opens `bytes`; never inflates more than the limits allow. */
export function readZip(bytes: Uint8Array, limits = ZIP_LIMITS): ZipResult {
  if (!looksLikeZip(bytes)) return { kind: "not_zip" };
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (u32(bytes, at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) return { kind: "unreadable", why: "no end of central directory" };
  const count = u16(bytes, end + 10);
  if (count > limits.maxEntries) return { kind: "too_large", why: `${count} entries` };
  let at = u32(bytes, end + 16);
  const entries: { name: string; method: number; size: number; offset: number }[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || u32(bytes, at) !== 0x02014b50)
      return { kind: "unreadable", why: "bad central directory" };
    const flags = u16(bytes, at + 8);
    const method = u16(bytes, at + 10);
    const size = u32(bytes, at + 20);
    const nameLength = u16(bytes, at + 28);
    const offset = u32(bytes, at + 42);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (flags & 1) return { kind: "unreadable", why: "encrypted entry" };
    if (size === 0xffffffff || offset === 0xffffffff) return { kind: "unreadable", why: "ZIP64 entry" };
    entries.push({ name, method, size, offset });
    at += 46 + nameLength + u16(bytes, at + 30) + u16(bytes, at + 32);
  }
  const xmlEntries = entries.filter((e) => !e.name.endsWith("/") && e.name.toLowerCase().endsWith(".xml"));
  if (xmlEntries.length > limits.maxXmlEntries)
    return { kind: "too_large", why: `${xmlEntries.length} XML files` };
  const xmls: { name: string; bytes: Uint8Array }[] = [];
  let budget = limits.maxTotalXmlBytes;
  for (const entry of xmlEntries) {
    const max = Math.min(limits.maxXmlBytes, budget);
    const local = entry.offset;
    if (local + 30 > bytes.length || u32(bytes, local) !== 0x04034b50)
      return { kind: "unreadable", why: "bad local header" };
    const start = local + 30 + u16(bytes, local + 26) + u16(bytes, local + 28);
    const data = bytes.subarray(start, start + entry.size);
    if (data.length !== entry.size) return { kind: "unreadable", why: "truncated entry" };
    const inflated = entry.method === 0 ? stored(data, max) : entry.method === 8 ? inflate(data, max) : null;
    if (inflated === null) return { kind: "unreadable", why: `compression method ${entry.method}` };
    if (inflated === "too_large") {
      const why =
        max < limits.maxXmlBytes
          ? `the XML files inflate past ${limits.maxTotalXmlBytes} bytes together`
          : `${entry.name} inflates past ${limits.maxXmlBytes} bytes`;
      return { kind: "too_large", why };
    }
    if (inflated === "corrupt") return { kind: "unreadable", why: `${entry.name} does not inflate` };
    budget -= inflated.length;
    xmls.push({ name: entry.name, bytes: inflated });
  }
  return { kind: "ok", xmls };
}

function stored(data: Uint8Array, max: number): Uint8Array | "too_large" {
  return data.length > max ? "too_large" : data.slice();
}

function inflate(data: Uint8Array, max: number): Uint8Array | "too_large" | "corrupt" {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let over = false;
  const stream = new Inflate((chunk) => {
    total += chunk.length;
    if (total > max) over = true;
    else chunks.push(chunk);
  });
  try {
    for (let at = 0; at < data.length && !over; at += 4096) {
      stream.push(data.subarray(at, at + 4096), at + 4096 >= data.length);
    }
  } catch {
    return over ? "too_large" : "corrupt";
  }
  if (over) return "too_large";
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
