/**
 * A request an HTTP handler refuses with a 4xx status and a message for the client: the collector's
 * routes and the review page's API both throw it, and their handlers answer with its status.
 */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
