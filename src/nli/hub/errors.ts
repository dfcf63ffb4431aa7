import { NonRetryable } from "../../net/retry.ts";

/** The hub refused, failed, or answered something groundwatch will not write: not a bad flag, and not retried. */
export class HubError extends NonRetryable {
  override readonly name = "HubError";
  override readonly code = "hub";
}
