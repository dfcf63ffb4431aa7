import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { onTestFinished } from "vitest";

export interface HubServerOptions {
  /** Serve this model directory as the repo (its onnx/model.onnx also as onnx/model_quantized.onnx). */
  readonly dir?: string;
  /** Or serve exactly these files (path → content), listed in this order, as the Hub lists a repository. */
  readonly files?: ReadonlyMap<string, Buffer | string>;
  readonly repo: string;
  /** Drop the connection after this many bytes on the first download of each .onnx file. */
  readonly dropAfterBytes?: number;
  /** Serve .onnx files with flipped bytes, so their sha256 does not match the listing. */
  readonly corrupt?: boolean;
  /** Require this bearer token. */
  readonly token?: string;
  /** Revisions the repo answers for (default ["main"]). */
  readonly revisions?: readonly string[];
  /** Rewrites the revision answer before it is sent: how a test plays a malicious hub. */
  readonly rewriteInfo?: (info: HubRevisionInfo) => unknown;
  /** Never answer this kind of request (no headers, connection held open): the listing, or every file. */
  readonly hang?: "listing" | "files";
  /** Send the headers and this many bytes of each .onnx file, then nothing more (the connection stays open). */
  readonly stallAfterBytes?: number;
  /** Send this many bytes more than listed after each .onnx file, with a Content-Length that says so unless `undeclared`. */
  readonly extraBytes?: number;
  /** With extraBytes: send no Content-Length (chunked), so only the bytes themselves tell. */
  readonly undeclared?: boolean;
  /** Further repositories served as given (path → content), at "main": a repository a model borrows files from. */
  readonly others?: ReadonlyArray<{ readonly repo: string; readonly files: ReadonlyMap<string, Buffer | string> }>;
}

/** The hub's answer for a revision: the commit and the files with their sizes and LFS hashes. */
export interface HubRevisionInfo {
  id: string;
  sha: string;
  siblings: Array<{ rfilename: string; size: number; lfs?: { sha256: string; size: number } }>;
}

/** The commit every revision of the test hub resolves to. */
export const HUB_SHA = "0123456789abcdef0123456789abcdef01234567";

export interface HubServer {
  readonly url: string;
  /** Every request: method, path and Range header. */
  readonly requests: Array<{ path: string; range: string | undefined }>;
}

function files(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((name) => {
    const rel = prefix ? `${prefix}/${name}` : name;
    return statSync(join(dir, name)).isDirectory() ? files(join(dir, name), rel) : [rel];
  });
}

/** A listing's siblings: sizes, and LFS hashes for the kinds of file the Hub keeps in LFS. */
function siblingsOf(content: ReadonlyMap<string, Buffer>): HubRevisionInfo["siblings"] {
  return [...content].map(([name, buf]) => ({
    rfilename: name,
    size: buf.length,
    ...(/\.(onnx|onnx_data|bin|safetensors|h5|model|xml)$/.test(name) ? { lfs: { sha256: createHash("sha256").update(buf).digest("hex"), size: buf.length } } : {}),
  }));
}

/** Answers a request for one of `others`: its listing, or one of its files whole. */
function serveOther(other: { readonly repo: string; readonly files: ReadonlyMap<string, Buffer | string> }, path: string, res: ServerResponse): void {
  const content = new Map([...other.files].map(([k, v]) => [k, Buffer.isBuffer(v) ? v : Buffer.from(v)]));
  if (path.startsWith("/api/models/")) {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: other.repo, sha: HUB_SHA, siblings: siblingsOf(content) }));
    return;
  }
  const body = content.get(path.slice(`/${other.repo}/resolve/${HUB_SHA}/`.length));
  if (!body) res.writeHead(404).end();
  else res.writeHead(200, { "content-length": String(body.length) }).end(body);
}

/**
 * A local server with the Hugging Face Hub's URL layout: /api/models/{repo}/revision/{rev}
 * (with sizes and LFS sha256 per file) and /{repo}/resolve/{rev}/{path} with Range support.
 * A `dir` is served with its onnx/model.onnx also as onnx/model_quantized.onnx; `files` are
 * served as given. Closed when the test ends.
 */
export async function startHubServer(options: HubServerOptions): Promise<HubServer> {
  const content = new Map<string, Buffer>();
  if (options.files) {
    for (const [name, body] of options.files) content.set(name, Buffer.isBuffer(body) ? body : Buffer.from(body));
  } else if (options.dir) {
    for (const f of files(options.dir).filter((f) => f !== "reference.json")) content.set(f, readFileSync(join(options.dir, f)));
    const graph = content.get("onnx/model.onnx");
    if (graph) content.set("onnx/model_quantized.onnx", graph);
  }
  const dropped = new Set<string>();
  const requests: HubServer["requests"] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? "").split("?")[0] ?? "");
    requests.push({ path, range: req.headers.range });
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401).end();
      return;
    }
    const isListing = path.startsWith("/api/models/");
    if (options.hang === (isListing ? "listing" : "files")) return;
    const other = options.others?.find((o) => path === `/api/models/${o.repo}/revision/main` || path.startsWith(`/${o.repo}/resolve/${HUB_SHA}/`));
    if (other) {
      serveOther(other, path, res);
      return;
    }
    if ((options.revisions ?? ["main"]).some((r) => path === `/api/models/${options.repo}/revision/${r}`)) {
      const info: HubRevisionInfo = { id: options.repo, sha: HUB_SHA, siblings: siblingsOf(content) };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(options.rewriteInfo ? options.rewriteInfo(info) : info));
      return;
    }
    const prefix = `/${options.repo}/resolve/${HUB_SHA}/`;
    if (!path.startsWith(prefix)) {
      res.writeHead(404).end();
      return;
    }
    const name = path.slice(prefix.length);
    let body = content.get(name);
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    if (options.corrupt && name.endsWith(".onnx")) body = Buffer.from(body.map((b) => b ^ 0xff));
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    const start = range ? Number(range[1]) : 0;
    if (start >= body.length && range) {
      res.writeHead(416).end();
      return;
    }
    if (options.extraBytes !== undefined && name.endsWith(".onnx")) {
      const longer = Buffer.concat([body.subarray(start), Buffer.alloc(options.extraBytes, 0x41)]);
      res.writeHead(range ? 206 : 200, options.undeclared ? {} : { "content-length": String(longer.length) });
      res.end(longer);
      return;
    }
    const slice = body.subarray(start);
    if (options.stallAfterBytes !== undefined && name.endsWith(".onnx")) {
      res.writeHead(range ? 206 : 200, { "content-length": String(slice.length) });
      res.write(slice.subarray(0, options.stallAfterBytes));
      return;
    }
    res.writeHead(range ? 206 : 200, { "content-length": String(slice.length), ...(range ? { "content-range": `bytes ${start}-${body.length - 1}/${body.length}` } : {}) });
    if (options.dropAfterBytes !== undefined && name.endsWith(".onnx") && !dropped.has(name)) {
      dropped.add(name);
      res.write(slice.subarray(0, options.dropAfterBytes), () => res.destroy());
      return;
    }
    res.end(slice);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}
