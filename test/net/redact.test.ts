import { describe, expect, it } from "vitest";
import { REDACTED, redactSecrets } from "../../src/net/redact.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const KEY = "my-configured-api-key-0123";

describe("redactSecrets: no credential in a logged remote text", () => {
  it.each([
    ["the configured key, verbatim", `echo: ${KEY} end`, `echo: ${REDACTED} end`],
    ["an echoed Authorization header", `{"headers":{"authorization":"Bearer abc.def-ghi"}}`, `{"headers":{"authorization":"Bearer ${REDACTED}"}}`],
    ["a header line", "Authorization: Basic dXNlcjpwYXNz\nHost: x", `Authorization: Basic ${REDACTED}\nHost: x`],
    ["a bare credential field", "api_key=abcdef123; x-api-key: zzz", `api_key=${REDACTED}; x-api-key: ${REDACTED}`],
    ["an OpenAI-style key", "invalid key sk-proj-abcdefghijklmnop1234 given", `invalid key ${REDACTED} given`],
    ["a Hugging Face token", "token hf_abcdefghijklmnopqrstu", `token ${REDACTED}`],
    ["ordinary text", "The model is overloaded; try again later.", "The model is overloaded; try again later."],
  ])("%s", (_what, text, expected) => {
    expect(redactSecrets(text, [KEY])).toBe(expected);
  });

  it("does not search for a configured secret too short to be one (it would match ordinary words)", () => {
    expect(redactSecrets("a test of the key", ["test"])).toBe("a test of the key");
  });

  it("takes time linear in the text, whatever it repeats", () => {
    // 64 repeats against 512: a match over a whole run needs a backtrack stack that grows with it, and
    // past ~100 KB of stack (a few thousand characters) it is memory fresh from the kernel on every run
    // (test/helpers/growth.ts).
    for (const unit of ["Bearer ", "authorization:", "sk-sk-", "authorization:    ", "api_key=\"", "a"]) {
      expectLinear(`redact ${JSON.stringify(unit)}…`, measureGrowth((n) => unit.repeat(n), (text) => redactSecrets(text, [KEY]), { n: 64, maxN: 64 }));
    }
  });
});
