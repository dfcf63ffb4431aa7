import { GroundwatchError } from "../../errors/groundwatch-error.ts";

/**
 * Why a judge's reply could not be read: `unparseable` (not the recipe's answer: a sentence around a
 * label, "Maybe", a score tag without yes or no, JSON without SCORE, no logprobs where they are
 * needed), `refused` (the model's refusal field), `filtered` (finish_reason content_filter),
 * `truncated` (finish_reason length where the whole reply is needed), `empty` (no choice, or no text),
 * `unsupported` (the server cannot run the recipe: Ollama ignores the chat-template arguments and
 * documents a recipe needs, so its reply answers another question).
 */
export type JudgeReplyReason = "unparseable" | "refused" | "filtered" | "truncated" | "empty" | "unsupported";

/**
 * A judge reply that cannot be read as its recipe's answer: the batch fails, and the answers it
 * would have scored are unscorable (reason backend_error, with this message as the detail) — never a
 * guess. The message starts with "judge reply" or "judge refused" and names what was wrong; any
 * excerpt of the reply in it has secrets redacted.
 */
export class JudgeReplyError extends GroundwatchError {
  override readonly name = "JudgeReplyError";
  override readonly code = "judge_reply";
  constructor(
    readonly reason: JudgeReplyReason,
    message: string,
  ) {
    super(message);
  }
}
