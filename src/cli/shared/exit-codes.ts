/** Process exit codes shared by every command; listed in each command's --help. */
export const EXIT = {
  ok: 0,
  /** Something failed while running (a backend could not load, an output could not be written). */
  failure: 1,
  /** Bad flags or configuration. */
  usage: 2,
  /** An input row is malformed and --skip-invalid was not given. */
  invalidInput: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
