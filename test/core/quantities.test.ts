import { describe, expect, it } from "vitest";
import type { Quantity } from "../../src/core/quantities.ts";
import { extractQuantities } from "../../src/core/quantities.ts";
import { matchAlignedQuantity, matchQuantity } from "../../src/core/quantity-match.ts";
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

describe("numbers bound to their unit and their noun", () => {
  it("reads a hyphenated unit as the number's unit: a 30-day supply is 30 days, a 3-bedroom flat 3 bedrooms", () => {
    expect(brief("The pharmacy charges $10 for a 30-day supply.")).toEqual([
      [10, "money", "usd"],
      [30, "duration", "day"],
    ]);
    expect(brief("a 3-bedroom flat and a 10-minute walk")).toEqual([
      [3, "count", "bedroom"],
      [600, "duration", "second"],
    ]);
  });

  it("does not let a price match the number of a duration (regression: $30 matched the 30 of '30-day')", () => {
    const evidence = q("The pharmacy charges $10 for a 30-day supply.");
    const priceIn = (claim: string): Quantity => {
      const price = q(claim).find((x) => x.kind === "money");
      if (!price) throw new Error(`no price in ${claim}`);
      return price;
    };
    expect(matchQuantity(priceIn("A 30-day supply costs $30."), evidence).match).toBe("contradicted");
    expect(matchQuantity(priceIn("A 30-day supply costs $10."), evidence).match).toBe("matched");
  });

  it("reads a count against the count of the same noun when the evidence has one (regression: 3 nurses matched 3 doctors)", () => {
    expect(relation("The clinic has 3 nurses.", "The clinic has 3 doctors and 9 nurses.")).toBe("contradicted");
    expect(relation("The clinic has 9 nurses.", "The clinic has 3 doctors and 9 nurses.")).toBe("matched");
    // With no count of that noun, a count of another still matches, as before.
    expect(relation("870 infections", "870 people were infected")).toBe("matched");
  });
});

describe("quantities written without a number", () => {
  it("reads 24/7 as 24 hours a day and 7 days a week", () => {
    expect(brief("Support is available 24/7.")).toEqual([
      [86400, "duration", "second"],
      [7, "duration", "day"],
    ]);
    expect(relation("available 24/7", "available 24 hours a day, 7 days a week")).toBe("matched");
  });

  it("reads 'within a week' as 7 days and 'half an hour' as 30 minutes, but not the rate in 'twice a week'", () => {
    expect(brief("We reply within a week.")).toEqual([[7, "duration", "day"]]);
    expect(relation("within a week", "within 7 days")).toBe("matched");
    expect(brief("It takes half an hour.")).toEqual([[1800, "duration", "second"]]);
    expect(brief("We meet twice a week.")).toEqual([]);
  });

  it("reads a dozen as 12 of its noun", () => {
    expect(relation("a dozen eggs", "12 eggs")).toBe("matched");
    expect(relation("a dozen eggs", "10 eggs")).toBe("contradicted");
  });
});

describe("relative amounts", () => {
  const relations = (text: string): Array<[number, string | undefined]> => q(text).map((x) => [x.value, x.relation]);

  it("reads differences, ratios and sums", () => {
    expect(relations("The Pro plan costs $15 more than Basic.")).toEqual([[15, "difference"]]);
    expect(relations("It takes 3 days longer than the standard route.")).toEqual([[3, "difference"]]);
    expect(relations("Pro costs twice as much as Basic, and Max three times as much.")).toEqual([
      [2, "ratio"],
      [3, "ratio"],
    ]);
    expect(relations("They cost $35 in total, a total of $35.")).toEqual([
      [35, "sum"],
      [35, "sum"],
    ]);
    expect(relations("more than 500 people")).toEqual([[500, undefined]]);
  });

  it("is not contradicted by a single amount of the evidence (regression: '$15 more than Basic' against $10 was a contradiction)", () => {
    expect(relation("The Pro plan costs $15 more than Basic.", "The Basic plan costs $10 per month.")).toBe("missing");
    // A sum is still an amount: another total contradicts it.
    expect(relation("They cost $35 in total.", "They cost $30 in total.")).toBe("contradicted");
  });
});
