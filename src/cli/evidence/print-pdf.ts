import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** The paper sizes `--paper` takes. */
export const PAPER_SIZES = ["letter", "a4"] as const;
export type PaperSize = (typeof PAPER_SIZES)[number];

/** The CSS page rule that makes Chromium print on this paper (it prints Letter without one). */
export function pageRule(paper: PaperSize): string {
  return `@page{size:${paper === "a4" ? "A4" : "letter"}}`;
}

const CHROMIUM_PATHS = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/**
 * Prints an HTML file (whose CSS sets the paper, pageRule) to `pdf` with headless Chromium. Its
 * profile lives in a temporary folder that is removed afterwards, whatever happens, so nothing
 * is left beside the report. Throws when Chromium is not installed or fails.
 */
export function printPdf(html: string, pdf: string): void {
  const chromium = CHROMIUM_PATHS.find((p) => existsSync(p));
  if (!chromium) throw new Error("--pdf needs headless Chromium (apt-get install chromium); the HTML report was written");
  const profile = mkdtempSync(join(tmpdir(), "groundwatch-chromium-"));
  try {
    execFileSync(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", `--user-data-dir=${profile}`, `--print-to-pdf=${pdf}`, "--no-pdf-header-footer", pathToFileURL(html).href], { stdio: "ignore", timeout: 60_000 });
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
