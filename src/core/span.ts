/** Character offsets into a text, end exclusive: where a claim or sentence lies in the answer. */
export interface Span {
  readonly start: number;
  readonly end: number;
}
