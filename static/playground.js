// The little the browser needs beyond htmx. The server stays the source of truth.

// Pushed fragments are idempotent: an item a tab already shows in the same state is skipped
// (so what the person is typing in a pending form survives), a changed one is replaced.
document.addEventListener("htmx:oobBeforeSwap", (event) => {
  const fragment = event.detail.fragment;
  let replaced = false;
  for (const incoming of [...fragment.querySelectorAll("[id][data-state]")]) {
    if (incoming.parentElement && incoming.parentElement.closest("[id][data-state]")) continue;
    const existing = document.getElementById(incoming.id);
    if (!existing || existing === event.detail.target) continue;
    if (existing.dataset.state !== incoming.dataset.state) {
      const replacement = incoming.cloneNode(true);
      existing.replaceWith(replacement);
      htmx.process(replacement);
      replaced = true;
    }
    incoming.remove();
  }
  if (replaced) enhance(document);
  if (event.detail.target.id !== "status" && !fragment.querySelector("*") && !fragment.textContent.trim()) {
    event.detail.shouldSwap = false;
  }
});

// The tab title counts the questions waiting for the person.
function updateTitle() {
  const status = document.getElementById("status");
  if (!status) return;
  const waiting = Number(status.dataset.waiting || 0);
  const base = document.title.replace(/^\(\d+\) /, "");
  document.title = waiting ? `(${waiting}) ${base}` : base;
}

// Submit stays disabled while a required field is empty (the server checks again).
function requiredFilled(form) {
  for (const input of form.querySelectorAll("input[required], textarea[required], select[required]")) {
    if (!input.disabled && !input.value.trim()) return false;
  }
  for (const group of form.querySelectorAll("fieldset[data-required]")) {
    if (!group.querySelector("input:checked")) return false;
  }
  return true;
}

// A multi-select with maxItems: once enough boxes are ticked, the others wait.
function limitChoices(form) {
  for (const group of form.querySelectorAll("fieldset[data-max-items]")) {
    const boxes = [...group.querySelectorAll("input[type=checkbox]")];
    const full = boxes.filter((box) => box.checked).length >= Number(group.dataset.maxItems);
    for (const box of boxes) box.disabled = full && !box.checked;
  }
}

function pad(n) {
  return String(n).padStart(2, "0");
}

// A date-time default with an offset is shown in the person's local time.
function localInstant(input) {
  const when = new Date(input.dataset.instant);
  input.removeAttribute("data-instant");
  if (Number.isNaN(when.getTime())) return;
  input.value = `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}` +
    `T${pad(when.getHours())}:${pad(when.getMinutes())}`;
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

// A field that applies only to some values of another (a schedule's minutes) shows with them;
// while hidden its inputs are disabled, so they are not sent.
function showApplicable(form) {
  const values = new FormData(form);
  for (const field of form.querySelectorAll("[data-show-when]")) {
    const when = JSON.parse(field.dataset.showWhen);
    const applies = Object.entries(when).every(([name, allowed]) => allowed.includes(values.get(name)));
    field.hidden = !applies;
    for (const input of field.querySelectorAll("input, select, textarea")) input.disabled = !applies;
  }
}

function enhance(root) {
  for (const form of root.querySelectorAll("form[data-part-form]")) {
    showApplicable(form);
    for (const input of form.querySelectorAll("input[data-instant]")) localInstant(input);
    limitChoices(form);
    const submit = form.querySelector("[data-submit]");
    if (submit) submit.disabled = !requiredFilled(form);
    // Minutes east of UTC, so a date-time picker's local value becomes RFC 3339.
    for (const offset of form.querySelectorAll("[data-utc-offset]")) {
      offset.value = String(-new Date().getTimezoneOffset());
    }
  }
  for (const time of root.querySelectorAll("time[datetime]:not([data-local])")) {
    const when = new Date(time.getAttribute("datetime"));
    if (Number.isNaN(when.getTime())) continue;
    time.textContent = timeFormat.format(when);
    time.dataset.local = "";
  }
  updateTitle();
}

document.addEventListener("input", (event) => {
  const form = event.target.closest("form[data-part-form]");
  if (form) enhance(form.parentElement);
});

// An approval button says which scope it grants; the hidden field carries it.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-sets-scope]");
  const scope = button && button.form.querySelector("[data-scope]");
  if (scope) scope.value = button.dataset.setsScope;
});

