import { GroundwatchError } from "../errors/groundwatch-error.ts";

/**
 * A request an HTTP handler refuses with a 4xx status and a message for the client: the collector's
 * routes and the review page's API both throw it, and their handlers answer with its status.
 */
export class HttpError extends GroundwatchError {
  override readonly name = "HttpError";
  override readonly code = "http";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
