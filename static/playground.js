// The little the browser needs beyond htmx. The server stays the source of truth.

// Pushed fragments are idempotent: an item a tab already shows in the same state is skipped
// (so what the person is typing in a pending form survives), a changed one is replaced.
// New items scroll into view if the person was at the bottom of the chat (they are reading
// along); anyone scrolled up to read earlier answers stays where they are.
let followChat = false;

function atBottom() {
  return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80;
}

// A part only ever leaves "pending": a pending copy that arrives after the part was answered
// (its push overtaken by the answer's own response) must not bring the form back.
function overtaken(existing, incoming) {
  return existing.matches("article.part") && !existing.dataset.state.startsWith("pending")
    && incoming.dataset.state.startsWith("pending");
}

document.addEventListener("htmx:oobBeforeSwap", (event) => {
  followChat ||= atBottom();
  const fragment = event.detail.fragment;
  let replaced = false;
  for (const incoming of [...fragment.querySelectorAll("[id][data-state]")]) {
    if (incoming.parentElement && incoming.parentElement.closest("[id][data-state]")) continue;
    const existing = document.getElementById(incoming.id);
    if (!existing || existing === event.detail.target) continue;
    if (existing.dataset.state !== incoming.dataset.state && !overtaken(existing, incoming)) {
      // Focus inside a form that is replaced would fall to <body>: keep the person's place.
      const hadFocus = existing.contains(document.activeElement);
      const replacement = incoming.cloneNode(true);
      // A step someone opened to watch stays open as it finishes.
      if (existing.matches("details.step") && existing.open) replacement.open = true;
      existing.replaceWith(replacement);
      htmx.process(replacement);
      if (hadFocus) focusPart(replacement);
      replaced = true;
    }
    incoming.remove();
  }
  if (replaced) enhance(document);
  if (event.detail.target.id !== "status" && !fragment.querySelector("*") && !fragment.textContent.trim()) {
    event.detail.shouldSwap = false;
  }
});

// A fast agent's first step or word can reach the tab before the turn it belongs to (the
// send's own response, or a push from another process, shows the turn): it waits here and is
// swapped in, through the rules above, once its turn is shown.
const early = [];
document.addEventListener("htmx:oobErrorNoTarget", (event) => {
  const { content, target } = event.detail;
  if (!/^#turn-\d+-items$/.test(target)) return;
  content.setAttribute("hx-swap-oob", `beforeend:${target}`);  // items are appended to a turn
  early.push({ target, html: content.outerHTML });
});
function showEarly() {
  for (const item of early.filter(({ target }) => document.querySelector(target))) {
    early.splice(early.indexOf(item), 1);
    htmx.swap(document.body, item.html, { swapStyle: "none" });
  }
}
document.addEventListener("htmx:afterSettle", showEarly);
document.addEventListener("htmx:oobAfterSwap", showEarly);

// The tab title counts the questions waiting for the person: in this conversation, or
// elsewhere everything in their inbox (the header's count).
function updateTitle() {
  const status = document.getElementById("status") || document.getElementById("inbox-count");
  if (!status) return;
  const waiting = Number(status.dataset.waiting || 0);
  const base = document.title.replace(/^\(\d+\) /, "");
  document.title = waiting ? `(${waiting}) ${base}` : base;
}

// Submit stays disabled while a required field is empty (the server checks again), and
// says which ones, each a link to its field.
function missingFields(form) {
  const missing = [];
  for (const input of form.querySelectorAll("input[required], textarea[required], select[required]")) {
    if (!input.disabled && !input.value.trim()) missing.push([input, form.querySelector(`label[for="${input.id}"]`)]);
  }
  for (const group of form.querySelectorAll("fieldset[data-required]")) {
    if (!group.querySelector("input:checked")) missing.push([group.querySelector("input"), group.querySelector("legend")]);
  }
  return missing.filter(([input, label]) => input && label);
}

function explainSubmit(form, submit, missing) {
  let note = form.querySelector(":scope > [data-missing]");
  if (!missing.length) {
    note?.remove();
    submit.removeAttribute("aria-describedby");
    return;
  }
  if (!note) {
    note = document.createElement("p");
    note.className = "missing help";
    note.id = `${form.closest("article").id}-missing`;
    note.dataset.missing = "";
    form.querySelector(":scope > .actions").before(note);
  }
  const links = missing.flatMap(([input, label], index) => {
    const link = document.createElement("a");
    link.href = `#${input.id}`;
    link.dataset.focuses = input.id;
    link.textContent = label.textContent.replace("(required)", "").replace("*", "").trim();
    return index ? [", ", link] : [link];
  });
  note.replaceChildren("Fill in: ", ...links);
  submit.setAttribute("aria-describedby", note.id);
}

// A "Fill in" link brings its field into view (above the composer) and focuses it.
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-focuses]");
  const field = link && document.getElementById(link.dataset.focuses);
  if (!field) return;
  event.preventDefault();
  field.scrollIntoView({ block: "center" });
  field.focus();
});

