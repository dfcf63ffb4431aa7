import { escapeHtml } from "../shared/escape.ts";

/**
 * The review page: self-contained (no external assets), its script and style carrying the
 * response's CSP nonce, no inline event handlers. Every spooled text (question, answer, documents,
 * claims, routes) is attacker-controlled: the script puts it on the page with `textContent` and text
 * nodes only, never as markup; evidence and claim spans are cut from the text by their offsets.
 */

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 70rem; padding: 1rem 1.5rem; color: #1d2430; }
header { display: flex; justify-content: space-between; align-items: baseline; border-bottom: 1px solid #ccd; }
h1 { font-size: 1.2rem; margin: 0.4rem 0; }
h2 { font-size: 1rem; margin: 1rem 0 0.3rem; color: #445; }
#meta span { margin-right: 1rem; }
.box { white-space: pre-wrap; background: #f6f7fa; border: 1px solid #dde; border-radius: 4px; padding: 0.5rem 0.7rem; }
mark.claim { background: #e9edf5; border-bottom: 2px solid #99a; }
mark.claim.v-supported { border-bottom-color: #2a8a3a; }
mark.claim.v-contradicted, mark.claim.v-unsupported, mark.claim.v-misattributed { border-bottom-color: #c2352b; }
mark.claim.selected, li.selected { outline: 2px solid #1f5fd6; }
mark.evidence { background: #fde68a; }
mark.span { background: #fbd5d1; border-bottom: 2px solid #c2352b; }
mark.span.wrong { background: #e3e6ea; border-bottom-style: dashed; text-decoration: line-through; }
sup.p { color: #8a2a22; font-size: 0.7rem; margin: 0 0.15rem; }
#spans li { margin: 0.2rem 0; }
#spans button { margin-right: 0.5rem; font: inherit; font-size: 0.85rem; }
#claims li { margin: 0.2rem 0; padding: 0.1rem 0.3rem; }
.mark-1 { color: #2a8a3a; font-weight: 600; }
.mark-0 { color: #c2352b; font-weight: 600; }
.doc-head { font-weight: 600; margin-top: 0.6rem; }
#keys { color: #556; font-size: 0.9rem; border-top: 1px solid #ccd; margin-top: 1rem; padding-top: 0.4rem; }
#status { font-weight: 600; }
kbd { border: 1px solid #aab; border-radius: 3px; padding: 0 0.25rem; background: #fff; }
`;

/**
 * The page's script (ES5, not type-checked). It restates two rules of the terminal's key handling
 * (cli/review/state.ts), which must change together: claim-by-claim marking starts from
 * groundwatch's verdicts (`initialMarks`), and Enter saves grounded iff every claim is marked
 * supported (`claimsAction`). Everything else is the session's (review/session.ts): "a"/"d" send an
 * agreement, and the server turns it into a label by the one agreement rule.
 */
const SCRIPT = `
(function () {
  "use strict";
  var state = { answer: null, claimMode: false, cursor: 0, marks: [], wrong: [], busy: false };
  function byId(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function word(value) { return /^[a-z_]{1,32}$/.test(String(value)) ? String(value) : "other"; }
  function api(method, path, body) {
    var init = { method: method, credentials: "same-origin", headers: {} };
    if (body !== undefined) { init.headers["content-type"] = "application/json"; init.body = JSON.stringify(body); }
    return fetch(path, init).then(function (res) {
      return res.json().then(function (data) {
        if (!res.ok) { var failure = new Error(data && typeof data.error === "string" ? data.error : "HTTP " + res.status); failure.data = data; throw failure; }
        return data;
      });
    });
  }
  function say(text) { byId("status").textContent = text; }
  function showProgress(p) {
    if (!p) return;
    byId("progress").textContent = p.labelled + " labelled, " + p.skipped + " skipped, " + p.remaining + " to go, of " + p.total;
  }
  /** Text with the spans marked: text nodes between <mark> elements, each made with textContent. */
  function marked(text, spans) {
    var out = document.createDocumentFragment();
    var list = spans.map(function (s) {
      return { start: Math.max(0, Math.min(text.length, Number(s.start) || 0)), end: Math.max(0, Math.min(text.length, Number(s.end) || 0)), cls: s.cls, claim: s.claim };
    }).filter(function (s) { return s.end > s.start; }).sort(function (a, b) { return a.start - b.start || b.end - a.end; });
    var pos = 0;
    list.forEach(function (s) {
      var start = Math.max(s.start, pos);
      if (start >= s.end) return;
      if (start > pos) out.appendChild(document.createTextNode(text.slice(pos, start)));
      var m = el("mark", s.cls, text.slice(start, s.end));
      if (s.claim !== undefined) m.setAttribute("data-claim", String(s.claim));
      out.appendChild(m);
      pos = s.end;
    });
    if (pos < text.length) out.appendChild(document.createTextNode(text.slice(pos)));
    return out;
  }
  function claimsOf(a) { return Array.isArray(a.claims) ? a.claims : []; }
  function spansOf(a) { return Array.isArray(a.spans) && Array.isArray(a.answerSegments) ? a.spans : []; }
  function prob(s) { return s && typeof s.probability === "number" ? s.probability.toFixed(3) : "-"; }
  /** The answer cut at its spans by the server (answerSegments): text nodes, and a <mark> per span with its probability. */
  function spanned(a) {
    var out = document.createDocumentFragment();
    var spans = spansOf(a);
    a.answerSegments.forEach(function (seg) {
      var i = typeof seg.span === "number" ? seg.span : null;
      if (i === null || !spans[i]) { out.appendChild(document.createTextNode(String(seg.text))); return; }
      var m = el("mark", "span" + (state.wrong[i] ? " wrong" : ""), seg.text);
      m.setAttribute("data-span", String(i));
      m.setAttribute("data-probability", prob(spans[i]));
      m.title = "span " + i + ": probability unsupported " + prob(spans[i]);
      out.appendChild(m);
      out.appendChild(el("sup", "p", "p " + prob(spans[i])));
    });
    return out;
  }
  function renderSpans(a) {
    var spans = spansOf(a);
    var list = byId("spans");
    clear(list);
    byId("spans-view").hidden = spans.length === 0;
    spans.forEach(function (s, i) {
      var li = el("li", state.wrong[i] ? "wrong" : "");
      li.setAttribute("data-span", String(i));
      var button = el("button", "wrong-toggle", state.wrong[i] ? "wrong (undo)" : "mark wrong");
      button.type = "button";
      button.setAttribute("data-span", String(i));
      button.setAttribute("aria-pressed", state.wrong[i] ? "true" : "false");
      li.appendChild(button);
      li.appendChild(el("span", "", "p " + prob(s) + " · " + (typeof s.claim === "number" ? "claim " + s.claim : "no claim") + " · \u201c"));
      li.appendChild(el("span", "words", s.text));
      li.appendChild(el("span", "", "\u201d"));
      list.appendChild(li);
    });
  }
  function render() {
    var a = state.answer;
    var main = byId("answer-view");
    document.body.setAttribute("data-answer", a ? String(a.id) : "");
    document.body.setAttribute("data-mode", state.claimMode ? "claims" : "answer");
    byId("done").hidden = a !== null;
    main.hidden = a === null;
    if (!a) return;
    var meta = byId("meta");
    clear(meta);
    [["kind", a.kind], ["verdict", a.verdict], ["score", typeof a.score === "number" ? a.score.toFixed(3) : "-"], ["threshold", a.threshold === undefined ? "-" : a.threshold], ["cause", a.cause === undefined ? "-" : a.cause], ["route", a.route], ["time", a.time], ["trace", a.traceId === undefined ? "-" : a.traceId]].forEach(function (kv) {
      meta.appendChild(el("span", "", kv[0] + ": " + kv[1]));
    });
    byId("question").textContent = a.question === undefined ? "(no question)" : String(a.question);
    var claims = claimsOf(a);
    var answer = byId("answer");
    clear(answer);
    // With spans, the answer shows them (the claims are listed below); otherwise its claims.
    if (spansOf(a).length > 0) answer.appendChild(spanned(a));
    else answer.appendChild(marked(String(a.answer), claims.map(function (c, i) {
      return { start: c.start, end: c.end, cls: "claim v-" + word(c.verdict) + (state.claimMode && i === state.cursor ? " selected" : ""), claim: c.index };
    })));
    renderSpans(a);
    var list = byId("claims");
    clear(list);
    claims.forEach(function (c, i) {
      var li = el("li", state.claimMode && i === state.cursor ? "selected" : "");
      li.setAttribute("data-claim", String(c.index));
      if (state.claimMode) li.appendChild(el("span", "mark-" + state.marks[i], state.marks[i] === 1 ? "[supported] " : "[not supported] "));
      li.appendChild(el("span", "", word(c.verdict) + " " + (typeof c.score === "number" ? c.score.toFixed(3) : "-") + (c.cause === undefined ? "" : " (" + c.cause + ")") + ": "));
      li.appendChild(el("span", "", c.text));
      list.appendChild(li);
    });
    byId("claims-none").hidden = claims.length > 0;
    var docs = byId("documents");
    clear(docs);
    (Array.isArray(a.documents) ? a.documents : []).forEach(function (d, di) {
      var head = [d.title, d.id, d.url].filter(function (x) { return x !== undefined && x !== null && x !== ""; }).join(" · ");
      docs.appendChild(el("div", "doc-head", "[" + (di + 1) + "] " + (head || "document")));
      var spans = [];
      claims.forEach(function (c) {
        if (c.evidence && Number(c.evidence.doc) === di) spans.push({ start: c.evidence.start, end: c.evidence.end, cls: "evidence", claim: c.index });
      });
      var box = el("div", "box");
      box.appendChild(marked(String(d.text), spans));
      docs.appendChild(box);
    });
  }
  function load() {
    return api("GET", "/api/next").then(function (data) {
      showProgress(data.progress);
      state.answer = data.done ? null : data.answer;
      state.claimMode = false;
      state.cursor = 0;
      state.marks = state.answer ? claimsOf(state.answer).map(function (c) { return c.verdict === "supported" ? 1 : 0; }) : [];
      state.wrong = [];
      render();
    });
  }
  function act(promise, message) {
    state.busy = true;
    return promise.then(function () { say(message); return load(); }).catch(function (error) { say("error: " + error.message); }).then(function () { state.busy = false; });
  }
  function label(payload) {
    var a = state.answer;
    payload.id = a.id;
    if (state.claimMode) payload.claims = claimsOf(a).map(function (c, i) { return { index: c.index, label: state.marks[i] }; });
    var wrong = [];
    spansOf(a).forEach(function (s, i) { if (state.wrong[i]) wrong.push({ span: i, verdict: "wrong" }); });
    if (wrong.length > 0) payload.spans = wrong;
    // Labels of others written since this page loaded: the reviewer says whether to label anyway or skip.
    var send = function () {
      return api("POST", "/api/label", payload).catch(function (error) {
        if (!error.data || !Array.isArray(error.data.conflict)) throw error;
        if (window.confirm(error.message + " since you started. OK labels anyway, Cancel skips.")) return send();
        return api("POST", "/api/skip", { id: a.id });
      });
    };
    return act(send(), "labelled");
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || state.busy) return;
    var key = event.key;
    var a = state.answer;
    if (key === "u") { event.preventDefault(); act(api("POST", "/api/undo", {}), "undone"); return; }
    if (!a) return;
    var n = claimsOf(a).length;
    if (state.claimMode) {
      if (key === "j" || key === "ArrowDown") { state.cursor = Math.min(n - 1, state.cursor + 1); render(); }
      else if (key === "k" || key === "ArrowUp") { state.cursor = Math.max(0, state.cursor - 1); render(); }
      else if (key === " ") { state.marks[state.cursor] = state.marks[state.cursor] === 1 ? 0 : 1; render(); }
      else if (key === "Enter") { label({ label: state.marks.every(function (m) { return m === 1; }) ? 1 : 0 }); }
      else if (key === "Escape") { state.claimMode = false; render(); }
      else if (key === "a") label({ agreement: "agree" });
      else if (key === "d") label({ agreement: "disagree" });
      else return;
      event.preventDefault();
      return;
    }
    if (key === "a") label({ agreement: "agree" });
    else if (key === "d") label({ agreement: "disagree" });
    else if (key === "s") act(api("POST", "/api/skip", { id: a.id }), "skipped");
    else if (key === "c" && n > 0) { state.claimMode = true; state.cursor = 0; render(); }
    else return;
    event.preventDefault();
  });
  byId("spans").addEventListener("click", function (event) {
    var target = event.target;
    if (!target || target.tagName !== "BUTTON" || state.busy || !state.answer) return;
    var i = Number(target.getAttribute("data-span"));
    if (!(i >= 0 && i < spansOf(state.answer).length)) return;
    state.wrong[i] = !state.wrong[i];
    render();
  });
  load().catch(function (error) { say("error: " + error.message); });
})();
`;

/** The page's HTML for one response; `nonce` is that response's CSP nonce. */
export function reviewPage(nonce: string, reviewer: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>groundwatch review</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body data-answer="">
<header><h1>groundwatch review</h1><div>reviewer: <b>${escapeHtml(reviewer)}</b> · <span id="progress">loading…</span></div></header>
<p id="status" role="status" aria-live="polite"></p>
<p id="done" hidden>Nothing left to review: every spooled answer has your label (or was skipped in this session).</p>
<main id="answer-view" hidden>
<div id="meta"></div>
<h2>Question</h2><div id="question" class="box"></div>
<h2>Answer</h2><div id="answer" class="box"></div>
<section id="spans-view" hidden><h2>Unsupported spans</h2><p>Words a span detector marked as unsupported, highlighted in the answer with their probability. Mark a span wrong when the documents do support it; the marks go with your label.</p><ol id="spans" start="0"></ol></section>
<h2>Claims</h2><ol id="claims" start="0"></ol><p id="claims-none" hidden>No claims were checked.</p>
<h2>Documents</h2><div id="documents"></div>
</main>
<div id="keys"><kbd>a</kbd> agree with groundwatch · <kbd>d</kbd> disagree · <kbd>c</kbd> claim by claim (<kbd>j</kbd>/<kbd>k</kbd> move, <kbd>space</kbd> toggle supported, <kbd>Enter</kbd> save, <kbd>Esc</kbd> back) · <kbd>s</kbd> skip · <kbd>u</kbd> undo · “mark wrong” beside a span marks it wrong for the next label</div>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}
