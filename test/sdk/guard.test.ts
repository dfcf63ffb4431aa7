import { describe, expect, it } from "vitest";
import { isConfigError } from "../../src/config/errors.ts";
import { createMonitor } from "../../src/sdk/monitor.ts";
import { DEFAULT_GUARD_REPLACEMENT } from "../../src/sdk/guard-options.ts";
import type { GuardDecision } from "../../src/sdk/guard-types.ts";
import { MONITOR_TEST_ENV, testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";

/** The offline backend finds each sentence below supported, contradicted or unsupported by this context (checked once, held here). */
const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund. Shipping is free on orders over $50."];
const GROUNDED = "Returns are accepted within 30 days of delivery.";
const INVENTED = "Returns are accepted within 90 days of delivery.";
/** A supported sentence, then a contradicted one ($20 for $50), then one the context does not hold. */
const MIXED = "Returns are accepted within 30 days of delivery. Shipping is free on orders over $20. Refunds take 10 business days.";
/** Generous: budgets here are seconds, so that a loaded machine still scores within them. */
const BUDGET = { budgetMs: 20_000 };

/** Narrows a decision to one kind, or fails the test saying what came instead. */
function as<K extends GuardDecision["decision"]>(decision: GuardDecision, kind: K): Extract<GuardDecision, { decision: K }> {
  expect(decision.decision, JSON.stringify({ ...decision, evaluation: undefined })).toBe(kind);
  return decision as Extract<GuardDecision, { decision: K }>;
}

describe("Monitor.guard", () => {
  it("passes a grounded answer unchanged, with its score and evaluation", async () => {
    const monitor = testMonitor(testOtel());
    const pass = as(await monitor.guard({ route: "/api/returns", context: CONTEXT, answer: GROUNDED }, BUDGET), "pass");
    expect(pass).toMatchObject({ text: GROUNDED, route: "/api/returns", evaluation: { verdict: "grounded" } });
    expect(pass.score).toBeGreaterThan(0.5);
    expect(pass.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("blocks an answer with an invented number, sending the replacement and naming the claim's offsets", async () => {
    const monitor = testMonitor(testOtel());
    const block = as(await monitor.guard({ route: "/api/returns", context: CONTEXT, answer: INVENTED }, BUDGET), "block");
    expect(block.text).toBe(DEFAULT_GUARD_REPLACEMENT);
    expect(block.replacement).toBe(DEFAULT_GUARD_REPLACEMENT);
    expect(block.claims).toEqual([expect.objectContaining({ verdict: "contradicted", start: 0, end: INVENTED.length })]);
    expect(block.evaluation.verdict).toBe("ungrounded");
  });

  it("blocks with the configured replacement (a call's option over the monitor's)", async () => {
    const monitor = testMonitor(testOtel(), { guard: { replacement: "Please ask our support team." } });
    expect((await monitor.guard({ route: "/r", context: CONTEXT, answer: INVENTED }, BUDGET)).text).toBe("Please ask our support team.");
    expect((await monitor.guard({ route: "/r", context: CONTEXT, answer: INVENTED }, { ...BUDGET, replacement: "No." })).text).toBe("No.");
  });

  it("corrects by removing the unsupported claims", async () => {
    const monitor = testMonitor(testOtel());
    const correct = as(await monitor.guard({ route: "/r", context: CONTEXT, answer: MIXED }, { ...BUDGET, action: "correct" }), "correct");
    expect(correct.text).toBe("Returns are accepted within 30 days of delivery.");
    expect(correct.answer).toBe(correct.text);
    expect(correct.correction).toBe("remove");
    expect(correct.ranges).toEqual([
      { start: 49, end: 85 },
      { start: 86, end: 116 },
    ]);
    expect(correct.claims.map((c) => c.verdict)).toEqual(["contradicted", "unsupported"]);
  });

  it("corrects by marking the unsupported claims with the configured marker", async () => {
    const monitor = testMonitor(testOtel(), { guard: { action: "correct", correction: "mark" } });
    expect(as(await monitor.guard({ route: "/r", context: CONTEXT, answer: MIXED }, BUDGET), "correct").text).toBe(
      "Returns are accepted within 30 days of delivery. [unverified: Shipping is free on orders over $20.] [unverified: Refunds take 10 business days.]",
    );
    expect(as(await monitor.guard({ route: "/r", context: CONTEXT, answer: MIXED }, { ...BUDGET, marker: { open: "~~", close: "~~" } }), "correct").text).toBe(
      "Returns are accepted within 30 days of delivery. ~~Shipping is free on orders over $20.~~ ~~Refunds take 10 business days.~~",
    );
  });

  it("blocks instead of correcting when no claim of the answer is supported", async () => {
    const monitor = testMonitor(testOtel());
    expect((await monitor.guard({ route: "/r", context: CONTEXT, answer: INVENTED }, { ...BUDGET, action: "correct" })).decision).toBe("block");
  });

  it("bypasses an answer over the scorer's limits without scoring it: fail closed by default, the answer with onFail pass", async () => {
    const monitor = testMonitor(testOtel(), { scoring: { backend: "offline", maxAnswerChars: 100 } });
    const long = `${GROUNDED} ${"It is so. ".repeat(10)}`;
    const closed = as(await monitor.guard({ route: "/r", context: CONTEXT, answer: long }, BUDGET), "bypass");
    expect(closed).toMatchObject({ reason: "over_limits", outcome: "block", text: DEFAULT_GUARD_REPLACEMENT, replacement: DEFAULT_GUARD_REPLACEMENT });
    expect(closed.evaluation).toBeUndefined();
    const open = as(await monitor.guard({ route: "/r", context: CONTEXT, answer: long }, { ...BUDGET, onFail: "pass" }), "bypass");
    expect(open).toMatchObject({ reason: "over_limits", outcome: "pass", text: long });
    expect(open.replacement).toBeUndefined();
  });

  it("bypasses an unscorable answer (no context) with the scorer's reason", async () => {
    const monitor = testMonitor(testOtel());
    const bypass = as(await monitor.guard({ route: "/r", context: [], answer: GROUNDED }, BUDGET), "bypass");
    expect(bypass).toMatchObject({ reason: "unscorable", unscorableReason: "empty_context", outcome: "block" });
  });

  it("never throws into the host: unreadable input and bad options are bypasses naming the field", async () => {
    const monitor = testMonitor(testOtel());
    const hostile = {
      route: "/r",
      context: CONTEXT,
      get answer(): string {
        throw new Error("boom");
      },
    };
    expect(as(await monitor.guard(hostile), "bypass")).toMatchObject({ reason: "invalid_input", detail: expect.stringContaining('"answer"') as unknown, outcome: "block" });
    expect(as(await monitor.guard({ route: "/r", context: CONTEXT, answer: GROUNDED }, { budgetMs: -1 }), "bypass")).toMatchObject({ reason: "invalid_input", detail: expect.stringContaining("guard.budgetMs") as unknown });
    expect(as(await monitor.guard(null as never, { onFail: "pass" }), "bypass")).toMatchObject({ reason: "invalid_input", outcome: "pass", text: "" });
    // Bad options fall back to the monitor's onFail; with pass, the answer goes through unchecked.
    const failOpen = testMonitor(testOtel(), { guard: { onFail: "pass" } });
    expect(as(await failOpen.guard({ route: "/r", context: CONTEXT, answer: GROUNDED }, { action: "rewrite" as never }), "bypass")).toMatchObject({ reason: "invalid_input", outcome: "pass", text: GROUNDED });
  });

  it("still decides when the host's own clock throws: a bypass, internal_error, failing closed", async () => {
    let broken = false;
    const monitor = testMonitor(testOtel(), {
      now: () => {
        if (broken) throw new Error("clock gone");
        return performance.now();
      },
    });
    broken = true;
    expect(as(await monitor.guard({ route: "/r", context: CONTEXT, answer: GROUNDED }, BUDGET), "bypass")).toMatchObject({ reason: "internal_error", outcome: "block", text: DEFAULT_GUARD_REPLACEMENT });
    broken = false;
  });

  it("decides on the input as it was at the call: the host changing it afterwards changes nothing", async () => {
    const monitor = testMonitor(testOtel());
    const input = { route: "/r", context: [...CONTEXT], answer: GROUNDED };
    const pending = monitor.guard(input, BUDGET);
    input.answer = INVENTED;
    input.context[0] = "Nothing is known about returns.";
    input.context.push("Returns are never accepted.");
    expect(as(await pending, "pass").text).toBe(GROUNDED);
  });

  it("bypasses every check after shutdown, reason closed", async () => {
    const monitor = createMonitor({ env: MONITOR_TEST_ENV, scoring: { backend: "offline" } });
    await monitor.shutdown(1000);
    expect(as(await monitor.guard({ route: "/r", context: CONTEXT, answer: GROUNDED }, BUDGET), "bypass")).toMatchObject({ reason: "closed", outcome: "block", text: DEFAULT_GUARD_REPLACEMENT });
    expect(as(await monitor.guard({ route: "/r", context: CONTEXT, answer: GROUNDED }, { onFail: "pass" }), "bypass")).toMatchObject({ reason: "closed", outcome: "pass", text: GROUNDED });
  });

  it("counts every decision per route label and in total, apart from the observations", async () => {
    const monitor = testMonitor(testOtel());
    await monitor.guard({ route: "/a", context: CONTEXT, answer: GROUNDED }, BUDGET);
    await monitor.guard({ route: "/a", context: CONTEXT, answer: INVENTED }, BUDGET);
    await monitor.guard({ route: "/b", context: CONTEXT, answer: MIXED }, { ...BUDGET, action: "correct" });
    await monitor.guard({ route: "/b", context: [], answer: GROUNDED }, BUDGET);
    const stats = monitor.stats();
    expect(stats.guard).toMatchObject({ pass: 1, block: 1, correct: 1, bypass: { unscorable: 1, budget_exceeded: 0 } });
    expect(stats.guard.routes["/a"]).toMatchObject({ pass: 1, block: 1, correct: 0 });
    expect(stats.guard.routes["/b"]).toMatchObject({ pass: 0, correct: 1, bypass: { unscorable: 1 } });
    expect(stats).toMatchObject({ seen: 0, sampled: 0, scored: 0 });
  });

  it("refuses bad guard defaults at createMonitor, naming the field", () => {
    let error: unknown;
    try {
      createMonitor({ env: MONITOR_TEST_ENV, scoring: { backend: "offline" }, guard: { onFail: "maybe" as never } });
    } catch (e) {
      error = e;
    }
    expect(isConfigError(error) && error.field).toBe("guard.onFail");
  });
});
