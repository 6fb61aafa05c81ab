/**
 * Compares two V8 heap snapshots (`npm run bench -- --load --heap-snapshots=dir` writes them at
 * start, after the /transmit warm-up and after the run): the objects each holds, grouped by
 * constructor (or type, for strings, code, arrays…), by count and self size, largest growth first.
 * What grows with the requests served is the leak to look for; what stays is a high-water mark.
 *
 *   deno run --allow-read bench/heap-snapshot.ts dir/warm.heapsnapshot dir/after.heapsnapshot [top]
 */
import { readFileSync } from "node:fs";
import process from "node:process";

interface Group {
  count: number;
  bytes: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: (string[] | string)[] } };
  nodes: number[];
  strings: string[];
}

/** Count and self size per "type:name" (objects by constructor name, the others by type). */
export function groups(path: string): Map<string, Group> {
  const data = JSON.parse(readFileSync(path, "utf8")) as Snapshot;
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0] as string[];
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const out = new Map<string, Group>();
  for (let i = 0; i < data.nodes.length; i += fields.length) {
    const type = types[data.nodes[i + typeAt] as number] ?? "?";
    const key =
      type === "object" || type === "closure"
        ? `${type}:${data.strings[data.nodes[i + nameAt] as number]}`
        : type;
    const group = out.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += data.nodes[i + sizeAt] as number;
    out.set(key, group);
  }
  return out;
}

function main(argv: string[]): void {
  const [before, after, top = "25"] = argv;
  if (!before || !after)
    throw new Error("usage: heap-snapshot.ts <before.heapsnapshot> <after.heapsnapshot> [top]");
  const [a, b] = [groups(before), groups(after)];
  const total = (m: Map<string, Group>) => [...m.values()].reduce((n, g) => n + g.bytes, 0);
  const rows = [...new Set([...a.keys(), ...b.keys()])].map((key) => {
    const x = a.get(key) ?? { count: 0, bytes: 0 };
    const y = b.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: y.count - x.count, bytes: y.bytes - x.bytes, after: y };
  });
  rows.sort((p, q) => Math.abs(q.bytes) - Math.abs(p.bytes));
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(`self size: ${kib(total(a))} → ${kib(total(b))}`);
  for (const r of rows.slice(0, Number(top))) {
    console.log(
      `${kib(r.bytes).padStart(12)} ${String(r.count).padStart(9)} objects   (now ${kib(r.after.bytes)}, ${r.after.count})  ${r.key}`,
    );
  }
}

if ((import.meta as ImportMeta & { main?: boolean }).main) main(process.argv.slice(2));
