// The schema workbench's editor: line numbers, bracket matching, the payload kept in the
// address (compressed, in the fragment), copy buttons. Everything about the schema itself
// happens on the server: htmx posts the text and swaps in what it renders.

const editor = document.querySelector("[data-editor]");
// A deferred script runs just before DOMContentLoaded, whose first handler (htmx's, added when
// htmx loaded in the head) sets up the page's triggers: an input sent before that is lost.
const htmxListens = new Promise((ready) => document.addEventListener("DOMContentLoaded", ready, { once: true }));
const PAIRS = { "(": ")", "[": "]", "{": "}" };
const CLOSERS = { ")": "(", "]": "[", "}": "{" };

function showLineNumbers() {
  const lines = editor.value.split("\n").length;
  const numbers = document.querySelector("[data-line-numbers]");
  numbers.textContent = Array.from({ length: lines }, (_, index) => index + 1).join("\n");
  numbers.scrollTop = editor.scrollTop;
}

// The bracket matching the one beside the caret, skipping brackets inside strings.
function matchingBracket(text, position) {
  const inString = [];
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    inString[index] = quoted;
    if (text[index] === "\\" && quoted) { inString[++index] = true; continue; }
    if (text[index] === '"') quoted = !quoted;
  }
  for (const at of [position - 1, position]) {
    const char = text[at];
    if (at < 0 || inString[at] || !(char in PAIRS || char in CLOSERS)) continue;
    const forward = char in PAIRS;
    let depth = 0;
    for (let index = at; index >= 0 && index < text.length; index += forward ? 1 : -1) {
      if (inString[index]) continue;
      if (text[index] === char) depth++;
      else if (text[index] === (forward ? PAIRS[char] : CLOSERS[char])) depth--;
      if (depth === 0) return { at, match: index };
    }
    return { at, match: -1 };
  }
  return null;
}

function lineAndColumn(text, index) {
  const before = text.slice(0, index).split("\n");
  return `line ${before.length}, column ${before.at(-1).length + 1}`;
}

function showBracketMatch() {
  const found = matchingBracket(editor.value, editor.selectionStart);
  const status = document.querySelector("[data-bracket-match]");
  if (!found) status.textContent = "";
  else if (found.match < 0) status.textContent = `“${editor.value[found.at]}” at ${lineAndColumn(editor.value, found.at)} has no partner.`;
  else status.textContent = `“${editor.value[found.at]}” pairs with “${editor.value[found.match]}” at ${lineAndColumn(editor.value, found.match)}.`;
}

// deflate-raw + base64url: a link holds the payload, and nothing of it reaches the server.
async function packed(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

async function unpacked(code) {
  const binary = atob(code.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Response(stream).text();
}

let saving = null;
function keepInAddress() {
  clearTimeout(saving);
  saving = setTimeout(async () => {
    history.replaceState(null, "", `${location.pathname}${location.search}#p=${await packed(editor.value)}`);
  }, 300);
}

async function restoreFromAddress() {
  const code = new URLSearchParams(location.hash.slice(1)).get("p");
  if (code) {
    try {
      editor.value = await unpacked(code);
    } catch {
      document.querySelector("[data-bracket-match]").textContent = "This link's payload could not be read; showing the example instead.";
      return;
    }
    showLineNumbers();
  }
  await htmxListens;
  // A payload from a link, or one typed before htmx listened (a slow load), is previewed now.
  if (editor.value !== editor.defaultValue) editor.dispatchEvent(new Event("input", { bubbles: true }));
}

// What a request will send, in bytes, as multipart (the page's encoding): each field's name
// and UTF-8 value, and the boundary and headers around it.
function bytesToSend(formData) {
  let size = 0;
  for (const [name, value] of formData) size += new Blob([name, value]).size + 100;
  return size;
}

// A text past the workbench's limit, or a request past what the server reads at once (it
// could not even be read), is not sent: the server's own sentence says so, with the size.
function refusal(formData) {
  const text = new Blob([editor.value]).size;
  if (text > Number(editor.dataset.maxBytes)) return editor.dataset.tooBig.replace("{size}", text.toLocaleString("en"));
  const sent = bytesToSend(formData);
  if (sent > Number(editor.dataset.maxRequestBytes)) return editor.dataset.tooMuch.replace("{size}", sent.toLocaleString("en"));
  return "";
}

function refuseIfTooBig(event) {
  const problem = refusal(event.detail?.formData || new FormData(editor.form));
  if (!problem) return;
  event.preventDefault();
  const note = document.createElement("p");
  note.className = "error";
  note.textContent = problem;
  document.getElementById("diagnostics").replaceChildren(note);
  document.getElementById("preview-state").innerHTML = '<span class="stale-note">Showing the last payload that could be read.</span>';
}

// While the text does not read, the preview is the last good one: readable, not answerable.
function markStale() {
  document.getElementById("results").inert = Boolean(document.querySelector("#preview-state .stale-note"));
}

function goTo(line, column) {
  const lines = editor.value.split("\n");
  const index = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0) + column - 1;
  editor.focus();
  editor.setSelectionRange(index, index);
}

if (editor) {
  showLineNumbers();
  markStale();
  // The state note is swapped out of band (or set by refuseIfTooBig): watch where it lives.
  new MutationObserver(markStale).observe(document.querySelector(".workbench-preview"), { childList: true, subtree: true });
  restoreFromAddress();
  // Once edited (or opened from a link) the text is no longer the example the menu names.
  const menu = document.querySelector("[data-examples]");
  editor.addEventListener("input", () => { showLineNumbers(); showBracketMatch(); keepInAddress(); menu.value = ""; });
  editor.addEventListener("scroll", showLineNumbers);
  // Every request of the page (the preview, trying the form, an answer as JSON) carries the text.
  document.addEventListener("htmx:configRequest", refuseIfTooBig);
  editor.form.addEventListener("submit", refuseIfTooBig);
  for (const type of ["keyup", "click", "focus"]) editor.addEventListener(type, showBracketMatch);
  // Tab indents inside the editor; Escape then Tab leaves it (keyboard users are never trapped).
  let escaped = false;
  editor.addEventListener("keydown", (event) => {
    if (event.key === "Escape") { escaped = true; return; }
    if (event.key === "Tab" && !event.shiftKey && !escaped) {
      event.preventDefault();
      editor.setRangeText("  ", editor.selectionStart, editor.selectionEnd, "end");
      editor.dispatchEvent(new Event("input", { bubbles: true }));
    }
    escaped = false;
  });
  document.addEventListener("click", async (event) => {
    const target = event.target.closest("[data-copy], [data-copy-link], [data-go-to-line]");
    if (!target) return;
    if (target.dataset.goToLine) return goTo(Number(target.dataset.goToLine), Number(target.dataset.goToColumn));
    const text = target.dataset.copy ? document.getElementById(target.dataset.copy).textContent : `${location.origin}${location.pathname}#p=${await packed(editor.value)}`;
    const said = document.querySelector("[data-copied]");
    try {
      await navigator.clipboard.writeText(text);  // only on https or localhost
      said.textContent = target.dataset.copy ? "Copied." : "Link copied: it opens this payload.";
    } catch {
      said.textContent = target.dataset.copy ? "Select the code to copy it." : "Copy the address bar: it holds this payload.";
    }
  });
}
