// The header's menu on a narrow screen: its links fold behind the Menu button, which opens and
// closes them (Escape closes them too, back on the button). Loaded in <head>, before the first
// paint: the class below is what folds them (playground.css), so without scripts they stay open.
document.documentElement.classList.add("has-menu");

function setMenu(button, open) {
  button.setAttribute("aria-expanded", String(open));
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-menu-toggle]");
  if (button) setMenu(button, button.getAttribute("aria-expanded") !== "true");
});

document.addEventListener("keydown", (event) => {
  const button = document.querySelector("[data-menu-toggle][aria-expanded=true]");
  const menu = button && document.getElementById(button.getAttribute("aria-controls"));
  if (event.key !== "Escape" || !menu) return;
  if (document.activeElement === button || menu.contains(document.activeElement)) {
    setMenu(button, false);
    button.focus();
  }
});
