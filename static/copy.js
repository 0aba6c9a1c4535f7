// A Copy button puts its field's text on the clipboard and says so; the field stays
// selected, so copying by hand works where the clipboard is refused.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copies]");
  const field = button && document.getElementById(button.dataset.copies);
  if (!field) return;
  const said = document.querySelector(`[data-copied-for="${field.id}"]`);
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
    said.textContent = "Copied to the clipboard.";
  } catch {
    said.textContent = "Could not copy: the text is selected, press Ctrl+C (⌘C on a Mac).";
  }
});
