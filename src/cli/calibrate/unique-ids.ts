import { UsageError } from "../shared/command.ts";

/**
 * Remembers which line each row id came from and rejects a repeat: eval matches
 * rows to a baseline by id and calibrate names review candidates by id, so a
 * repeated id would silently compare or point at the wrong row.
 */
export function createIdChecker(purpose: string): (id: string | number, line: number) => void {
  const seen = new Map<string, number>();
  return (id, line) => {
    const key = String(id);
    const first = seen.get(key);
    if (first !== undefined) {
      throw new UsageError(`line ${line}: id ${JSON.stringify(id)} is already used on line ${first}; ids must be unique because ${purpose}`);
    }
    seen.set(key, line);
  };
}
