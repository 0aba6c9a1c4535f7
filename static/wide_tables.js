// A table wider than its box scrolls sideways inside it (.table-wrap, playground.css shades the
// edge that has more): its hint, the element that describes it, shows only while it does. Checked
// again after a resize and after htmx swaps a new table in (the workbench's field map).
function markWideTables() {
  for (const wrap of document.querySelectorAll(".table-wrap[aria-describedby]")) {
    const hint = document.getElementById(wrap.getAttribute("aria-describedby"));
    if (hint) hint.hidden = wrap.scrollWidth <= wrap.clientWidth;
  }
}
markWideTables();
addEventListener("resize", markWideTables);
document.addEventListener("htmx:afterSettle", markWideTables);
