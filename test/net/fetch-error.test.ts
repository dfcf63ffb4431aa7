import { describe, expect, it } from "vitest";
import { fetchFailure } from "../../src/net/fetch-error.ts";
import { closedPort } from "../helpers/net.ts";

describe("fetch failures", () => {
  it("say what happened, not only that the fetch failed", async () => {
    const port = await closedPort();
    const error = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(fetchFailure(error)).toMatch(/^fetch failed \(.*ECONNREFUSED/);
  });

  it("keep a plain error's message as it is", () => {
    expect(fetchFailure(new Error("bad gateway"))).toBe("bad gateway");
    expect(fetchFailure("down")).toBe("down");
  });
});
