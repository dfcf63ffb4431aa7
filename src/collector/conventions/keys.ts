/**
 * Every attribute, event and log-event name the collector reads from instrumentations, one constant
 * each (the names it writes are in telemetry/semconv.ts). Indexed keys are composed as OpenInference's
 * semantic conventions compose them: `prefix.{i}.postfix`.
 */

// Resource and HTTP server attributes (OTel semantic conventions).

/** The service that emitted a record: the route label when a trace has no `http.route`. */
export const ATTR_SERVICE_NAME = "service.name";
/** The route template of an HTTP server span: the route a trace is counted under. */
export const ATTR_HTTP_ROUTE = "http.route";

// OpenInference (Arize): https://github.com/Arize-ai/openinference, semantic conventions.

/** The span kind: "LLM", "RETRIEVER", "CHAIN", … */
export const ATTR_OPENINFERENCE_SPAN_KIND = "openinference.span.kind";
/** A span's input: the query of a RETRIEVER span, the request of an LLM span (text or JSON). */
export const ATTR_INPUT_VALUE = "input.value";
/** A span's output: the documents of a RETRIEVER span (JSON), the answer of an LLM span. */
export const ATTR_OUTPUT_VALUE = "output.value";
/** Prefix of the indexed retrieved documents: `retrieval.documents.{i}.document.*`. */
export const ATTR_RETRIEVAL_DOCUMENTS = "retrieval.documents";
/**
 * A retrieved document's key, `retrieval.documents.{i}.document.{content,id,metadata}`: its index, and
 * which it holds: the text, the id, or the metadata (a JSON string: title, url or source).
 */
export const OPENINFERENCE_DOCUMENT_KEY = /^retrieval\.documents\.(\d+)\.document\.(content|id|metadata)$/;
/** Prefix of the indexed input messages of an LLM span: `llm.input_messages.{i}.message.*`. */
export const ATTR_LLM_INPUT_MESSAGES = "llm.input_messages";
/** Prefix of the indexed output messages of an LLM span: `llm.output_messages.{i}.message.*`. */
export const ATTR_LLM_OUTPUT_MESSAGES = "llm.output_messages";
/** Postfix of an indexed message's role. */
export const MESSAGE_ROLE = "message.role";
/** Postfix of an indexed message's text. */
export const MESSAGE_CONTENT = "message.content";

// OTel GenAI semantic conventions: spans and log events.

/** The operation of a GenAI span: "chat", "text_completion", "generate_content", … */
export const ATTR_GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
/** The GenAI operations that generate an answer (an LLM span). */
export const GEN_AI_LLM_OPERATIONS: readonly string[] = ["chat", "text_completion", "generate_content"];
/** Retrieved documents of a GenAI retrieval span (a JSON array). */
export const ATTR_GEN_AI_RETRIEVAL_DOCUMENTS = "gen_ai.retrieval.documents";
/** The query of a GenAI retrieval span. */
export const ATTR_GEN_AI_RETRIEVAL_QUERY_TEXT = "gen_ai.retrieval.query.text";
/** System instructions of a GenAI call (JSON messages). */
export const ATTR_GEN_AI_SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions";
/** Input messages of a GenAI call (JSON messages). */
export const ATTR_GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages";
/** Output messages of a GenAI call (JSON messages): the answer. */
export const ATTR_GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages";
/** GenAI log event: a system message (body `{content}`). */
export const EVENT_GEN_AI_SYSTEM_MESSAGE = "gen_ai.system.message";
/** GenAI log event: a user message (body `{content}`). */
export const EVENT_GEN_AI_USER_MESSAGE = "gen_ai.user.message";
/** GenAI log event: an assistant message (body `{content}`). */
export const EVENT_GEN_AI_ASSISTANT_MESSAGE = "gen_ai.assistant.message";
/** GenAI log event: a tool message (body `{content}`). */
export const EVENT_GEN_AI_TOOL_MESSAGE = "gen_ai.tool.message";
/** GenAI log event: a choice of the model (body `{index, message: {content}}`): the answer. */
export const EVENT_GEN_AI_CHOICE = "gen_ai.choice";
/** GenAI log event carrying the input, output and system messages as attributes (or body keys). */
export const EVENT_GEN_AI_OPERATION_DETAILS = "gen_ai.client.inference.operation.details";

// OpenLLMetry (Traceloop) and LangChain through it.

/** Prefix of every Traceloop attribute: a span holding one is an OpenLLMetry span. */
export const TRACELOOP_PREFIX = "traceloop.";
/** The input of a Traceloop entity (JSON, LangChain Documents inside). */
export const ATTR_TRACELOOP_ENTITY_INPUT = "traceloop.entity.input";
/** The output of a Traceloop entity (JSON, LangChain Documents inside). */
export const ATTR_TRACELOOP_ENTITY_OUTPUT = "traceloop.entity.output";
/** Prefix of the indexed prompt messages: `gen_ai.prompt.{i}.role` / `.content`. */
export const ATTR_GEN_AI_PROMPT = "gen_ai.prompt";
/** Prefix of the indexed completions: `gen_ai.completion.{i}.content`. */
export const ATTR_GEN_AI_COMPLETION = "gen_ai.completion";
/** Postfix of an indexed prompt message's role. */
export const ROLE = "role";
/** Postfix of an indexed prompt message's or completion's text. */
export const CONTENT = "content";
/** Traceloop vector-DB result events: `db.query.result` (or `db.<system>.query.result`). */
export const DB_RESULT_EVENT = /^db\.(?:[a-z0-9_]+\.)?query\.result$/;
/** The id of a vector-DB result: names the document beside it. */
export const ATTR_DB_QUERY_RESULT_ID = "db.query.result.id";
/** The metadata of a vector-DB result (title, url or source). */
export const ATTR_DB_QUERY_RESULT_METADATA = "db.query.result.metadata";
/** The attributes of a vector-DB result event that may hold its document text, in the order read. */
export const DB_QUERY_RESULT_DOCUMENT_KEYS: readonly string[] = ["db.query.result.document", "db.query.result.documents", "db.query.result.content", "db.query.result.text"];
