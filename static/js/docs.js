// Starts the vendored Swagger UI on /docs (kept out of the page: no inline scripts).
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  window.SwaggerUIBundle({ url: root.dataset.openapiUrl, dom_id: "#swagger-ui" });
})();
