/* global Buffer, console, process */
// A fake OpenAI-compatible server on 127.0.0.1: POST /v1/chat/completions, /v1/responses and
// /v1/embeddings, answering deterministically from the question (see kb.js). No streaming.
// Standalone: `node fake-openai.js [port]` prints its base URL (…/v1) and runs until killed.
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { answerFor, embed } from "./kb.js";

const MODEL = "gpt-4o-mini";
let seq = 0;

/** The text of a content field: a string, or an array of parts with text. */
function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : (p?.text ?? ""))).join("");
  return "";
}

/** The last user message of a chat or a Responses `input`. */
function lastUserText(messages) {
  if (typeof messages === "string") return messages;
  const users = (messages ?? []).filter((m) => m?.role === "user" || m?.type === "input_text");
  const last = users.at(-1);
  return last ? textOf(last.content ?? last.text) : "";
}

const tokens = (s) => Math.max(1, Math.ceil(String(s).length / 4));

function chat(body) {
  const prompt = (body.messages ?? []).map((m) => textOf(m.content)).join("\n");
  const answer = answerFor(lastUserText(body.messages));
  seq += 1;
  return {
    id: `chatcmpl-fake${seq}`, object: "chat.completion", created: 1_700_000_000 + seq, model: MODEL,
    system_fingerprint: "fp_fake",
    choices: [{ index: 0, message: { role: "assistant", content: answer, refusal: null }, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: tokens(prompt), completion_tokens: tokens(answer), total_tokens: tokens(prompt) + tokens(answer) },
  };
}

function responses(body) {
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  const prompt = `${body.instructions ?? ""}\n${(input ?? []).map((m) => textOf(m.content)).join("\n")}`;
  const answer = answerFor(lastUserText(input));
  seq += 1;
  return {
    id: `resp_fake${seq}`, object: "response", created_at: 1_700_000_000 + seq, status: "completed", model: MODEL,
    instructions: body.instructions ?? null, error: null, incomplete_details: null, metadata: {},
    output: [{ type: "message", id: `msg_fake${seq}`, status: "completed", role: "assistant",
      content: [{ type: "output_text", text: answer, annotations: [] }] }],
    parallel_tool_calls: true, temperature: body.temperature ?? 1, top_p: 1, tool_choice: "auto", tools: [],
    usage: { input_tokens: tokens(prompt), output_tokens: tokens(answer), total_tokens: tokens(prompt) + tokens(answer),
      input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  };
}

function embeddings(body) {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const data = inputs.map((text, index) => {
    const v = embed(text);
    const embedding = body.encoding_format === "base64" ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v;
    return { object: "embedding", index, embedding };
  });
  const n = inputs.reduce((a, t) => a + tokens(t), 0);
  return { object: "list", data, model: body.model ?? "text-embedding-3-small", usage: { prompt_tokens: n, total_tokens: n } };
}

const ROUTES = { "/v1/chat/completions": chat, "/v1/responses": responses, "/v1/embeddings": embeddings };

/**
 * Starts the server on 127.0.0.1 (port 0 = a free one). Resolves to { url, port, requests, close }:
 * url is the base URL with /v1, requests the parsed bodies received (path and body), close() stops it.
 */
export function startFakeOpenAI({ port = 0 } = {}) {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0].replace(/^\/v1\/v1\//, "/v1/");
      const handler = req.method === "POST" ? ROUTES[path] : undefined;
      let body = {};
      try { body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {}; } catch { /* answered below */ }
      if (!handler) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request_error" } }));
        return;
      }
      requests.push({ path, body });
      const out = JSON.stringify(handler(body));
      res.writeHead(200, { "content-type": "application/json", "x-request-id": `req_fake${seq}` });
      res.end(out);
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const p = server.address().port;
      resolve({ url: `http://127.0.0.1:${p}/v1`, port: p, requests, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { url } = await startFakeOpenAI({ port: Number(process.argv[2] ?? process.env.PORT ?? 0) });
  console.log(url);
}