// Enter sends the message; Shift+Enter starts a new line.
document.addEventListener("keydown", (event) => {
  if (event.target.id !== "composer-text" || event.key !== "Enter" || event.shiftKey || event.isComposing) return;
  event.preventDefault();
  event.target.form.requestSubmit();
});

document.addEventListener("htmx:load", (event) => enhance(document));
document.addEventListener("htmx:oobAfterSwap", () => enhance(document));

// After an answer, focus follows it: to the first field to fix, or to the settled part.
document.addEventListener("htmx:afterSwap", (event) => {
  const id = event.detail.target.id;
  if (id === "composer") document.getElementById("composer-text")?.focus();
  const part = id.startsWith("part-") && document.getElementById(id);
  if (!part) return;
  const invalid = part.querySelector("[aria-invalid=true]");
  const first = invalid && (invalid.matches("fieldset") ? invalid.querySelector("input") : invalid);
  (first || (part.dataset.state !== "pending" ? part : null))?.focus();
});

// Responses htmx does not swap (403, 404, 5xx) and lost connections still get a clear message.
function problemText(status) {
  if (status === 403) return "This page is out of date or you were logged out. Reload the page and try again; nothing was saved.";
  if (status === 404) return "This conversation is not available to you any more. Nothing was saved.";
  if (!status) return "Could not reach the server. Check your connection and try again; nothing was saved.";
  return `The server could not handle that (error ${status}). Nothing was saved; try again.`;
}

function showProblem(event) {
  const form = event.detail.elt.closest("form") || event.detail.elt;
  let note = form.querySelector(":scope > [data-request-error]");
  if (!note) {
    note = document.createElement("p");
    note.className = "error form-error";
    note.setAttribute("role", "alert");
    note.dataset.requestError = "";
    form.prepend(note);
  }
  note.textContent = problemText(event.detail.xhr ? event.detail.xhr.status : 0);
}

document.addEventListener("htmx:responseError", showProblem);
document.addEventListener("htmx:sendError", showProblem);

// Onboarding: once the draft becomes an agent its header is swapped in (every open tab): show
// the agent's own address and name without reloading, so nothing on screen moves.
const draftHeader = document.querySelector("#chat-header[data-setup-name]");
if (draftHeader) {
  const setupName = draftHeader.dataset.setupName;
  new MutationObserver(() => {
    const created = document.querySelector("#chat-header[data-replace-url]");
    if (!created || location.pathname === created.dataset.replaceUrl) return;
    history.replaceState(history.state, "", created.dataset.replaceUrl);
    document.title = created.dataset.title;
    const name = created.dataset.agentName;
    const composer = document.getElementById("composer-text");
    if (composer) composer.placeholder = composer.placeholder.replace(setupName, name);
    for (const label of document.querySelectorAll("label[for=composer-text]")) {
      label.textContent = label.textContent.replace(setupName, name);
    }
  }).observe(document.getElementById("main"), { childList: true, subtree: true });
}

// Whether pushes reach this tab: the first message after connecting is the resync.
document.addEventListener("htmx:wsAfterMessage", () => { document.body.dataset.socket = "live"; });
document.addEventListener("htmx:wsClose", (event) => {
  document.body.dataset.socket = "closed";
  // A server stopping cleanly (a restart) closes with 1001, which the ws extension does not
  // retry; try once, and if the server is still down its own retries take over (1006).
  if (event.detail.event.code === 1001) setTimeout(event.detail.socketWrapper.reconnect, 1000);
});