// A multi-select with maxItems: once enough boxes are ticked, the others wait.
function limitChoices(form) {
  for (const group of form.querySelectorAll("fieldset[data-max-items]")) {
    const boxes = [...group.querySelectorAll("input[type=checkbox]")];
    const full = boxes.filter((box) => box.checked).length >= Number(group.dataset.maxItems);
    for (const box of boxes) box.disabled = full && !box.checked;
  }
}

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
    if (!form.dataset.restored) restoreDraft(form, draftKey(form));
    form.dataset.restored = "";
    showApplicable(form);
    limitChoices(form);
    const submit = form.querySelector("[data-submit]");
    if (submit) {
      const missing = missingFields(form);
      submit.disabled = missing.length > 0;
      explainSubmit(form, submit, missing);
    }
  }
  // A settled question's draft is done with.
  for (const part of document.querySelectorAll("article.part:not([data-state=pending])")) {
    sessionStorage.removeItem(`draft:${part.id}`);
  }
  const composer = document.getElementById("composer-text");
  if (composer && !composer.value && !composer.dataset.restored) {
    composer.value = sessionStorage.getItem(draftKey(composer.form)) || "";
  }
  if (composer) composer.dataset.restored = "";
  updateTitle();
}

// What a person types is kept in this tab until it is sent: a reload, or logging in again
// after the session expired, brings it back.
function draftKey(form) {
  return form.id === "composer" ? `draft:composer:${location.pathname}` : `draft:${form.closest("article.part").id}`;
}

// A chosen file cannot be kept in a draft (nor set again by a script), and a secret never is,
// whatever path saves or restores the draft: a password-type input, or one marked data-secret
// (a connection card's credential fields).
function keptInDraft(input) {
  if (!input.name || input.tagName === "BUTTON" || input.matches("[data-secret]")) return false;
  return !["hidden", "file", "password"].includes(input.type);
}

function saveDraft(form) {
  if (form.id === "composer") {
    sessionStorage.setItem(draftKey(form), form.elements.text.value);
    return;
  }
  const saved = {};
  for (const input of form.elements) {
    if (!keptInDraft(input)) continue;
    saved[input.name] ??= [];
    if (input.type === "checkbox" || input.type === "radio") {
      if (input.checked) saved[input.name].push(input.value);
    } else if (input.multiple) {
      saved[input.name].push(...[...input.selectedOptions].map((option) => option.value));
    } else {
      saved[input.name].push(input.value);
    }
  }
  sessionStorage.setItem(draftKey(form), JSON.stringify(saved));
}

function restoreDraft(form, key) {
  let saved;
  try {
    saved = JSON.parse(sessionStorage.getItem(key) || "null");
  } catch {
    return;
  }
  if (!saved) return;
  for (const input of form.elements) {
    const values = saved[input.name];
    if (!values || !keptInDraft(input)) continue;
    if (input.type === "checkbox" || input.type === "radio") input.checked = values.includes(input.value);
    else if (input.multiple) for (const option of input.options) option.selected = values.includes(option.value);
    else input.value = values.at(-1) ?? "";
  }
}

