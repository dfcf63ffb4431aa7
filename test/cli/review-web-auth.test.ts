import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { createReviewAuth } from "../../src/cli/review/web-auth.ts";

const TOKEN = "a-review-token-of-32-characters!";
const request = (authorization: string): IncomingMessage => ({ headers: { authorization } }) as unknown as IncomingMessage;

describe("the review page's bearer header", () => {
  it("is read as the collector reads it: the token after Bearer and spaces or tabs", () => {
    const auth = createReviewAuth({ token: TOKEN, now: () => 0 });
    expect(auth.authorized(request(`Bearer ${TOKEN}`))).toBe(true);
    expect(auth.authorized(request(`bearer\t${TOKEN}`))).toBe(true);
    expect(auth.authorized(request("Bearer wrong-token-wrong-token!!"))).toBe(false);
  });

  it("is refused when a no-break space (or any separator but a space or tab) follows the scheme, as the collector refuses it", () => {
    const auth = createReviewAuth({ token: TOKEN, now: () => 0 });
    expect(auth.authorized(request(`Bearer\u00a0${TOKEN}`))).toBe(false);
  });
});
