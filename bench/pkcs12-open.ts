/**
 * One fresh process's openings of one PKCS#12 (run by ./pkcs12-timing.ts under Deno): imports the
 * reader, then opens `file` with `password` `runs` times and prints, for each opening, the CPU time
 * of the thread that ran it and of the whole process (ms, as JSON; the first opening is the cold
 * one, compiling the reader as a new worker's first request would).
 *
 * The thread's is what Supabase's edge runtime holds a request to: its CPU timer is a
 * `CLOCK_THREAD_CPUTIME_ID` timer on the worker's thread (supabase/edge-runtime,
 * crates/cpu_timer/src/lib.rs), read here from Linux's /proc/thread-self/schedstat (the same clock,
 * in nanoseconds). The process's adds V8's compiler threads and the collector's helpers.
 *
 *   deno run --allow-all bench/pkcs12-open.ts <file> <password> <runs>   (/proc needs --allow-all)
 */
import { readFileSync } from "node:fs";
import { cpuUsage } from "node:process";
import { readPkcs12 } from "../shared/providers/dian/certificate.ts";

const threadMs = () => Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;

const [file, password, runs] = process.argv.slice(2);
if (!file || password === undefined) throw new Error("usage: pkcs12-open.ts <file> <password> <runs>");
const bytes = readFileSync(file);
const openings: { threadMs: number; processMs: number }[] = [];
for (let i = 0; i < Number(runs ?? 3); i++) {
  const process0 = cpuUsage();
  const thread0 = threadMs();
  readPkcs12(bytes, password);
  const thread = threadMs() - thread0;
  const used = cpuUsage(process0);
  openings.push({ threadMs: thread, processMs: (used.user + used.system) / 1000 });
}
console.log(JSON.stringify(openings));
