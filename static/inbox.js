// The inbox's keyboard triage, and its live list (pushed over the header's socket).

const list = document.getElementById("inbox-list");

function items() {
  return [...list.querySelectorAll(":scope > li.inbox-item")];
}

function current() {
  return document.activeElement && document.activeElement.closest("li.inbox-item");
}

function move(step) {
  const all = items();
  if (!all.length) return;
  const index = all.indexOf(current());
  const next = all[Math.min(Math.max(index === -1 ? 0 : index + step, 0), all.length - 1)];
  next.focus();
  next.scrollIntoView({ block: "nearest" });
}

// j / k: next / previous question; f: its first field; o: open its conversation at it.
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
  if (event.target.closest("input, textarea, select, [contenteditable]")) return;
  const item = current();
  if (event.key === "j") move(1);
  else if (event.key === "k") move(-1);
  else if (event.key === "f" && item) item.querySelector("form input:not([type=hidden]), form textarea, form select, form button")?.focus();
  else if (event.key === "o" && item) item.querySelector("a[data-open]")?.click();
  else return;
  event.preventDefault();
});

// An answered question replaces its item if this page shows it (playground.js); one this
// page never listed is not added.
document.addEventListener("htmx:oobBeforeSwap", (event) => {
  if (event.detail.target !== list) return;
  for (const item of [...event.detail.fragment.querySelectorAll(":scope > li.inbox-item")]) {
    if (item.dataset.state !== "pending") item.remove();
  }
});
