// Starts Swagger UI on the Worker's own OpenAPI document. A file rather than an inline script, as
// the page's CSP allows scripts from this origin only. `validatorUrl: null`: Swagger UI would
// otherwise load a badge from validator.swagger.io, and the page reaches no other origin.
/* global SwaggerUIBundle */
window.addEventListener("DOMContentLoaded", () => {
  SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#api-reference",
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
  });
});
