import { describe, expect, it } from "vitest";
import { asPlainObject, isPlainObject } from "../../src/core/plain-object.ts";

describe("a plain object", () => {
  it("is an object that is neither null nor an array", () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject({ a: 1 })).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    for (const v of [null, undefined, [], [1], "x", "", 0, 1, true, false]) expect(isPlainObject(v)).toBe(false);
  });

  it("is handed back as it is, and anything else as undefined", () => {
    const o = { a: 1 };
    expect(asPlainObject(o)).toBe(o);
    for (const v of [null, undefined, [], "x", 0, false]) expect(asPlainObject(v)).toBeUndefined();
  });
});
