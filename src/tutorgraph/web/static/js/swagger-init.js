// Starts Swagger UI on /docs from files served by this server (no CDN, no inline script).
window.addEventListener("load", function () {
  "use strict";
  window.ui = window.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [window.SwaggerUIBundle.presets.apis, window.SwaggerUIStandalonePreset],
    layout: "BaseLayout"
  });
});
