// Accessible explorers on the static site (see ibcore/book/explorer.py).
// The widget manager draws each slider as a noUiSlider handle (role="slider") with no
// accessible name, and its aria-valuenow is the index of the option, not the value shown.
// Name each handle by its slider's label and give it the readout as its value text.
(function () {
  "use strict";
  var count = 0;

  function set(element, name, value) {
    if (value && element.getAttribute(name) !== value) element.setAttribute(name, value);
  }

  function nameSliders() {
    document.querySelectorAll('.noUi-handle[role="slider"]').forEach(function (handle) {
      var widget = handle.closest(".widget-slider, .widget-hslider, .widget-vslider");
      if (!widget) return;
      var label = widget.querySelector(".widget-label");
      if (label && label.textContent.trim()) {
        if (!label.id) label.id = "ib-slider-label-" + (++count);
        set(handle, "aria-labelledby", label.id);
      }
      var readout = widget.querySelector(".widget-readout");
      if (readout) set(handle, "aria-valuetext", readout.textContent.trim());
    });
  }

  function start() {
    nameSliders();
    // widgets render after the page loads, and readouts change when a slider moves
    new MutationObserver(nameSliders).observe(document.body, {
      subtree: true, childList: true, characterData: true,
      attributes: true, attributeFilter: ["aria-valuenow"],
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
