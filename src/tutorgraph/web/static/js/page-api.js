// What the pages that talk to the JSON API share: building elements, reading a problem+json
// answer in the learner's words, and calling the API with the page's CSRF token.
(function () {
  "use strict";
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrfToken = csrfMeta ? csrfMeta.getAttribute("content") : "";

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  async function json(res) { try { return await res.json(); } catch (e) { return null; } }
  // A problem+json answer in the learner's words.
  function problem(res, body) {
    if (res.status === 401) return "Your session has ended: log in again.";
    if (body && body.detail) return typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
    if (body && body.title) return body.title;
    return "the server answered " + res.status;
  }
  // call(method, path, body) against `base`: JSON in and out (a FormData body is sent as it is);
  // a failure throws an Error whose message is for the learner.
  function client(base) {
    return async function call(method, path, body) {
      var init = { method: method, credentials: "same-origin", headers: {} };
      if (method !== "GET") init.headers["X-CSRF-Token"] = csrfToken;
      if (body instanceof FormData) init.body = body;
      else if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
      var res;
      try { res = await fetch(base + path, init); }
      catch (e) { throw new Error("The server could not be reached; check your connection and try again."); }
      var data = res.status === 204 ? null : await json(res);
      if (!res.ok) throw new Error(problem(res, data));
      return data;
    };
  }
  window.tutorgraphApi = { el: el, json: json, problem: problem, client: client, csrfToken: csrfToken };
})();
