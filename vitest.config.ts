import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    // Tests wait for events, not for fixed times: on a busy CI machine a worker's start and a first
    // check can take well over expect.poll's default 1 s, so a poll waits up to 15 s (it returns as
    // soon as the condition holds).
    expect: { poll: { timeout: 15_000 } },
  },
});
