import { UsageError } from "../shared/command.ts";
import { inputLines } from "../shared/files.ts";
import type { CommandIo } from "../shared/io.ts";
import type { EvalSetRow } from "../shared/score-rows.ts";
import { ROW_FIELDS, parseEvalSetRow } from "../shared/score-rows.ts";

/** An eval row, whichever convention it was written in. */
export type SetRow = Omit<EvalSetRow, "format">;

/**
 * Reads the set: JSONL (one row a line; blank lines skipped) or, when it starts with "[", one
 * JSON array (as RAGAS datasets are often exported). Every row is checked before anything is
 * scored, and an error names its line (or its position in the array) and field. `production`
 * sees every row as read (the rows' production review provenance).
 */
export async function readSet(source: string, io: CommandIo, asking: { target: boolean; contextPath: boolean }, production?: { add(row: unknown): void }): Promise<SetRow[]> {
  const lines: string[] = [];
  for await (const line of inputLines(source, io)) lines.push(line);
  const entries: Array<{ value: unknown; where: string; position: number }> = [];
  if ((lines.find((l) => l.trim() !== "") ?? "").trimStart().startsWith("[")) {
    let array: unknown;
    try {
      array = JSON.parse(lines.join("\n"));
    } catch (error) {
      throw new UsageError(`the set starts with "[" but is not a valid JSON array (${(error as Error).message})`);
    }
    if (!Array.isArray(array)) throw new UsageError("the set starts with \"[\" but is not a JSON array");
    array.forEach((value: unknown, i) => entries.push({ value, where: `row ${i + 1}`, position: i + 1 }));
  } else {
    for (const [i, line] of lines.entries()) {
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new UsageError(`line ${i + 1}: not valid JSON (${(error as Error).message})`);
      }
      entries.push({ value, where: `line ${i + 1}`, position: i + 1 });
    }
  }
  if (entries.length === 0) throw new UsageError("the set is empty");
  // The report, junit.xml and --baseline match rows by id, so a repeated id would silently
  // compare one row against another's earlier result.
  const seen = new Map<string, string>();
  const set: SetRow[] = [];
  for (const { value, where, position } of entries) {
    const row: EvalSetRow | string = parseEvalSetRow(value, where, position);
    if (typeof row === "string") throw new UsageError(row);
    const names = ROW_FIELDS[row.format];
    const first = seen.get(String(row.id));
    if (first !== undefined) {
      const explicit = (value as { id?: unknown }).id !== undefined && (value as { id?: unknown }).id !== null;
      throw new UsageError(`${where}: ${explicit ? `id ${JSON.stringify(row.id)}` : `has no "id", and its default id ${row.id}`} is already used on ${first}; ids must be unique because the report, junit.xml and --baseline match rows by id`);
    }
    seen.set(String(row.id), where);
    production?.add(value);
    const asked = row.answer === undefined;
    if (asked && !asking.target) throw new UsageError(`${where}: no "${names.answer}", and no --target to ask for one`);
    if (asking.target && row.question === undefined) throw new UsageError(`${where}: --target needs a "${names.question}" to ask the service`);
    if (row.context === undefined) {
      // With --target every row is asked, so only a run without one needs the row's own context.
      if (!asking.target) throw new UsageError(`${where}: no "${names.context[0] ?? "context"}" to check the answer against`);
      if (!asking.contextPath) throw new UsageError(`${where}: no "${names.context[0] ?? "context"}", and no --context-path to take the retrieved documents from the reply`);
    }
    set.push({ id: row.id, question: row.question, context: row.context, answer: row.answer, ...(row.label !== undefined ? { label: row.label } : {}), ...(row.samples ? { samples: row.samples } : {}) });
  }
  return set;
}
