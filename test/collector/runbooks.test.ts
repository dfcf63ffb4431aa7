import { existsSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import { describe, expect, it, onTestFinished } from "vitest";
import { parse } from "yaml";
import { RUNBOOKS_PATH, headingId, renderInline, renderMarkdown, runbooksHandler, runbooksPage } from "../../src/collector/runbooks.ts";
import { startCollector } from "../../src/collector/server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENV = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };
const TOKEN = "0123456789abcdef-runbooks-token";
const DEFAULT_BASE = "http://127.0.0.1:4319/runbooks";

interface Rule {
  alert?: string;
  annotations?: Record<string, string>;
}
const alerts = (): Rule[] =>
  (parse(readFileSync(join(ROOT, "alerts", "rules.yml"), "utf8")) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules).filter((r) => r.alert !== undefined);

describe("runbooks: Markdown to HTML", () => {
  it("gives headings GitHub's anchors, the fragments the alerts link to", () => {
    expect(headingId("GroundwatchHallucinationRateHigh")).toBe("groundwatchhallucinationratehigh");
    expect(headingId("Traces received but not scored (collector)")).toBe("traces-received-but-not-scored-collector");
    expect(renderMarkdown("## GroundwatchNoEvaluations\n\n## Same\n\n## Same")).toBe('<h2 id="groundwatchnoevaluations">GroundwatchNoEvaluations</h2>\n<h2 id="same">Same</h2>\n<h2 id="same-1">Same</h2>');
  });

  it("renders paragraphs, numbered and nested bullet lists with continuation lines, and code blocks", () => {
    const html = renderMarkdown("Intro line\nwrapped.\n\n1. first\n   continued\n2. second\n\n- a\n  - a.1\n  - a.2\n- b\n\n```sh\nx <y>\n```\n\n---");
    expect(html).toBe(
      [
        "<p>Intro line\nwrapped.</p>",
        "<ol>",
        "<li>first\ncontinued</li>",
        "<li>second</li>",
        "</ol>",
        "<ul>",
        "<li>a",
        "<ul>",
        "<li>a.1</li>",
        "<li>a.2</li>",
        "</ul>",
        "</li>",
        "<li>b</li>",
        "</ul>",
        "<pre><code>x &lt;y&gt;</code></pre>",
        "<hr>",
      ].join("\n"),
    );
  });

  it("renders pipe tables", () => {
    expect(renderMarkdown("| a | `b\\|c` |\n|---|:-:|\n| 1 | **2** |\n| x \\| y |\n\nafter")).toBe(
      "<table>\n<thead><tr><th>a</th><th><code>b|c</code></th></tr></thead>\n<tbody>\n<tr><td>1</td><td><strong>2</strong></td></tr>\n<tr><td>x | y</td><td></td></tr>\n</tbody>\n</table>\n<p>after</p>",
    );
  });

  it("escapes HTML everywhere, keeps code spans literal, and links only safe URLs", () => {
    expect(renderInline("<script>alert(1)</script> & \"q\"")).toBe("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;");
    expect(renderInline("**bold** *em* `a **not bold** <b>`")).toBe("<strong>bold</strong> <em>em</em> <code>a **not bold** &lt;b&gt;</code>");
    expect(renderInline("[ok](https://example.com/a?b=1&c=2) [frag](#x) [rel](docs/a.md)")).toBe('<a href="https://example.com/a?b=1&amp;c=2">ok</a> <a href="#x">frag</a> <a href="docs/a.md">rel</a>');
    expect(renderInline("[bad](javascript:alert) [bad2](JavaScript:x) [bad3](data:text/html,x)")).toBe("bad bad2 bad3");
    expect(renderInline('[x](https://e.com/"onmouseover=alert)')).toBe('<a href="https://e.com/&quot;onmouseover=alert">x</a>');
    const page = runbooksPage("# <img src=x onerror=alert(1)>\n\n## A\n");
    expect(page).not.toContain("<img");
    expect(page).toContain('<a href="#a">A</a>');
  });
});

describe("runbooks: the alerts' links", () => {
  it("every alert links to an absolute URL: the groundwatch_runbook_base external label, else the documented default, and its own anchor", () => {
    const list = alerts();
    expect(list.length).toBeGreaterThan(5);
    for (const a of list) {
      const anchor = a.alert!.toLowerCase();
      expect(a.annotations?.runbook_url, a.alert).toBe(`{{ with $externalLabels.groundwatch_runbook_base }}{{ . }}{{ else }}${DEFAULT_BASE}{{ end }}#${anchor}`);
    }
  });

  it("the packaged runbooks have an entry for every alert, at the anchor its link names", () => {
    expect(RUNBOOKS_PATH).toBe(join(ROOT, "docs", "runbooks.md"));
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files: string[] };
    // Shipped: named alone, or with the whole docs/ folder.
    expect(pkg.files.some((f) => f === "docs/runbooks.md" || f === "docs/" || f === "docs")).toBe(true);
    const html = runbooksPage(readFileSync(RUNBOOKS_PATH, "utf8"));
    for (const a of alerts()) expect(html, a.alert).toContain(`<h2 id="${a.alert!.toLowerCase()}">${a.alert}</h2>`);
  });

  it("the runbooks state every volume guard with its default, as alerts/rules.yml records it", () => {
    const groups = (parse(readFileSync(join(ROOT, "alerts", "rules.yml"), "utf8")) as { groups: Array<{ name: string; rules: Array<{ record?: string; expr: string }> }> }).groups;
    const guards = groups.find((g) => g.name === "groundwatch-volume-guards")?.rules ?? [];
    expect(guards.length).toBeGreaterThan(0);
    const doc = readFileSync(RUNBOOKS_PATH, "utf8");
    for (const g of guards) {
      const value = /^vector\((\d+)\)$/.exec(g.expr.trim())?.[1];
      expect(value, g.record).toBeDefined();
      expect(doc.includes(`| \`${g.record}\` | ${value} |`), `${g.record} = ${value} in the runbooks' table`).toBe(true);
    }
  });

  it("the stack's Prometheus sets the base to where its collector serves them", () => {
    const prom = parse(readFileSync(join(ROOT, "alerts", "prometheus.yml"), "utf8")) as { global: { external_labels?: Record<string, string> } };
    expect(prom.global.external_labels?.groundwatch_runbook_base).toBe(DEFAULT_BASE);
  });

  it("the hallucination alerts link the runbook section of the dominant cause, and the runbooks have one for every cause", () => {
    const html = runbooksPage(readFileSync(RUNBOOKS_PATH, "utf8"));
    // The values of groundwatch_cause (issue 27's names).
    for (const cause of ["retrieval", "generation", "citation", "mixed", "unknown"]) expect(html, cause).toContain(`<h3 id="cause-${cause}">Cause: ${cause}</h3>`);
    for (const [name, window] of [["GroundwatchHallucinationRateHigh", "1h"], ["GroundwatchHallucinationRateElevated", "6h"]] as const) {
      const description = alerts().find((a) => a.alert === name)?.annotations?.description ?? "";
      expect(description, name).toContain(`groundwatch:ungrounded_cause_share:ratio_rate${window}`);
      expect(description, name).toContain(`{{ with $externalLabels.groundwatch_runbook_base }}{{ . }}{{ else }}${DEFAULT_BASE}{{ end }}#cause-{{ .Labels.groundwatch_cause }}`);
    }
  });

  it("the alerts behind flagged answers link them and their trace search, from external labels with documented defaults", () => {
    const linked = alerts().filter((a) => a.annotations?.flagged_url !== undefined || a.annotations?.traces_url !== undefined);
    expect(linked.map((a) => a.alert).sort()).toEqual(["GroundwatchContextRelevanceDrop", "GroundwatchHallucinationRateElevated", "GroundwatchHallucinationRateHigh"]);
    for (const a of linked) {
      expect(a.annotations?.flagged_url, a.alert).toMatch(/^\{\{ with \$externalLabels\.groundwatch_collector_base \}\}\{\{ \. \}\}\{\{ else \}\}http:\/\/127\.0\.0\.1:4319\{\{ end \}\}\/v1\/flagged\?route=\{\{ \$labels\.groundwatch_route \| urlquery \}\}/);
      expect(a.annotations?.traces_url, a.alert).toMatch(/^\{\{ with \$externalLabels\.groundwatch_jaeger_base \}\}\{\{ \. \}\}\{\{ else \}\}http:\/\/127\.0\.0\.1:16686\{\{ end \}\}\/search\?service=/);
      expect(a.annotations?.traces_url, a.alert).toContain("{{ with $externalLabels.groundwatch_trace_service }}{{ . | urlquery }}{{ else }}groundwatch-collector{{ end }}");
    }
    const doc = readFileSync(RUNBOOKS_PATH, "utf8");
    for (const label of ["groundwatch_collector_base", "groundwatch_jaeger_base", "groundwatch_trace_service"]) expect(doc, label).toContain(`\`${label}\``);
  });

  it("every summary and description shows the route label with the characters Slack and Markdown render replaced, never raw (alerts/rules_test.yml renders a hostile one)", () => {
    const SHOWN = '{{ $route := $labels.groundwatch_route | reReplaceAll "[][<>|*`~@]" "\uFFFD" }}';
    let withRoute = 0;
    for (const a of alerts()) {
      for (const key of ["summary", "description"]) {
        const text = a.annotations?.[key] ?? "";
        // The raw label appears only as a PromQL string (printf %q … | query), never as text.
        expect(text.replace(/printf (?:`[^`]*`|\\?"[^"]*") \$labels\.groundwatch_route \|/g, ""), `${a.alert ?? ""} ${key}`).not.toMatch(/\$labels\.groundwatch_route(?! \| reReplaceAll)/);
        if (!text.includes("$route")) continue;
        withRoute++;
        expect(text.startsWith(SHOWN), `${a.alert ?? ""} ${key}`).toBe(true);
      }
    }
    expect(withRoute).toBe(18);
  });
});

describe("runbooks: GET /runbooks on the collector", () => {
  it("serves the rendered runbooks without a token (ingest and /metrics still need one)", async () => {
    const c = await startCollector({ env: ENV, port: 0, token: TOKEN, monitor: { sampling: { default: 1 }, scoring: { backend: "offline" } } });
    onTestFinished(() => c.close(2000));
    const res = await fetch(`${c.url}/runbooks`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await res.text();
    expect(html.startsWith("<!doctype html>")).toBe(true);
    for (const a of alerts()) expect(html).toContain(`id="${a.alert!.toLowerCase()}"`);
    expect(html).toBe(runbooksPage(readFileSync(RUNBOOKS_PATH, "utf8")));
    // A second request is served from the rendered copy, and HEAD answers too.
    expect((await fetch(`${c.url}/runbooks`)).status).toBe(200);
    expect((await fetch(`${c.url}/runbooks`, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(`${c.url}/metrics`)).status).toBe(401);
  });

  it("answers 404 when the runbooks file is missing, and serves it once it is there", async () => {
    const app = express();
    const missing = join(ROOT, "docs", "no-such-runbooks.md");
    expect(existsSync(missing)).toBe(false);
    app.get("/runbooks", runbooksHandler(missing));
    app.get("/present", runbooksHandler(RUNBOOKS_PATH));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const res = await fetch(`${base}/runbooks`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toMatch(/runbooks not available/);
    expect((await fetch(`${base}/present`)).status).toBe(200);
  });
});
