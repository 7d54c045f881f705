// The course builder page: uploads, turns, progress (SSE), structure and quiz reviews, publish.
(function () {
  "use strict";
  var root = document.getElementById("build");
  if (!root) return;
  var sessionId = root.getAttribute("data-session");
  var api = "/api/v1/constructor";
  var csrfToken = window.tutorgraphApi.csrfToken;
  var el = window.tutorgraphApi.el;
  var json = window.tutorgraphApi.json;
  var problem = window.tutorgraphApi.problem;
  var view = null;
  var following = false;
  // The build's steps in the author's words, and what each Bloom level asks (from the page).
  var STEPS = JSON.parse(root.getAttribute("data-steps") || "[]");
  var BLOOM = JSON.parse(root.getAttribute("data-bloom") || "{}");

  function $(id) { return document.getElementById(id); }
  function counted(n, noun, plural) { return n + " " + (n === 1 ? noun : (plural || noun + "s")); }
  function level(name) { return name + (BLOOM[name] ? " (" + BLOOM[name] + ")" : ""); }
  // Where the build stands when no step is running, and what the author does next.
  var PHASE_WORDS = {
    collecting: "Upload your files, then choose Read my files.",
    ingested: "Your files are read. Next: propose a structure.",
    structure_review: "Ready to review: edit the structure below, then approve it.",
    structure_approved: "Structure approved. Next: write the quiz questions.",
    quiz_review: "Ready to review: check the questions below, then approve them.",
    quiz_approved: "Questions approved. Next: check the course is ready.",
    validated: "Checked. Next: publish the course.",
    published: "Published. You can publish again after changes.",
  };
  // A question's text with its ``` fenced code shown as code (text only: nothing is parsed as HTML).
  function withCode(text) {
    var box = el("div", { "class": "question-text" });
    text.split(/```[\w+-]*\n?/).forEach(function (part, i) {
      if (!part.trim()) return;
      if (i % 2 === 1) { var pre = el("pre"); pre.appendChild(el("code", {}, part.replace(/\n$/, ""))); box.appendChild(pre); }
      else box.appendChild(el("p", {}, part.trim()));
    });
    return box;
  }

  async function load() {
    var res = await fetch(api + "/session/status/" + encodeURIComponent(sessionId), { credentials: "same-origin" });
    var body = await json(res);
    if (!res.ok) { $("status").textContent = problem(res, body); return; }
    view = body;
    render();
    if (view.status === "running") follow(view.last_event_id > 0 ? 0 : 0);
  }

  async function turn(payload) {
    if (following) return;
    $("status").textContent = "Working…";
    var res = await fetch(api + "/session/chat", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken },
      body: JSON.stringify(Object.assign({ session_id: sessionId }, payload)),
    });
    var body = await json(res);
    if (!res.ok) {
      // Publishing below the bar: the server says why; the author confirms or goes back.
      if (res.status === 409 && payload.action === "publish" && !payload.confirm) { confirmPublish(problem(res, body)); return; }
      $("status").textContent = problem(res, body);
      return;
    }
    hidePublishConfirm();
    view = body;
    render();
    follow(body.last_event_id);
  }

  // The confirm step before publishing a course below the bar: the failed checks, then
  // "Publish anyway" or "Not now".
  function confirmPublish(reason) {
    var box = $("publish-confirm");
    box.textContent = "";
    box.hidden = false;
    box.appendChild(el("h3", { id: "publish-confirm-heading" }, "Publish below the bar?"));
    var r = view && view.report;
    var failed = r ? r.checks.filter(function (c) { return !c.passed; }) : [];
    if (failed.length) {
      box.appendChild(el("p", {}, "Readiness is " + r.readiness + " out of 100. These checks did not pass:"));
      var ul = el("ul", { "data-testid": "publish-failed-checks" });
      failed.forEach(function (c) { ul.appendChild(el("li", {}, (CHECK_WORDS[c.name] || c.name) + ": " + c.detail)); });
      box.appendChild(ul);
    } else {
      box.appendChild(el("p", {}, reason));
    }
    var bar = el("div", { "class": "inline-form" });
    var yes = el("button", { type: "button", "data-testid": "publish-anyway" }, "Publish anyway");
    yes.addEventListener("click", function () { turn({ action: "publish", confirm: true }); });
    var no = el("button", { type: "button", "class": "secondary", "data-testid": "publish-not-now" }, "Not now");
    no.addEventListener("click", function () { hidePublishConfirm(); $("status").textContent = "Not published. Improve the course, then check its readiness again."; });
    bar.appendChild(yes); bar.appendChild(no);
    box.appendChild(bar);
    $("status").textContent = "Not published yet: the course is below the bar.";
    yes.focus();
  }

  function hidePublishConfirm() { var box = $("publish-confirm"); if (box) { box.hidden = true; box.textContent = ""; } }

  // Progress events; the browser's EventSource resumes with Last-Event-ID after a drop.
  function follow(after) {
    following = true;
    $("progress").hidden = false;
    $("steps").hidden = false;
    var source = new EventSource(api + "/session/events/" + encodeURIComponent(sessionId) + "?after=" + (after || 0));
    source.onmessage = function (e) {
      var event = JSON.parse(e.data);
      // The details, for whoever wants them: the last few lines, in plain words.
      $("progress-log").appendChild(el("li", {}, event.message));
      while ($("progress-log").children.length > 12) $("progress-log").removeChild($("progress-log").firstChild);
      if (event.total) { $("progress").max = event.total; $("progress").value = event.done; }
      else { $("progress").removeAttribute("value"); }
      var step = event.step || (STEPS.indexOf(event.message) >= 0 || event.stage === "coordinator" ? event.message : "");
      if (step) showStep(step);
    };
    source.addEventListener("end", function () {
      source.close(); following = false; $("progress").hidden = true; load();
    });
    source.onerror = function () {
      if (source.readyState === EventSource.CLOSED) { following = false; $("progress").hidden = true; load(); }
    };
  }

  // The steps list: the current one marked, those before it done.
  function showStep(step) {
    var items = $("steps").querySelectorAll("li");
    var at = STEPS.indexOf(step);
    items.forEach(function (li, i) {
      li.classList.toggle("done", at >= 0 && i < at);
      if (i === at) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
    });
    $("status").textContent = step === STEPS[STEPS.length - 1] ? step + "." : step + "…";
  }

  function render() {
    var t = view.title || "New course";
    document.querySelector("[data-testid=build-title]").textContent = t;
    renderUploads();
    renderMessages();
    renderActions();
    renderStructure();
    renderQuiz();
    renderReport();
    renderPublished();
    root.setAttribute("data-phase", view.phase);
    root.setAttribute("data-state", view.status);
    if (view.status === "failed") $("status").textContent = "That step did not finish: " + (view.error || "something went wrong") + ". You can try again.";
    else if (view.status === "idle") {
      if (view.phase === "structure_review" || view.phase === "quiz_review") showStep(STEPS[STEPS.length - 1]);
      $("status").textContent = PHASE_WORDS[view.phase] || "";
    }
  }

  function renderUploads() {
    var list = $("uploads");
    list.textContent = "";
    view.uploads.forEach(function (u) {
      var label = u.filename + " · " + Math.max(1, Math.round(u.size / 1024)) + " KB · ";
      label += u.status === "read" ? "read (" + counted(u.words, "word") + ")" : u.status === "failed" ? "could not be read: " + u.error : "waiting to be read";
      list.appendChild(el("li", { "data-status": u.status }, label));
    });
  }

  function renderMessages() {
    var log = $("messages");
    log.textContent = "";
    view.messages.slice(-12).forEach(function (m) {
      log.appendChild(el("p", { "class": "msg " + m.role, "data-role": m.role }, (m.role === "user" ? "You: " : "") + m.content));
    });
    log.scrollTop = log.scrollHeight;
  }

  var ACTIONS = {
    collecting: [["ingest", "Read my files"]],
    ingested: [["build_structure", "Propose a structure"], ["ingest", "Read new files"]],
    structure_approved: [["generate_quiz", "Write the quiz bank"], ["build_structure", "Propose the structure again"]],
    quiz_approved: [["validate", "Check readiness"]],
    validated: [["publish", "Publish"], ["generate_quiz", "Rewrite the quiz bank"]],
    published: [["publish", "Publish again (update)"], ["ingest", "Read new files"]],
  };

  function renderActions() {
    var box = $("actions");
    box.textContent = "";
    (ACTIONS[view.phase] || []).forEach(function (pair) {
      var b = el("button", { type: "button", "class": pair[0] === "publish" ? "" : "secondary", "data-action": pair[0] }, pair[1]);
      b.disabled = view.status === "running";
      b.addEventListener("click", function () { turn({ action: pair[0] }); });
      box.appendChild(b);
    });
  }

  function renderStructure() {
    var s = view.structure;
    $("structure").hidden = !s;
    if (!s) return;
    var reviewing = view.review && view.review.kind === "structure";
    $("review-note").textContent = reviewing ? (view.review.note || "") : "";
    var body = $("structure-body");
    body.textContent = "";
    var topics = {};
    s.topics.forEach(function (t) { topics[t.topic_id] = t; });
    if (s.issues.length) body.appendChild(el("p", { "class": "error", "data-testid": "structure-issues" }, "Issues: " + s.issues.join("; ")));
    if (s.suggestions.length) {
      var ul = el("ul", { "class": "muted", "data-testid": "suggestions" });
      s.suggestions.slice(0, 6).forEach(function (g) { ul.appendChild(el("li", {}, "Suggestion: " + g.reason)); });
      body.appendChild(ul);
    }
    var order = [];
    s.units.forEach(function (unit) { unit.topic_ids.forEach(function (id) { if (topics[id]) order.push(id); }); });
    var splits = view.split_points || {};
    s.units.forEach(function (unit, unitIndex) {
      var section = el("div", { "class": "unit", "data-unit": unit.unit_id });
      if (reviewing) {
        var head = el("div", { "class": "inline-form unit-head" });
        head.appendChild(el("input", { value: unit.title, "aria-label": "Title of unit " + unit.title, "data-rename-unit": unit.unit_id, maxlength: "200" }));
        [["↑", "up"], ["↓", "down"]].forEach(function (m) {
          var b = el("button", { type: "button", "class": "secondary", "aria-label": "Move unit " + unit.title + " " + m[1], "data-move-unit": unit.unit_id + ":" + m[1] }, m[0]);
          b.disabled = (m[1] === "up" && unitIndex === 0) || (m[1] === "down" && unitIndex === s.units.length - 1);
          b.addEventListener("click", function () { turn({ edits: [{ op: "move_unit", unit_id: unit.unit_id, direction: m[1] }] }); });
          head.appendChild(b);
        });
        section.appendChild(head);
      } else {
        section.appendChild(el("h3", {}, unit.title));
      }
      var ol = el("ol", {});
      unit.topic_ids.forEach(function (id, index) {
        var t = topics[id];
        var li = el("li", { "data-topic": id });
        if (reviewing) {
          var pick = el("input", { type: "checkbox", "aria-label": "Select " + t.title, "data-merge": id });
          var name = el("input", { value: t.title, "aria-label": "Title of " + t.title, "data-rename": id, maxlength: "200" });
          li.appendChild(pick); li.appendChild(name);
          [["↑", -1], ["↓", 1]].forEach(function (m) {
            var b = el("button", { type: "button", "class": "secondary", "aria-label": "Move " + t.title + (m[1] < 0 ? " up" : " down") }, m[0]);
            b.addEventListener("click", function () {
              var pos = index + m[1];
              if (pos < 0 || pos >= unit.topic_ids.length) return;
              turn({ edits: [{ op: "move", topic_id: id, unit_id: unit.unit_id, position: pos }] });
            });
            li.appendChild(b);
          });
          var drop = el("button", { type: "button", "class": "secondary", "aria-label": "Drop " + t.title, "data-drop": id }, "Drop");
          drop.addEventListener("click", function () { turn({ edits: [{ op: "drop", topic_id: id }] }); });
          li.appendChild(drop);
          li.appendChild(el("span", { "class": "muted" }, " " + counted(t.words, "word")));
          li.appendChild(topicControls(t, topics, order, splits[id] || []));
        } else {
          li.appendChild(el("strong", {}, t.title));
          var meta = " " + counted(t.words, "word");
          var builds = t.prerequisites.filter(function (p) { return topics[p]; }).map(function (p) { return topics[p].title; });
          if (builds.length) meta += " · builds on " + builds.join(", ");
          li.appendChild(el("span", { "class": "muted" }, meta));
        }
        ol.appendChild(li);
      });
      section.appendChild(ol);
      body.appendChild(section);
    });
    if (reviewing) {
      var bar = el("div", { "class": "inline-form" });
      var apply = el("button", { type: "button", "class": "secondary", "data-testid": "apply-structure" }, "Apply renames and merge selected");
      bar.appendChild(el("span", { "class": "muted" }, "Or type it to the assistant: “merge A and B”, “split A”, “B needs A”, “looks good, approve”. "));
      apply.addEventListener("click", function () { turn({ edits: structureEdits() }); });
      var approve = el("button", { type: "button", "data-testid": "approve-structure" }, "Approve structure");
      approve.addEventListener("click", function () { turn({ edits: structureEdits(), approve: true }); });
      bar.appendChild(apply); bar.appendChild(approve);
      body.appendChild(bar);
    }
  }

  // A topic's prerequisites (each removable), a choice of an earlier topic to build on, and
  // where it can be split (its own headings).
  function topicControls(t, topics, order, splitAt) {
    var box = el("div", { "class": "topic-controls", "data-controls": t.topic_id });
    var needs = el("p", { "class": "muted" }, "Builds on: ");
    var listed = t.prerequisites.filter(function (p) { return topics[p]; });
    if (!listed.length) needs.appendChild(document.createTextNode("nothing yet "));
    listed.forEach(function (p) {
      needs.appendChild(document.createTextNode(topics[p].title + " "));
      var x = el("button", { type: "button", "class": "secondary", "aria-label": t.title + " no longer builds on " + topics[p].title, "data-remove-prerequisite": t.topic_id + ":" + p }, "×");
      x.addEventListener("click", function () { turn({ edits: [{ op: "remove_prerequisite", topic_id: t.topic_id, prerequisite_id: p }] }); });
      needs.appendChild(x);
      needs.appendChild(document.createTextNode(" "));
    });
    box.appendChild(needs);
    var earlier = order.slice(0, order.indexOf(t.topic_id)).filter(function (p) { return listed.indexOf(p) < 0; });
    if (earlier.length) {
      var add = el("select", { "aria-label": t.title + " builds on", "data-add-prerequisite": t.topic_id });
      add.appendChild(el("option", { value: "" }, "Add: builds on…"));
      earlier.forEach(function (p) { add.appendChild(el("option", { value: p }, topics[p].title)); });
      add.addEventListener("change", function () {
        if (add.value) turn({ edits: [{ op: "add_prerequisite", topic_id: t.topic_id, prerequisite_id: add.value }] });
      });
      box.appendChild(add);
    }
    if (splitAt.length) {
      var split = el("select", { "aria-label": "Split " + t.title + " at", "data-split": t.topic_id });
      split.appendChild(el("option", { value: "" }, "Split at…"));
      splitAt.forEach(function (p) { split.appendChild(el("option", { value: p.section_id }, p.heading || "(untitled section)")); });
      split.addEventListener("change", function () {
        if (split.value) turn({ edits: [{ op: "split_topic", topic_id: t.topic_id, at_section_id: split.value }] });
      });
      box.appendChild(split);
    }
    return box;
  }

  function structureEdits() {
    var edits = [];
    view.structure.units.forEach(function (u) {
      var input = document.querySelector('[data-rename-unit="' + u.unit_id + '"]');
      var title = input ? input.value.trim() : "";
      if (title && title !== u.title) edits.push({ op: "rename_unit", unit_id: u.unit_id, title: title });
    });
    var topics = {};
    view.structure.topics.forEach(function (t) { topics[t.topic_id] = t; });
    document.querySelectorAll("[data-rename]").forEach(function (input) {
      var id = input.getAttribute("data-rename");
      var title = input.value.trim();
      if (title && topics[id] && title !== topics[id].title) edits.push({ op: "rename", topic_id: id, title: title });
    });
    var picked = Array.prototype.map.call(document.querySelectorAll("[data-merge]:checked"), function (b) { return b.getAttribute("data-merge"); });
    if (picked.length >= 2) edits.push({ op: "merge", topic_ids: picked });
    return edits;
  }

  function renderQuiz() {
    var bank = view.quiz_bank;
    $("quiz").hidden = !bank;
    if (!bank) return;
    var reviewing = view.review && view.review.kind === "quiz";
    $("quiz-note").textContent = reviewing ? (view.review.note || "") : "";
    var body = $("quiz-body");
    body.textContent = "";
    var kept = bank.items.filter(function (i) { return !i.problems.length; });
    body.appendChild(el("p", { "data-testid": "quiz-summary" }, counted(kept.length, "question") + " kept; " + bank.dropped + " dropped by checks or by you."));
    var topics = {};
    (view.structure ? view.structure.topics : []).forEach(function (t) { topics[t.topic_id] = t.title; });
    var list = el("ol", { "class": "quiz-items" });
    kept.forEach(function (item, n) {
      var li = el("li", { "data-item": item.item_id });
      var id = "item-" + n;
      li.appendChild(el("p", { "class": "muted" }, (topics[item.topic_id] || "Lesson") + " · level: " + level(item.bloom_level)));
      if (reviewing) {
        // The question is shown once: in its field (a read-only copy would repeat it).
        li.appendChild(el("label", { "for": id + "-text" }, "Question"));
        var q = el("textarea", { id: id + "-text", "data-text": item.item_id, rows: "3", maxlength: "4000" }); q.value = item.text;
        li.appendChild(q);
        li.appendChild(el("label", { "for": id + "-answer" }, "Model answer"));
        var a = el("textarea", { id: id + "-answer", "data-answer": item.item_id, rows: "2", maxlength: "4000" }); a.value = item.reference_answer;
        li.appendChild(a);
        li.appendChild(el("label", { "for": id + "-points" }, "Key points the grader looks for (one a line)"));
        var k = el("textarea", { id: id + "-points", "data-points": item.item_id, rows: "2" }); k.value = item.key_points.join("\n");
        li.appendChild(k);
        var drop = el("p", { "class": "check-row" });
        drop.appendChild(el("input", { type: "checkbox", id: id + "-drop", "data-drop-item": item.item_id }));
        drop.appendChild(el("label", { "for": id + "-drop" }, " Drop this question"));
        li.appendChild(drop);
      } else {
        li.appendChild(withCode(item.text));
        li.appendChild(el("p", { "class": "muted" }, "Answer: " + item.reference_answer));
      }
      list.appendChild(li);
    });
    body.appendChild(list);
    if (reviewing) {
      body.appendChild(addQuestionForm(bank));
      var approve = el("button", { type: "button", "data-testid": "approve-quiz" }, "Save and approve the quiz bank");
      approve.addEventListener("click", function () { turn({ edits: quizEdits(bank), approve: true }); });
      body.appendChild(approve);
    }
  }

  // The author writes a question for one lesson; it is checked like the generated ones.
  function addQuestionForm(bank) {
    var form = el("form", { id: "add-question", "class": "card", "data-testid": "add-question", novalidate: "" });
    form.appendChild(el("h3", {}, "Add a question"));
    form.appendChild(el("label", { "for": "add-topic" }, "Lesson"));
    var topic = el("select", { id: "add-topic" });
    (view.structure ? view.structure.topics : []).forEach(function (t) { topic.appendChild(el("option", { value: t.topic_id }, t.title)); });
    form.appendChild(topic);
    form.appendChild(el("label", { "for": "add-text" }, "Question"));
    var text = el("textarea", { id: "add-text", rows: "3", maxlength: "4000" });
    form.appendChild(text);
    form.appendChild(el("label", { "for": "add-answer" }, "Model answer"));
    var answer = el("textarea", { id: "add-answer", rows: "2", maxlength: "4000" });
    form.appendChild(answer);
    form.appendChild(el("label", { "for": "add-points" }, "Key points the grader looks for (optional, one a line)"));
    var points = el("textarea", { id: "add-points", rows: "2" });
    form.appendChild(points);
    form.appendChild(el("label", { "for": "add-level" }, "Level of understanding it asks for"));
    var bloom = el("select", { id: "add-level" });
    Object.keys(BLOOM).forEach(function (name) {
      var o = el("option", { value: name }, level(name));
      if (name === "understand") o.selected = true;
      bloom.appendChild(o);
    });
    form.appendChild(bloom);
    var error = el("p", { id: "add-errors", "class": "error", role: "alert", "data-testid": "add-errors" });
    form.appendChild(error);
    form.appendChild(el("button", { type: "submit", "class": "secondary" }, "Add the question"));
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var problems = [];
      if (text.value.trim().length < 5) problems.push("Write the question (at least 5 characters).");
      if (answer.value.trim().length < 3) problems.push("Write its model answer (at least 3 characters).");
      error.textContent = problems.join(" ");
      if (problems.length) { (text.value.trim().length < 5 ? text : answer).focus(); return; }
      var add = { op: "add_item", topic_id: topic.value, text: text.value.trim(), reference_answer: answer.value.trim(),
        key_points: lines(points.value), bloom_level: bloom.value };
      turn({ edits: quizEdits(bank).concat([add]) });
    });
    return form;
  }

  function lines(text) { return text.split("\n").map(function (l) { return l.trim(); }).filter(Boolean); }

  function quizEdits(bank) {
    var edits = [];
    bank.items.forEach(function (item) {
      var dropBox = document.querySelector('[data-drop-item="' + item.item_id + '"]');
      if (dropBox && dropBox.checked) { edits.push({ op: "drop_item", item_id: item.item_id }); return; }
      var q = document.querySelector('[data-text="' + item.item_id + '"]');
      var a = document.querySelector('[data-answer="' + item.item_id + '"]');
      var k = document.querySelector('[data-points="' + item.item_id + '"]');
      var edit = { op: "edit_item", item_id: item.item_id };
      var changed = false;
      if (q && q.value.trim() && q.value.trim() !== item.text) { edit.text = q.value.trim(); changed = true; }
      if (a && a.value.trim() && a.value.trim() !== item.reference_answer) { edit.reference_answer = a.value.trim(); changed = true; }
      if (k && lines(k.value).length && lines(k.value).join("\n") !== item.key_points.join("\n")) { edit.key_points = lines(k.value); changed = true; }
      if (changed) edits.push(edit);
    });
    return edits;
  }

  // The readiness checks in the author's words (readiness.LABELS, from the page).
  var CHECK_WORDS = JSON.parse(root.getAttribute("data-checks") || "{}");

  function renderReport() {
    var r = view.report;
    $("report").hidden = !r;
    if (!r) return;
    var body = $("report-body");
    body.textContent = "";
    body.appendChild(el("p", { "data-testid": "readiness" }, "Readiness " + r.readiness + " out of 100: " + (r.ready ? "ready to publish" : "not ready yet; publishing will ask you to confirm")));
    var ul = el("ul", {});
    r.checks.forEach(function (c) {
      ul.appendChild(el("li", { "data-passed": String(c.passed), "data-check": c.name }, (c.passed ? "✓ " : "! ") + (CHECK_WORDS[c.name] || c.name) + ": " + c.detail));
    });
    body.appendChild(ul);
  }

  function renderPublished() {
    $("published").hidden = !view.course_slug;
    if (!view.course_slug) return;
    var p = $("published-body");
    p.textContent = "Your course is published (private to you). ";
    var a = el("a", { href: "/learn/" + view.course_slug, "data-testid": "course-link" }, "Open the course and share it");
    p.appendChild(a);
    p.appendChild(document.createTextNode(" · "));
    p.appendChild(el("a", { href: "/teach/" + view.course_slug, "data-testid": "course-learners" }, "See who studies it"));
  }

  $("upload-form").addEventListener("submit", async function (e) {
    e.preventDefault();
    var files = $("files").files;
    var errors = [];
    $("upload-errors").textContent = "";
    if (!files.length) {
      $("upload-errors").textContent = "Choose one or more files first.";
      $("files").focus();
      return;
    }
    for (var i = 0; i < files.length; i++) {
      $("status").textContent = "Uploading " + files[i].name + " (" + (i + 1) + " of " + files.length + ")…";
      var form = new FormData();
      form.append("session_id", sessionId);
      form.append("file", files[i]);
      var res = await fetch(api + "/session/upload", { method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": csrfToken }, body: form });
      if (!res.ok) errors.push(problem(res, await json(res)));
    }
    $("upload-errors").textContent = errors.join(" ");
    $("files").value = "";
    await load();
  });

  $("chat-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var text = $("chat-input").value.trim();
    if (!text) return;
    $("chat-input").value = "";
    turn({ message: text });
  });

  load();
})();
