// The interview home page: start an interview from a resume (a file or pasted text), list your
// interviews, and list your stored resumes (each can start another interview or be deleted).
(function () {
  "use strict";
  var root = document.getElementById("interview-home");
  if (!root) return;
  var api = "/api/v1";
  var maxBytes = Number(root.getAttribute("data-max-bytes") || "2097152");
  var maxMb = root.getAttribute("data-max-mb") || "2";
  var maxChars = Number(root.getAttribute("data-max-chars") || "50000");
  var busy = false;

  var el = window.tutorgraphApi.el;
  var call = window.tutorgraphApi.client(api);
  function $(id) { return document.getElementById(id); }
  function fmt(iso) {
    try { return new Date(iso).toLocaleString(); } catch (e) { return iso; }
  }

  // ---- starting ----
  function setBusy(on, message) {
    busy = on;
    $("start-button").disabled = on;
    $("start-status").textContent = message || "";
    root.querySelectorAll("[data-start-with]").forEach(function (b) { b.disabled = on; });
  }
  function showError(message) {
    $("start-error").textContent = message;
    if (message) $("start-error").scrollIntoView({ block: "nearest" });
  }
  function options() {
    return { role: $("role").value.trim() || "Software engineer", level: $("level").value };
  }

  async function begin(resumeId) {
    setBusy(true, "Preparing your interviewer…");
    var view = await call("POST", "/interviews", Object.assign({ resume_id: resumeId }, options()));
    window.location.assign("/interview/" + encodeURIComponent(view.id));
  }

  $("start-form").addEventListener("submit", async function (e) {
    e.preventDefault();
    if (busy) return;
    showError("");
    var file = $("resume-file").files[0];
    var text = $("resume-text").value;
    if (!file && !text.trim()) { showError("Choose a resume file or paste your resume first."); return; }
    if (file && file.size > maxBytes) { showError(file.name + " is larger than " + maxMb + " MB."); return; }
    if (!file && text.length > maxChars) { showError("The pasted resume is longer than " + maxChars + " characters."); return; }
    var form = new FormData();
    if (file) form.append("file", file); else form.append("text", text);
    try {
      setBusy(true, "Reading your resume…");
      var resume = await call("POST", "/resumes", form);
      await begin(resume.id);
    } catch (err) {
      setBusy(false);
      showError(err.message);
      loadLists();
    }
  });

  // ---- your interviews and resumes ----
  var STATUS = { in_progress: "in progress", complete: "complete" };

  function renderInterviews(rows) {
    var list = $("interviews");
    list.textContent = "";
    $("no-interviews").textContent = rows.length ? "" : "No interviews yet.";
    $("no-interviews").hidden = rows.length > 0;
    rows.forEach(function (row) {
      var li = el("li", { "class": "card", "data-interview": row.id, "data-status": row.status });
      var link = el("a", { href: "/interview/" + encodeURIComponent(row.id) }, row.role);
      var title = el("h3", {});
      title.appendChild(link);
      li.appendChild(title);
      var score = row.overall == null ? "no score yet" : "overall " + row.overall + "/100";
      li.appendChild(el("p", { "class": "muted" }, row.level + " · " + (STATUS[row.status] || row.status) + " · " + score));
      li.appendChild(el("p", { "class": "muted small" }, "Started " + fmt(row.created_at)));
      list.appendChild(li);
    });
  }

  function renderResumes(rows) {
    var list = $("resumes");
    list.textContent = "";
    $("no-resumes").textContent = rows.length ? "" : "No resumes stored.";
    $("no-resumes").hidden = rows.length > 0;
    rows.forEach(function (row) {
      var li = el("li", { "class": "card", "data-resume": row.id });
      li.appendChild(el("h3", {}, row.filename));
      var facts = row.words + " words · " + row.anchors.length + " topics to discuss";
      if (row.skills.length) facts += " · skills: " + row.skills.slice(0, 8).join(", ") + (row.skills.length > 8 ? "…" : "");
      li.appendChild(el("p", { "class": "muted" }, facts));
      li.appendChild(el("p", { "class": "muted small" }, "Added " + fmt(row.created_at)));
      var actions = el("div", { "class": "actions" });
      var use = el("button", { type: "button", "class": "secondary", "data-start-with": row.id,
        "aria-label": "Interview with this resume (" + row.filename + ")" }, "Interview with this resume");
      use.addEventListener("click", async function () {
        if (busy) return;
        showError("");
        try { await begin(row.id); }
        catch (err) { setBusy(false); showError(err.message); }
      });
      var del = el("button", { type: "button", "class": "danger", "aria-label": "Delete " + row.filename }, "Delete");
      del.addEventListener("click", async function () {
        if (!window.confirm("Delete " + row.filename + " and every interview made from it?")) return;
        $("list-error").textContent = "";
        del.disabled = true;
        try { await call("DELETE", "/resumes/" + encodeURIComponent(row.id)); }
        catch (err) { $("list-error").textContent = "Could not delete " + row.filename + ": " + err.message; }
        loadLists();
      });
      actions.appendChild(use);
      actions.appendChild(del);
      li.appendChild(actions);
      list.appendChild(li);
    });
  }

  async function loadLists() {
    try {
      var both = await Promise.all([call("GET", "/interviews"), call("GET", "/resumes")]);
      renderInterviews(both[0]);
      renderResumes(both[1]);
    } catch (err) {
      $("no-interviews").textContent = "";
      $("no-resumes").textContent = "";
      $("list-error").textContent = "Your interviews could not be loaded: " + err.message;
    }
  }

  $("start-button").disabled = false;  // sending is handled from here on
  loadLists();
})();