document.addEventListener("input", (event) => {
  const form = event.target.closest("form[data-part-form], #composer");
  if (!form) return;
  saveDraft(form);
  if (form.matches("[data-part-form]")) enhance(form.parentElement);
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
document.addEventListener("htmx:oobAfterSwap", () => {
  enhance(document);
  if (followChat) window.scrollTo({ top: document.documentElement.scrollHeight });
  followChat = false;
});

// After an answer, focus follows it: to the first field to fix, or to the answered part.
function focusPart(part) {
  const invalid = part.querySelector("[aria-invalid=true]");
  const first = invalid && (invalid.matches("fieldset") ? invalid.querySelector("input") : invalid);
  (first || (part.dataset.state !== "pending" ? part : null))?.focus();
  // A field focused for the first time has its caret at the start: put it after what the
  // person typed, so that typing on fixes it.
  if (first && typeof first.selectionStart === "number") first.setSelectionRange(first.value.length, first.value.length);
}

document.addEventListener("htmx:afterSwap", (event) => {
  const id = event.detail.target.id;
  if (id === "composer") {
    if (event.detail.xhr.status === 200) sessionStorage.removeItem(draftKey(event.detail.target));
    document.getElementById("composer-text")?.focus();
  }
  const part = id.startsWith("part-") && document.getElementById(id);
  if (part) focusPart(part);
  if (part) recountWaiting();
});

// Without a live socket no status push comes: count this page's open questions instead (a
// 409 shows the question answered elsewhere).
function recountWaiting() {
  const status = document.getElementById("status");
  if (!status || document.body.dataset.socket === "live") return;
  const waiting = document.querySelectorAll("article.part[data-state=pending]").length;
  status.dataset.waiting = String(waiting);
  let note = status.querySelector(".waiting");
  if (!waiting) {
    note?.remove();
  } else {
    if (!note) {
      note = document.createElement("span");
      note.className = "waiting";
      status.append(note);
    }
    note.textContent = `${waiting} question${waiting === 1 ? "" : "s"} waiting for you`;
  }
  updateTitle();
}

// A push can answer the question before the POST's own response comes back; htmx then drops
// the response, and focus would be left on <body>.
document.addEventListener("htmx:afterRequest", (event) => {
  const id = event.detail.target && event.detail.target.id;
  const part = id && id.startsWith("part-") && document.getElementById(id);
  if (part && part !== event.detail.target && document.activeElement === document.body) focusPart(part);
});

// Responses htmx does not swap (401, 403, 404, 5xx) and lost connections get a clear message.
function problemText(status) {
  if (status === 401) return "You were logged out. Log in again — your answer is kept.";
  if (status === 403) return "This page is out of date or you were logged out. Reload the page and try again; nothing was saved.";
  if (status === 404) return "This conversation is not available to you any more. Nothing was saved.";
  if (!status) return "Could not reach the server. Check your connection and try again; nothing was saved.";
  return `The server could not handle that (error ${status}). Nothing was saved; try again.`;
}

function problemNote(elt) {
  const form = elt.closest("form") || elt;
  let note = form.querySelector(":scope > [data-request-error]");
  if (!note) {
    note = document.createElement("p");
    note.className = "error form-error";
    note.setAttribute("role", "alert");
    note.dataset.requestError = "";
    form.prepend(note);
  }
  return [form, note];
}

function showProblem(event) {
  const refusal = event.detail.xhr && event.detail.xhr.getResponseHeader("HX-Trigger");
  if (refusal && refusal.includes("requestRefused")) return;  // it says why itself (below)
  const [form, note] = problemNote(event.detail.elt);
  const status = event.detail.xhr ? event.detail.xhr.status : 0;
  note.textContent = problemText(status);
  if (status === 401) {
    // What was typed is kept in this tab (see saveDraft), and comes back after logging in.
    saveDraft(form);
    const login = document.createElement("a");
    login.href = `${document.body.dataset.loginUrl}?next=${encodeURIComponent(location.pathname)}`;
    login.textContent = "Log in again";
    note.replaceChildren("You were logged out. ", login, " — your answer is kept.");
  }
}

document.addEventListener("htmx:responseError", showProblem);
document.addEventListener("htmx:sendError", showProblem);
// A form the server could not read (too big, cut off) is refused with a sentence and nothing
// swapped (playground/unreadable_requests.py), so everything typed stays on the page.
document.addEventListener("requestRefused", (event) => {
  problemNote(event.target)[1].textContent = event.detail.message;
});
document.addEventListener("htmx:afterRequest", (event) => {
  if (!event.detail.successful) return;
  (event.detail.elt.closest("form") || event.detail.elt).querySelector(":scope > [data-request-error]")?.remove();
});

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

// The person's time zone, from the browser: sent with the login form, or once from a page
// of a session that started before we asked.
const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
for (const input of document.querySelectorAll("[data-browser-zone]")) input.value = browserZone;
if (document.body.dataset.zoneUnknown && browserZone) {
  fetch(document.body.dataset.zoneUnknown, {
    method: "POST",
    headers: { "X-CSRFToken": JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"] },
    body: new URLSearchParams({ time_zone: browserZone }),
  });
}

// Whether pushes reach this tab: the first message after connecting is the resync.
document.addEventListener("htmx:wsAfterMessage", () => { document.body.dataset.socket = "live"; });
document.addEventListener("htmx:wsClose", (event) => {
  document.body.dataset.socket = "closed";
  // A server stopping cleanly (a restart) closes with 1001, and one that lost Redis with 4012
  // (playground/socket_watch.py); the ws extension retries neither. Try once, and if the
  // server is still down its own retries take over (1006).
  if ([1001, 4012].includes(event.detail.event.code)) {
    setTimeout(event.detail.socketWrapper.reconnect, 1000);
  }
});

// The header's theme toggle: an explicit light or dark, remembered in this browser.
const themeToggle = document.querySelector("[data-theme-toggle]");
function showTheme() {
  const dark = document.documentElement.dataset.theme
    ? document.documentElement.dataset.theme === "dark"
    : matchMedia("(prefers-color-scheme: dark)").matches;
  themeToggle.setAttribute("aria-pressed", String(dark));
}
if (themeToggle) {
  showTheme();
  themeToggle.addEventListener("click", () => {
    const theme = themeToggle.getAttribute("aria-pressed") === "true" ? "light" : "dark";
    document.documentElement.dataset.theme = theme;
    try {
      localStorage.setItem("theme", theme);
    } catch {
      // Not remembered, but applied for this page.
    }
    showTheme();
  });
}

// A conversation opens at its first waiting question (below the fold on a phone), else at
// its end, like a chat. Only on load: later pushes follow the rules at the top of this file.
const transcript = document.getElementById("transcript");
if (transcript && transcript.querySelector(".turn")) {
  const waiting = transcript.querySelector("article.part[data-state^=pending]");
  if (waiting) waiting.scrollIntoView({ block: "start" });
  else window.scrollTo({ top: document.documentElement.scrollHeight });
}

// Logging out in one tab tells the others (the storage event), so no header keeps offering
// "Log out" for a session that is gone.
const logoutForm = document.querySelector("form.logout");
logoutForm?.addEventListener("submit", () => {
  try {
    localStorage.setItem("logged-out", String(Date.now()));
  } catch {
    // Storage refused: the other tabs find out at their next request instead.
  }
});
addEventListener("storage", (event) => {
  if (event.key !== "logged-out" || !logoutForm?.isConnected) return;
  const login = document.createElement("a");
  login.href = `${document.body.dataset.loginUrl}?next=${encodeURIComponent(location.pathname)}`;
  login.textContent = "Log in again";
  const note = document.createElement("p");
  note.className = "logout logged-out";
  note.setAttribute("role", "status");
  note.append("You logged out in another tab. ", login);
  logoutForm.replaceWith(note);
});
// Browser notifications (notify/): a question waits in another conversation. The server pushes
// #browser-notice to this person's tabs; shown only where the person allowed notifications.
// The event's target is the element swapped out: read the one swapped in, once per tag.
let lastNoticeTag = "";
document.addEventListener("htmx:oobAfterSwap", () => {
  const notice = document.getElementById("browser-notice");
  const { title, body, url, tag } = notice ? notice.dataset : {};
  if (!tag || tag === lastNoticeTag || !("Notification" in window)) return;
  lastNoticeTag = tag;
  if (Notification.permission !== "granted") return;
  const shown = new Notification(title, { body, tag });
  shown.addEventListener("click", () => { window.focus(); window.location.assign(url); });
});
const notifyState = document.querySelector("[data-browser-notify-state]");
const notifyAllow = document.querySelector("[data-browser-notify-allow]");
if (notifyState && notifyAllow) {
  const show = () => {
    const permission = "Notification" in window ? Notification.permission : "unsupported";
    notifyAllow.hidden = permission !== "default";
    if (permission === "granted") notifyState.textContent = "Browser notifications are on in this browser.";
    if (permission === "denied") notifyState.textContent = "This browser blocks the playground's notifications; allow them in its site settings.";
    if (permission === "unsupported") notifyState.textContent = "This browser cannot show notifications.";
  };
  notifyAllow.addEventListener("click", () => Notification.requestPermission().then(show));
  show();
}

// A deep link to a question (#part-12, from a notification) lands on it: focus its first field
// once the page has loaded (the browser focuses the part itself, its fragment target, first),
// and again after the socket's resync if that swapped the focused field out.
function focusLinkedPart() {
  const id = window.location.hash.slice(1);
  const part = id.startsWith("part-") && document.getElementById(id);
  const field = part && part.querySelector("input:not([type=hidden]), select, textarea, button");
  if (field && (!part.contains(document.activeElement) || document.activeElement === part)) field.focus();
}
window.addEventListener("load", focusLinkedPart);
document.addEventListener("htmx:wsAfterMessage", focusLinkedPart, { once: true });

// Files: a file over its field's limit is said at once, before anything is sent (the server
// checks again); while a form with files uploads, htmx reports the progress for the bar.
document.addEventListener("change", (event) => {
  const input = event.target;
  if (!input.matches || !input.matches("input[type=file][data-max-size]")) return;
  const limit = Number(input.dataset.maxSize);
  const tooLarge = [...input.files].find((file) => file.size > limit);
  const field = input.closest(".field");
  let note = field.querySelector("[data-file-note]");
  if (!tooLarge) {
    if (note) note.remove();
    return;
  }
  if (!note) {
    note = document.createElement("p");
    note.className = "error";
    note.dataset.fileNote = "";
    note.setAttribute("role", "alert");
    input.after(note);
  }
  note.textContent = `${tooLarge.name} is ${sizeText(tooLarge.size)}; the limit is ${sizeText(limit)}. Choose a smaller file.`;
  input.value = "";
});

// As the server says sizes (elicitation.contract.size_text): "900 KB", "1.5 MB".
function sizeText(size) {
  for (const [unit, scale] of [["GB", 1e9], ["MB", 1e6], ["KB", 1e3]]) {
    if (size >= scale) return `${(size / scale).toFixed(1).replace(/\.0$/, "")} ${unit}`;
  }
  return size === 1 ? "1 byte" : `${size} bytes`;
}

document.addEventListener("htmx:xhr:progress", (event) => {
  const status = event.target.querySelector && event.target.querySelector("[data-upload-status]");
  if (!status || !event.detail.lengthComputable || !event.detail.total) return;
  const percent = Math.round((100 * event.detail.loaded) / event.detail.total);
  status.hidden = false;
  status.querySelector("progress").value = percent;
  status.querySelector("span").textContent = percent < 100 ? `Uploading… ${percent} %` : "Uploaded, checking…";
});
