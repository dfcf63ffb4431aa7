/** One sample of the Prometheus text format. */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses the Prometheus text exposition format (comments skipped; label values unescaped). */
export function parsePromText(text: string): PromSample[] {
  const out: PromSample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m?.[1] || m[3] === undefined) continue;
    const labels: Record<string, string> = {};
    // A label name starts after a non-word character: tried from inside a word, as it was, a run of
    // word characters with no "=" was re-read from each of its characters (quadratic: 40 KB took 3.5 s).
    for (const l of (m[2] ?? "").matchAll(/(?<!\w)([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) {
      if (l[1]) labels[l[1]] = (l[2] ?? "").replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    }
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

export interface RouteSummary {
  readonly route: string;
  readonly grounded: number;
  readonly ungrounded: number;
  readonly unscorable: number;
  /** Ungrounded share of scorable answers. */
  readonly hallucinationRate: number;
  readonly meanScore: number;
}

/** Per-route hallucination rate and mean groundedness from groundwatch's exported metrics. */
export function summariseRoutes(samples: readonly PromSample[]): RouteSummary[] {
  const byRoute = new Map<string, { grounded: number; ungrounded: number; unscorable: number; sum: number; count: number }>();
  const get = (route: string) => {
    let r = byRoute.get(route);
    if (!r) byRoute.set(route, (r = { grounded: 0, ungrounded: 0, unscorable: 0, sum: 0, count: 0 }));
    return r;
  };
  for (const s of samples) {
    const route = s.labels.groundwatch_route;
    if (route === undefined) continue;
    if (s.name === "groundwatch_evaluations_total") {
      const v = s.labels.groundwatch_verdict;
      if (v === "grounded" || v === "ungrounded" || v === "unscorable") get(route)[v] += s.value;
    } else if (s.name === "groundwatch_groundedness_score_sum") get(route).sum += s.value;
    else if (s.name === "groundwatch_groundedness_score_count") get(route).count += s.value;
  }
  return [...byRoute]
    .map(([route, r]) => ({
      route,
      grounded: r.grounded,
      ungrounded: r.ungrounded,
      unscorable: r.unscorable,
      hallucinationRate: r.grounded + r.ungrounded > 0 ? r.ungrounded / (r.grounded + r.ungrounded) : 0,
      meanScore: r.count > 0 ? r.sum / r.count : 0,
    }))
    .sort((a, b) => a.route.localeCompare(b.route));
}
