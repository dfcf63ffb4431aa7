/** The hub refused, failed, or answered something groundwatch will not write: not a bad flag. */
export class HubError extends Error {
  override readonly name = "HubError";
}
