import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { renderHashes } from "./deno-render.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

it("renders and stamps the same bytes under Deno (production) as under Node", async () => {
  const { stdout } = await promisify(execFile)(
    `${ROOT}node_modules/.bin/deno`,
    [
      "eval",
      'const { renderHashes } = await import("./tests/pdf/deno-render.ts"); console.log(JSON.stringify(await renderHashes()));',
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DENO_NO_UPDATE_CHECK: "1" },
    },
  );
  expect(JSON.parse(stdout)).toEqual(await renderHashes());
}, 60_000);
