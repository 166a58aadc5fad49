// Widget labels typeset with MathJax 3 (see tools/sphinx_scripts.py).
// ipywidgets 8 typesets a control's description with MathJax 2's API,
// MathJax.Hub.Queue(["Typeset", MathJax.Hub, element]) (jupyter-widgets/ipywidgets#3829);
// the book loads MathJax 3, which has no Hub, so every labelled slider threw an uncaught
// TypeError. MathJax 3 replaces window.MathJax (its configuration) when its deferred script
// runs, after this one: the setter gives that object a Hub whose Queue typesets with MathJax 3.
(function () {
  "use strict";
  var hub = {
    Queue: function (job) {
      var element = Array.isArray(job) ? job[2] : null, mathjax = window.MathJax;
      if (!element || !mathjax || !mathjax.startup) return;
      mathjax.startup.promise.then(function () { return mathjax.typesetPromise([element]); })
        .catch(function (err) { console.warn("MathJax could not typeset a widget label", err); });
    },
  };
  function withHub(value) {
    if (value && typeof value === "object" && value.version && !value.Hub) value.Hub = hub;
    return value;
  }
  var current = withHub(window.MathJax);
  Object.defineProperty(window, "MathJax", {
    configurable: true, enumerable: true,
    get: function () { return current; },
    set: function (value) { current = withHub(value); },
  });
})();
