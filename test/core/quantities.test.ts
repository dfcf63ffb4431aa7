import { describe, expect, it } from "vitest";
import type { Quantity } from "../../src/core/quantities.ts";
import { extractQuantities, matchAlignedQuantity, matchQuantity } from "../../src/core/quantities.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

const q = (text: string): Quantity[] => extractQuantities(testAnalyzer().analyze(text));
const brief = (text: string): Array<[number, string, string]> => q(text).map((x) => [x.value, x.kind, x.unit]);
const relation = (claim: string, evidence: string): string => {
  const first = q(claim)[0];
  if (!first) throw new Error(`no quantity in ${claim}`);
  return matchQuantity(first, q(evidence)).match;
};

describe("extractQuantities", () => {
  it("normalises spelled-out and digit numbers with units", () => {
    expect(brief("You have thirty days.")).toEqual([[30, "duration", "day"]]);
    expect(brief("You have 30 days.")).toEqual([[30, "duration", "day"]]);
    expect(brief("twenty-five cars and two hundred and five employees")).toEqual([
      [25, "count", "car"],
      [205, "count", "employee"],
    ]);
    expect(brief("1,200 people")).toEqual([[1200, "count", "people"]]);
  });

  it("applies scale words and currencies", () => {
    expect(brief("It cost $160 million.")).toEqual([[160e6, "money", "usd"]]);
    expect(brief("It cost $1.6 billion.")).toEqual([[1.6e9, "money", "usd"]]);
    expect(brief("a fee of 5 million dollars")).toEqual([[5e6, "money", "usd"]]);
  });

  it("converts time units where the conversion is exact", () => {
    expect(brief("4 weeks")).toEqual([[28, "duration", "day"]]);
    expect(brief("45 minutes")).toEqual([[2700, "duration", "second"]]);
  });

  it("reads percentages, years, month-day dates and ordinals", () => {
    expect(brief("Growth was 3.5% in 2021.")).toEqual([
      [3.5, "percent", ""],
      [2021, "year", ""],
    ]);
    expect(brief("12 percent")).toEqual([[12, "percent", ""]]);
    expect(brief("It opened on Jan. 5, 2021.")).toEqual([
      [105, "monthday", ""],
      [2021, "year", ""],
    ]);
    expect(brief("the first prize")).toEqual([[1, "ordinal", ""]]);
  });

  it("does not read words named like the properties every object has as numbers or units (regression: 'the constructor' was an ordinal, '5 constructors' money)", () => {
    expect(brief("It was the constructor of the bridge, and toString was called.")).toEqual([]);
    expect(brief("We hired 5 constructors.")).toEqual([[5, "count", "constructor"]]);
    expect(brief("He paid 5 valueOf.")).toEqual([[5, "count", "valueof"]]);
  });

  it("does not read 'one' as a number in 'one of them'", () => {
    expect(q("It is one of them.")).toEqual([]);
  });

  it("keeps character offsets into the text", () => {
    const text = "Refunds take 5 business days and cost $15.";
    for (const x of q(text)) expect(text.slice(x.start, x.end)).toBe(x.text);
  });
});

describe("matchQuantity", () => {
  it("matches the same value written differently", () => {
    expect(relation("within thirty days", "within 30 days")).toBe("matched");
    expect(relation("on January 5", "on Jan. 5, 2021")).toBe("matched");
    expect(relation("a month of four weeks", "28 days")).toBe("matched");
  });

  it("calls a different value of the same kind a contradiction", () => {
    expect(relation("$160 million", "$1.6 billion")).toBe("contradicted");
    expect(relation("within 90 days", "within 30 days")).toBe("contradicted");
    expect(relation("in 1999", "in 2001")).toBe("contradicted");
  });

  it("calls a value with nothing comparable in the evidence missing", () => {
    expect(relation("within 90 days", "It costs $15.")).toBe("missing");
    expect(relation("12 employees", "15 cars")).toBe("missing");
  });
});

