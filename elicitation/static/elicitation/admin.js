// Grow each chat frame to its content, so the rendered question reads without a scrollbar.
(() => {
  function fit(frame) {
    const body = frame.contentDocument && frame.contentDocument.body;
    if (!body) return;
    const resize = () => { frame.style.height = Math.ceil(body.getBoundingClientRect().height) + "px"; };
    resize();
    new ResizeObserver(resize).observe(body);
  }
  function watch(frame) {
    frame.addEventListener("load", () => fit(frame));
    if (frame.contentDocument && frame.contentDocument.readyState === "complete") fit(frame);
  }
  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("iframe.chat-frame").forEach(watch);
  });
})();
