// The little the browser needs beyond htmx. The server stays the source of truth.

// Pushed fragments are idempotent: an item a tab already shows in the same state is skipped
// (so what the person is typing in a pending form survives), a changed one is replaced.
document.addEventListener("htmx:oobBeforeSwap", (event) => {
  const fragment = event.detail.fragment;
  for (const incoming of [...fragment.querySelectorAll("[id][data-state]")]) {
    if (incoming.parentElement && incoming.parentElement.closest("[id][data-state]")) continue;
    const existing = document.getElementById(incoming.id);
    if (!existing || existing === event.detail.target) continue;
    if (existing.dataset.state !== incoming.dataset.state) {
      const replacement = incoming.cloneNode(true);
      existing.replaceWith(replacement);
      htmx.process(replacement);
    }
    incoming.remove();
  }
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
    if (input.type === "radio") {
      if (!form.querySelector(`input[name="${CSS.escape(input.name)}"]:checked`)) return false;
    } else if (!input.value.trim()) {
      return false;
    }
  }
  return true;
}

function refreshForms(root) {
  for (const form of root.querySelectorAll("form[data-part-form]")) {
    const submit = form.querySelector("[data-submit]");
    if (submit) submit.disabled = !requiredFilled(form);
    // Minutes east of UTC, so a date-time picker's local value becomes RFC 3339.
    for (const offset of form.querySelectorAll("[data-utc-offset]")) {
      offset.value = String(-new Date().getTimezoneOffset());
    }
  }
}

document.addEventListener("input", (event) => {
  const form = event.target.closest("form[data-part-form]");
  if (form) refreshForms(form.parentElement);
});

// Enter sends the message; Shift+Enter starts a new line.
document.addEventListener("keydown", (event) => {
  if (event.target.id !== "composer-text" || event.key !== "Enter" || event.shiftKey || event.isComposing) return;
  event.preventDefault();
  event.target.form.requestSubmit();
});

document.addEventListener("htmx:load", (event) => {
  refreshForms(document);
  updateTitle();
});
document.addEventListener("htmx:oobAfterSwap", () => {
  refreshForms(document);
  updateTitle();
});
document.addEventListener("htmx:afterSwap", (event) => {
  if (event.detail.target.id === "composer") document.getElementById("composer-text")?.focus();
});