describe("times of day", () => {
  it("reads clock times with and without am/pm as minutes after midnight", () => {
    expect(brief("The store opens at 9 am.")).toEqual([[540, "time", "24h"]]);
    expect(brief("It opens at 9am and closes at 5:30 p.m.")).toEqual([
      [540, "time", "24h"],
      [1050, "time", "24h"],
    ]);
    expect(brief("Doors at 14:00.")).toEqual([[840, "time", "24h"]]);
    expect(brief("Doors at 5:30.")).toEqual([[330, "time", "12h"]]);
    expect(brief("Closed from 12 am to 12 pm.")).toEqual([
      [0, "time", "24h"],
      [720, "time", "24h"],
    ]);
  });

  it("finds a different time of day a contradiction, and a 12-hour time matching either half of the day", () => {
    expect(relation("The store opens at 11 am.", "The store opens at 9 am.")).toBe("contradicted");
    expect(relation("The store opens at 9 am.", "The store opens at 9 a.m. on weekdays.")).toBe("matched");
    expect(relation("It closes at 5:30.", "It closes at 5:30 pm.")).toBe("matched");
    expect(relation("It closes at 17:30.", "It closes at 5:30 pm.")).toBe("matched");
    expect(relation("It closes at 6:30 pm.", "It closes at 5:30 pm.")).toBe("contradicted");
    // A time is never the same quantity as a count: "9 am" is not "9 stores".
    expect(relation("The store opens at 9 am.", "There are 9 stores.")).toBe("missing");
  });
});

describe("quantities of another kind (issue 25)", () => {
  it("does not read a count of a noun as a percentage, an amount or a duration", () => {
    // Regression: "20 projects" matched "20%" (a count matched every kind), and "20% off" scored 0.837.
    expect(relation("Annual billing gives you 20% off.", "The Team plan includes 20 projects.")).toBe("missing");
    expect(relation("It costs $20.", "It includes 20 projects.")).toBe("missing");
    expect(relation("within 20 days", "20 projects")).toBe("missing");
  });

  it("needs the same currency and the same time unit", () => {
    expect(relation("It costs $29.", "It costs 29 euros.")).toBe("missing");
    expect(relation("for 30 days", "for 30 months")).toBe("missing");
    expect(relation("It costs 5 million dollars.", "It costs 5 mln bucks.")).toBe("matched");
  });

  it("still matches a bare number, a count of another noun, and a year or ordinal read as a count", () => {
    expect(relation("It has thirty-five.", "It has 35 rooms.")).toBe("matched");
    expect(relation("870 infections", "870 people were infected")).toBe("matched");
    expect(relation("the first time", "one time")).toBe("matched");
  });

  it("reads a day before its month as a date", () => {
    expect(brief("The event is on 12 November.")).toEqual([[1112, "monthday", ""]]);
    expect(relation("on 12 November", "on November 12")).toBe("matched");
    expect(relation("on 13 November", "on November 12")).toBe("contradicted");
  });
});

describe("matchAlignedQuantity", () => {
  const aligned = q("Deleted projects can be restored within 7 days.");
  const unrelated = q("Logs are kept for 30 days on the Starter plan.");
  const claim = (text: string): Quantity => {
    const [first] = q(text);
    if (!first) throw new Error(`no quantity in ${text}`);
    return first;
  };

  it("contradicts with the aligned sentence's value, and names it", () => {
    const m = matchAlignedQuantity(claim("within 30 days"), aligned, unrelated);
    expect(m.match).toBe("contradicted");
    expect(m.other?.text).toBe("7 days");
  });

  it("calls a value stated only in an unrelated sentence missing, and says where it is", () => {
    const m = matchAlignedQuantity(claim("within 30 days"), q("Deleted projects can be restored."), unrelated);
    expect(m.match).toBe("missing");
    expect(m.elsewhere?.text).toBe("30 days");
  });

  it("matches the aligned sentence's own value", () => {
    expect(matchAlignedQuantity(claim("within seven days"), aligned, unrelated).match).toBe("matched");
  });
});
