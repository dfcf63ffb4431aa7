import { createHash } from "node:crypto";
import { createReadStream, lstatSync, renameSync, unlinkSync } from "node:fs";
import { createHttpClient } from "../../net/bounded-fetch.ts";
import { BodyTooLargeError } from "../../net/read-capped.ts";
import { redactSecrets } from "../../net/redact.ts";
import { NonRetryable } from "../../net/retry.ts";
import { HubError } from "./errors.ts";
import { openPartial } from "./safe-fs.ts";

/** One file to fetch from the hub into `dest`, as the listing describes it. */
export interface FileDownload {
  /** The file's path in the repository (for messages and progress). */
  readonly path: string;
  readonly url: string;
  /** Where it goes; `${dest}.incomplete` holds it while it arrives. */
  readonly dest: string;
  /** The size the hub listed: nothing past it is written. */
  readonly size: number;
  /** The sha256 the hub listed (LFS files), checked before the file is moved into place. */
  readonly sha256: string | undefined;
}

/** How to fetch: the hub's rules for every file of a pull. */
export interface DownloadSettings {
  /** Sent with every request (user agent, the hub token). */
  readonly headers: Readonly<Record<string, string>>;
  /** The fetch used. */
  readonly fetch: typeof fetch;
  /** Attempts per file when the connection drops, stalls or the server fails. */
  readonly attempts: number;
  /** Delay before attempt k + 1 is backoffMs × 2ᵏ⁻¹ (exponentialBackoff). */
  readonly backoffMs: number;
  /** How long to wait for the response headers of each request, ms. */
  readonly timeoutMs: number;
  /** How long a body may send nothing before the attempt is given up (and later resumed), ms. */
  readonly idleTimeoutMs: number;
  /** Called as bytes arrive. */
  readonly onProgress?: ((p: { file: string; received: number; total: number | undefined }) => void) | undefined;
}

export interface DownloadedFile {
  readonly bytes: number;
  readonly status: "downloaded" | "resumed";
  readonly sha256: string;
}

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * Downloads one file: written to `.incomplete` (opened without following links, resumed with a
 * Range request after an interruption), never past the listed size, checked against the size and
 * sha256, then renamed into place (a link at the destination is replaced, not followed). A hub that
 * never answers or stalls mid-body costs one attempt each; a body longer than listed is refused.
 */
export async function downloadFile(file: FileDownload, s: DownloadSettings): Promise<DownloadedFile> {
  const partial = `${file.dest}.incomplete`;
  // A file may take long to arrive while it keeps moving: no bound on the whole request, only on its headers and silences.
  const http = createHttpClient({ fetch: s.fetch, headersMs: s.timeoutMs, idleMs: s.idleTimeoutMs, totalMs: Infinity, retry: { attempts: s.attempts, backoffMs: s.backoffMs } });
  let resumed = false;
  const attempt = async (): Promise<DownloadedFile> => {
    const { handle, have: had } = await openPartial(partial);
    let have = had;
    let tooLarge: BodyTooLargeError | undefined;
    try {
      if (have > file.size) {
        await handle.truncate(0);
        have = 0;
      }
      if (have < file.size) {
        const res = await http.request(file.url, { headers: have > 0 ? { ...s.headers, range: `bytes=${have}-` } : s.headers });
        if (res.status !== 200 && res.status !== 206) res.discard();
        if (res.status === 401 || res.status === 403) throw new HubError(`${file.path}: the hub refused access (HTTP ${res.status}); set HF_TOKEN`);
        if (res.status === 404) throw new HubError(`${file.path}: not found at ${file.url}`);
        if (res.status === 416 && have > 0) {
          // The partial file does not fit the file the hub has: start over.
          await handle.truncate(0);
          throw new Error("range not satisfiable; restarting");
        }
        if (res.status !== 200 && res.status !== 206) throw new Error(`HTTP ${res.status}`);
        const append = res.status === 206 && have > 0;
        if (!append && have > 0) {
          await handle.truncate(0);
          have = 0;
        }
        resumed ||= append;
        let received = have;
        const tooLargeMessage = `${file.path}: the hub sent more than the ${file.size} bytes it listed; the download was stopped there and removed`;
        try {
          await res.pipe(
            async (chunk) => {
              await handle.write(chunk);
              received += chunk.byteLength;
              s.onProgress?.({ file: file.path, received, total: file.size });
            },
            { maxBytes: file.size - have, tooLargeMessage },
          );
        } catch (error) {
          if (!(error instanceof BodyTooLargeError)) throw error;
          tooLarge = error;
        }
      }
    } finally {
      await handle.close();
    }
    if (tooLarge) {
      unlinkSync(partial);
      throw new HubError(tooLarge.message);
    }
    const size = lstatSync(partial).size;
    if (size !== file.size) throw new Error(`got ${size} of ${file.size} bytes`);
    const actual = await sha256Of(partial);
    if (file.sha256 && actual !== file.sha256) {
      unlinkSync(partial);
      throw new HubError(`${file.path}: sha256 mismatch (expected ${file.sha256}, got ${actual}); the partial file was removed, run the pull again`);
    }
    renameSync(partial, file.dest);
    return { bytes: size, status: resumed ? "resumed" : "downloaded", sha256: actual };
  };
  try {
    return await http.retry(attempt);
  } catch (error) {
    // A HubError (a refusal, a file longer than listed, a checksum mismatch) is not retried and says why itself.
    if (error instanceof NonRetryable) throw error;
    throw new HubError(`${file.path}: download failed after ${s.attempts} attempts (${redactSecrets((error as Error | undefined)?.message ?? "no answer")}); run the pull again to resume`);
  }
}
