/**
 * JSON line logs. Fields whose names look like secrets are replaced before anything is written,
 * and errors are reduced to name, message and code, so a token or key cannot reach a log line by
 * accident. Never log request headers or bodies.
 */

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const RANK: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };
const SECRET_KEY = /(api_?key|apikey|authorization|token|secret|password|cookie|signature)/i;
const REDACTED = "[redacted]";

export function createLogger(
  level: LogLevel | "silent" = "info",
  sink: (line: string) => void = (line) => console.log(line),
  base: LogFields = {},
): Logger {
  const write = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[lvl] < RANK[level]) return;
    const entry = {
      time: new Date().toISOString(),
      level: lvl,
      msg,
      ...redact(base),
      ...redact(fields ?? {}),
    };
    sink(JSON.stringify(entry));
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger(level, sink, { ...base, ...fields }),
  };
}

/** Copies `fields`, masking secret-looking keys and flattening errors (recursively, depth-limited). */
export function redact(fields: LogFields, depth = 0): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = SECRET_KEY.test(key) ? REDACTED : redactValue(value, depth);
  }
  return out;
}

function redactValue(value: unknown, depth: number): unknown {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return {
      name: value.name,
      message: value.message,
      ...(code !== undefined ? { code } : {}),
      ...(value.cause !== undefined && depth < 3 ? { cause: redactValue(value.cause, depth + 1) } : {}),
    };
  }
  if (depth >= 3 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  return redact(value as LogFields, depth + 1);
}
