/* tutorgraph tutor chat, lesson and explore alike: streams POST /api/v1/tutor/chat (or
   /explore/chat) as SSE, renders the replies (markdown: chat-markdown.js) and the tutor's
   structured blocks; quiz cards are graded by the server. No build step, no CDN. */
(function () {
  "use strict";
  var root = document.getElementById("tutor-chat");
  if (!root || root.dataset.loggedIn !== "true") return;

  var kind = root.dataset.kind; // "tutor" | "explore"
  var lessonId = root.dataset.lessonId ? Number(root.dataset.lessonId) : null;
  var log = root.querySelector(".chat-log");
  var form = root.querySelector(".chat-form");
  var input = root.querySelector("#chat-input");
  var sendBtn = root.querySelector(".send");
  var stopBtn = root.querySelector(".stop");
  var status = root.querySelector(".chat-status");
  var historyList = root.querySelector(".history-list");
  var api = "/api/v1/" + (kind === "tutor" ? "tutor" : "explore");
  var sessionId = null;
  var answered = {};  // quiz id -> its latest answer in this conversation, as the server graded it
  var mode = "default";
  var controller = null;
  var BLOCKS = ["quiz", "resource", "image", "flow", "architecture"];
  // The page's CSRF token: the session cookie authenticates these calls, so unsafe ones send it.
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrfToken = csrfMeta ? csrfMeta.getAttribute("content") : "";

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text != null) node.textContent = text;
    return node;
  }

  // Markdown (chat-markdown.js); citations become links to the lesson's headings.
  var md = window.tutorgraphMarkdown;
  var escapeHtml = md.escapeHtml;
  var safeUrl = md.safeUrl;
  function inline(text) { return md.inline(text, citedHeading); }
  function markdown(src) { return md.markdown(src, citedHeading); }

  // ---- citations: "(Source: Lesson › Heading › Subheading)" links to that heading of the
  // lesson beside the chat (its id: "h-" and the heading's words, see content/rendering.py) ----
  var lessonTitle = root.dataset.lessonTitle || "";
  function words(text) { return (text.toLowerCase().match(/[a-z0-9]+/g) || []).join(""); }
  var anchors = null;
  function citedHeading(path) {
    var parts = path.replace(/&gt;/g, ">").split(/\s*›\s*/);
    if (!lessonTitle || parts.length < 2 || words(parts[0]) !== words(lessonTitle)) return null;
    if (!anchors) {
      anchors = {};
      document.querySelectorAll(".lesson-body [id^='h-']").forEach(function (h) {
        var key = words(h.id.slice(2).replace(/_\d+$/, ""));
        if (!(key in anchors)) anchors[key] = h.id;
      });
    }
    for (var i = parts.length - 1; i > 0; i--) {
      var found = anchors[words(parts[i])];
      if (found) return found;
    }
    return null;
  }
  log.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("a.citation");
    if (!link) return;
    var heading = document.getElementById(link.dataset.anchor);
    if (!heading) return;
    e.preventDefault();
    if (typeof window.tutorgraphShowPane === "function") window.tutorgraphShowPane("lesson");
    heading.setAttribute("tabindex", "-1");
    heading.scrollIntoView({ block: "start" });
    heading.focus({ preventScroll: true });
    heading.classList.add("cited");
    setTimeout(function () { heading.classList.remove("cited"); }, 2000);
  });

  // ---- structured blocks ----
  function splitBlocks(text) {
    var parts = [];
    var re = /<(quiz|resource|image|flow|architecture)>([\s\S]*?)<\/\1>/g;
    var last = 0;
    var m;
    while ((m = re.exec(text))) {
      if (m.index > last) parts.push({ text: text.slice(last, m.index) });
      parts.push({ tag: m[1], body: m[2] });
      last = re.lastIndex;
    }
    var rest = text.slice(last);
    // hide a block still being streamed
    var open = rest.search(new RegExp("<(" + BLOCKS.join("|") + ")>"));
    if (open >= 0) { parts.push({ text: rest.slice(0, open) }); parts.push({ pending: true }); }
    else parts.push({ text: rest });
    return parts;
  }

  // A quiz card comes without its answer: the server grades the choice (and keeps the answer).
  function quizCard(q) {
    var card = el("div", "block-card quiz-card");
    card.setAttribute("role", "group");
    card.setAttribute("aria-label", "Quiz question");
    card.setAttribute("data-testid", "quiz-card");
    var question = el("p", "question");
    question.innerHTML = inline(escapeHtml(q.question || ""));
    card.appendChild(question);
    var opts = el("div", "options");
    var buttons = (q.options || []).map(function (option, index) {
      var b = el("button");
      b.type = "button";
      b.innerHTML = String.fromCharCode(65 + index) + ". " + inline(escapeHtml(option));
      b.addEventListener("click", function () { answer(index); });
      opts.appendChild(b);
      return b;
    });
    card.appendChild(opts);
    var whyId = "why-" + Math.random().toString(36).slice(2);
    var whyLabel = el("label", "why-label", "Why? (optional, sent with your answer)");
    whyLabel.htmlFor = whyId;
    var why = el("input", "why");
    why.id = whyId;
    why.type = "text";
    why.maxLength = 500;
    why.autocomplete = "off";
    card.appendChild(whyLabel);
    card.appendChild(why);
    // One verdict, one note: each answer replaces them (nothing is said twice).
    var verdict = el("div", "verdict");
    verdict.setAttribute("role", "status");
    var note = el("p", "mastery-note muted");
    note.setAttribute("data-testid", "quiz-mastery");
    note.hidden = true;
    card.appendChild(verdict);
    card.appendChild(note);

    function show(result, lead) {
      buttons.forEach(function (b, i) {
        b.classList.remove("correct", "wrong");
        b.disabled = result.correct || i === result.selected_index;
      });
      var chosen = buttons[result.selected_index];
      if (chosen) chosen.classList.add(result.correct ? "correct" : "wrong");
      verdict.className = "verdict " + (result.correct ? "ok" : "bad");
      verdict.textContent = "";
      // The verdict in steps: the tutor's words (from the card and the knowledge base: Markdown
      // and maths, typeset like a reply) and the learner's own words they answer, quoted as
      // plain text (never parsed as markup).
      var parts = result.parts && result.parts.length ? result.parts : [{
        said: null,
        text: result.feedback || (result.correct
          ? ("Correct! " + (result.explanation || "")).trim()
          : "Not quite. Have another look at the options and try again.")
      }];
      var quoted = false;
      parts.forEach(function (part, i) {
        var p = el("p", i === 0 ? "feedback" : "feedback feedback-reason");
        if (i === 0 && lead) p.appendChild(document.createTextNode(lead + " "));
        if (part.said) {
          quoted = true;
          p.appendChild(document.createTextNode("You said "));
          var words = el("q", "your-words", part.said);
          words.setAttribute("data-testid", "quiz-your-words");
          p.appendChild(words);
          p.appendChild(document.createTextNode(". "));
        }
        var told = el("span");
        told.innerHTML = inline(escapeHtml(part.text || ""));
        p.appendChild(told);
        verdict.appendChild(p);
      });
      if (result.why && !quoted) {
        var reason = el("p", "your-why");
        reason.appendChild(el("strong", null, "Your reasoning: "));
        reason.appendChild(document.createTextNode(result.why));
        verdict.appendChild(reason);
      }
      why.disabled = !!result.correct;
      if (result.correct) why.value = "";
      typeset(verdict);
    }
    function showMastery(res) {
      var m = res.mastery;
      note.hidden = !m;
      if (!m) return;
      note.textContent = res.recorded
        ? "Mastery of " + m.concept + ": " + Math.round(m.before * 100) + "% → " + Math.round(m.after * 100) + "%"
        : "Only your first answer to a card counts: mastery of " + m.concept + " stays at " + Math.round(m.after * 100) + "%";
    }
    async function answer(index) {
      if (!q.id || !sessionId) return;
      buttons.forEach(function (b) { b.disabled = true; });
      var body = { session_id: sessionId, quiz_id: q.id, selected_index: index, why: why.value.trim() };
      if (kind === "tutor") body.lesson_id = lessonId;
      try {
        var res = await fetch("/api/v1/tutor/quiz-answer", {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken },
          credentials: "same-origin",
          body: JSON.stringify(body)
        });
        if (!res.ok) throw new Error(String(res.status));
        var result = await res.json();
        answered[q.id] = result;
        show(result);
        showMastery(result);
      } catch (e) {
        buttons.forEach(function (b) { b.disabled = b.classList.contains("wrong"); });
        verdict.className = "verdict bad";
        verdict.textContent = "That answer could not be graded just now; try again.";
      }
    }
    if (q.id && answered[q.id]) show(answered[q.id], "You answered this earlier.");
    typeset(card);
    return card;
  }

  function typeset(node) {
    if (typeof window.tutorgraphRender !== "function") return;
    try { window.tutorgraphRender(node); } catch (e) { /* maths is best-effort */ }
  }

  function resourceCard(r) {
    var card = el("div", "block-card resource-card");
    var url = safeUrl(r.url || "");
    var title = url ? el("a", null, r.title) : el("strong", null, r.title);
    if (url) { title.href = url; title.target = "_blank"; title.rel = "noopener noreferrer"; }
    card.appendChild(title);
    if (r.type) card.appendChild(el("span", "muted", " · " + r.type));
    if (r.description) card.appendChild(el("p", null, r.description));
    return card;
  }

  function imageCard(img) {
    var card = el("figure", "block-card image-card");
    var src = safeUrl(img.src || "") || (/^[\w./-]+$/.test(img.src || "") ? "/" + img.src.replace(/^\/+/, "") : null);
    if (src) {
      var button = el("button");
      button.type = "button";
      button.setAttribute("aria-label", "Enlarge image: " + (img.caption || "image"));
      var image = el("img");
      image.src = src;
      image.alt = img.caption || "";
      button.appendChild(image);
      button.addEventListener("click", function () { openLightbox(src, img.caption || ""); });
      card.appendChild(button);
    }
    if (img.caption) card.appendChild(el("figcaption", null, img.caption));
    return card;
  }

  function flowCard(f) {
    var card = el("div", "block-card flow-card");
    card.setAttribute("role", "group");
    card.setAttribute("aria-label", f.title || "Step-by-step");
    if (f.title) card.appendChild(el("strong", null, f.title));
    var list = el("ol");
    var items = (f.steps || []).map(function (s) {
      var li = el("li", null, s.label + (s.detail ? ": " + s.detail : ""));
      list.appendChild(li);
      return li;
    });
    var pos = 0;
    var counter = el("span", "muted");
    counter.setAttribute("aria-live", "polite");
    var prev = el("button", "chip", "Previous");
    var next = el("button", "chip", "Next");
    prev.type = next.type = "button";
    function show() {
      items.forEach(function (li, i) {
        li.className = i === pos ? "current" : i < pos ? "seen" : "";
        if (i === pos) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
      });
      counter.textContent = " Step " + (pos + 1) + " of " + items.length + " ";
      prev.disabled = pos === 0;
      next.disabled = pos >= items.length - 1;
    }
    prev.addEventListener("click", function () { if (pos > 0) { pos--; show(); } });
    next.addEventListener("click", function () { if (pos < items.length - 1) { pos++; show(); } });
    card.appendChild(list);
    var nav = el("div");
    nav.appendChild(prev); nav.appendChild(counter); nav.appendChild(next);
    card.appendChild(nav);
    show();
    return card;
  }

  function archCard(a) {
    var card = el("div", "block-card arch-card");
    card.setAttribute("role", "group");
    card.setAttribute("aria-label", a.title || "Architecture");
    if (a.title) card.appendChild(el("strong", null, a.title));
    function nodes(list) {
      var ul = el("ul");
      list.forEach(function (n) {
        var li = el("li");
        if (n.children && n.children.length) {
          var d = el("details");
          d.appendChild(el("summary", null, n.label + (n.detail ? ": " + n.detail : "")));
          d.appendChild(nodes(n.children));
          li.appendChild(d);
        } else li.textContent = n.label + (n.detail ? ": " + n.detail : "");
        ul.appendChild(li);
      });
      return ul;
    }
    card.appendChild(nodes(a.nodes || []));
    if (a.edges && a.edges.length) {
      var labels = {};
      (function index(list) { list.forEach(function (n) { labels[n.id] = n.label; index(n.children || []); }); })(a.nodes || []);
      var edges = el("ul", "edges");
      a.edges.forEach(function (e) {
        edges.appendChild(el("li", null, (labels[e.from] || e.from) + " → " + (labels[e.to] || e.to) + (e.label ? " (" + e.label + ")" : "")));
      });
      card.appendChild(edges);
    }
    return card;
  }

  var RENDERERS = { quiz: quizCard, resource: resourceCard, image: imageCard, flow: flowCard, architecture: archCard };

  function renderInto(bubble, text, final) {
    var keep = bubble._blocks || (bubble._blocks = {});
    bubble.innerHTML = "";
    var n = 0;
    splitBlocks(text).forEach(function (part) {
      if (part.pending) return;
      if (part.text != null) {
        if (part.text.trim()) {
          var div = el("div", "md");
          div.innerHTML = markdown(part.text);
          bubble.appendChild(div);
        }
        return;
      }
      var key = part.tag + ":" + (n++);
      if (!keep[key]) {
        var data = null;
        try { data = JSON.parse(part.body); } catch (e) { data = null; }
        keep[key] = data ? RENDERERS[part.tag](data) : el("pre", null, part.body);
      }
      bubble.appendChild(keep[key]);
    });
    if (final && typeof window.tutorgraphRender === "function") {
      try { window.tutorgraphRender(bubble); } catch (e) { /* rendering extras is best-effort */ }
    }
  }

  // ---- lightbox ----
  var lightbox = document.querySelector(".lightbox");
  function openLightbox(src, caption) {
    if (!lightbox) return;
    lightbox.querySelector("img").src = src;
    lightbox.querySelector("img").alt = caption;
    lightbox.querySelector(".lightbox-caption").textContent = caption;
    lightbox.hidden = false;
    lightbox.querySelector(".lightbox-close").focus();
  }
  if (lightbox) {
    lightbox.addEventListener("click", function (e) {
      if (e.target === lightbox || e.target.classList.contains("lightbox-close")) lightbox.hidden = true;
    });
    document.addEventListener("keydown", function (e) { if (e.key === "Escape") lightbox.hidden = true; });
  }

  // ---- messages ----
  function clearEmpty() {
    var empty = log.querySelector(".chat-empty");
    if (empty) empty.remove();
    root.classList.remove("empty");
  }

  function addMessage(role, text) {
    clearEmpty();
    var msg = el("div", "msg " + role);
    msg.setAttribute("data-testid", role + "-message");
    var label = el("span", "visually-hidden", role === "user" ? "You said:" : "Tutor:");
    msg.appendChild(label);
    var chips = el("div", "tool-chips");
    var bubble = el("div", "bubble");
    if (role === "assistant") msg.appendChild(chips);
    msg.appendChild(bubble);
    log.appendChild(msg);
    if (role === "user") bubble.textContent = text;
    else if (text) renderInto(bubble, text, true);
    return { msg: msg, bubble: bubble, chips: chips };
  }

  // Exactly one chip per tool call: a result fills the chip of the call it answers (by id;
  // else the oldest open chip of that tool) and never adds one of its own.
  function toolChip(container, frame) {
    var chip = el("details", "tool-chip");
    chip.setAttribute("data-testid", "tool-call");
    if (frame.id) chip.dataset.callId = frame.id;
    chip.dataset.tool = frame.name;
    chip.appendChild(el("summary", null, "Tool: " + frame.name));
    var args = el("pre", null, JSON.stringify(frame.arguments || {}, null, 2));
    chip.appendChild(args);
    container.appendChild(chip);
    return chip;
  }

  function chipFor(container, frame) {
    var chips = Array.prototype.slice.call(container.querySelectorAll(".tool-chip"));
    var match = chips.filter(function (c) { return frame.id && c.dataset.callId === frame.id; })[0];
    return match || chips.filter(function (c) { return c.dataset.tool === frame.name && !c.dataset.done; })[0];
  }

  function toolResult(container, frame) {
    var chip = chipFor(container, frame);
    if (!chip || chip.dataset.done) return;
    chip.dataset.done = "true";
    var result = typeof frame.result === "string" ? frame.result : JSON.stringify(frame.result, null, 2);
    chip.appendChild(el("pre", null, result.length > 4000 ? result.slice(0, 4000) + "…" : result));
    chip.querySelector("summary").textContent = "Tool: " + frame.name + " ✓";
  }

  function setBusy(busy) {
    sendBtn.disabled = busy;
    stopBtn.hidden = !busy;
    status.textContent = busy ? "The tutor is replying" : "Reply complete";
  }

  // Auto-scroll only when the learner sends (never while a reply streams): their question goes
  // to the top of the log and the reply grows below it, in view. The reply keeps room for a
  // full log height so the question can reach the top even while the reply is short.
  function revealExchange(question, reply) {
    log.querySelectorAll(".msg.assistant").forEach(function (m) { m.style.minHeight = ""; });
    if (!question) return;
    var gap = 8;
    if (reply) reply.style.minHeight = Math.max(0, log.clientHeight - question.offsetHeight - 3 * gap) + "px";
    log.scrollTop = Math.max(0, question.offsetTop - gap);
  }

  // `focus` (a concept of the lesson): the tutor opens a new conversation on it itself, so
  // there is no learner message to show or send.
  async function send(text, focus) {
    if (controller) return;
    var asked = focus ? null : addMessage("user", text);
    var reply = addMessage("assistant", "");
    revealExchange(asked ? asked.msg : reply.msg, reply.msg);
    controller = new AbortController();
    setBusy(true);
    var body = focus ? { focus: focus, mode: mode } : { message: text, mode: mode };
    if (sessionId) body.session_id = sessionId;
    if (kind === "tutor") body.lesson_id = lessonId;
    var acc = "";
    try {
      var res = await fetch(api + "/chat", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "text/event-stream", "X-CSRF-Token": csrfToken },
        credentials: "same-origin",
        body: JSON.stringify(body),
        signal: controller.signal
      });
      if (!res.ok || !res.body) {
        var problem = "";
        try { problem = (await res.json()).detail || ""; } catch (e) { problem = ""; }
        throw new Error(problem || "The tutor could not answer (" + res.status + ").");
      }
      sessionId = res.headers.get("X-Session-Id") || sessionId;
      var reader = res.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      for (;;) {
        var chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        var cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          var raw = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (raw.indexOf("data: ") !== 0) continue;
          var frame;
          try { frame = JSON.parse(raw.slice(6)); } catch (e) { continue; }
          if (frame.type === "text") {
            acc += frame.delta;
            renderInto(reply.bubble, acc, false);
          } else if (frame.type === "tool_call") {
            if (!frame.id || !reply.chips.querySelector('[data-call-id="' + CSS.escape(frame.id) + '"]')) {
              toolChip(reply.chips, frame);
            }
          } else if (frame.type === "tool_result") {
            toolResult(reply.chips, frame);
          } else if (frame.type === "error") {
            reply.msg.classList.add("error");
            acc += "\n\n" + frame.message;
            renderInto(reply.bubble, acc, false);
          }
        }
      }
    } catch (err) {
      if (err && err.name === "AbortError") acc += "\n\n*(stopped)*";
      else { reply.msg.classList.add("error"); acc += "\n\n" + (err && err.message ? err.message : "Connection lost."); }
    } finally {
      renderInto(reply.bubble, acc, true);
      controller = null;
      setBusy(false);
      loadHistory();
    }
  }

  // ---- history ----
  function fmt(iso) {
    try { return new Date(iso).toLocaleString(); } catch (e) { return iso; }
  }

  async function loadHistory() {
    if (!historyList) return;
    var url = api + "/sessions" + (kind === "tutor" && lessonId != null ? "?lesson_id=" + lessonId : "");
    try {
      var res = await fetch(url, { credentials: "same-origin" });
      if (!res.ok) return;
      var rows = await res.json();
      historyList.innerHTML = "";
      if (!rows.length) historyList.appendChild(el("li", "muted", "No conversations yet."));
      rows.forEach(function (row) {
        var li = el("li");
        var open = el("button", "open", (row.title || "Conversation") + " · " + fmt(row.updated_at));
        open.type = "button";
        if (row.id === sessionId) open.setAttribute("aria-current", "true");
        open.addEventListener("click", function () { openSession(row.id); });
        var del = el("button", "delete", "✕");
        del.type = "button";
        del.setAttribute("aria-label", "Delete conversation " + (row.title || ""));
        del.addEventListener("click", async function () {
          await fetch(api + "/sessions/" + encodeURIComponent(row.id), { method: "DELETE", credentials: "same-origin", headers: { "X-CSRF-Token": csrfToken } });
          if (row.id === sessionId) newChat();
          loadHistory();
        });
        li.appendChild(open);
        li.appendChild(del);
        historyList.appendChild(li);
      });
    } catch (e) { /* history is optional */ }
  }

  async function openSession(id) {
    var res = await fetch(api + "/sessions/" + encodeURIComponent(id), { credentials: "same-origin" });
    if (!res.ok) { loadHistory(); return; }
    var detail = await res.json();
    sessionId = detail.id;
    answered = detail.quiz_answers || {};
    log.innerHTML = "";
    detail.messages.forEach(function (m) {
      var text = m.content;
      if (m.role !== "user" && m.interrupted) {
        // stored as it streamed, but the reply never finished (a crash or a restart)
        text = text ? text + "\n\n_(This reply was interrupted.)_"
                    : "_(This reply was interrupted before it said anything.)_";
      }
      addMessage(m.role === "user" ? "user" : "assistant", text);
    });
    var questions = log.querySelectorAll(".msg.user");
    var last = questions[questions.length - 1];
    revealExchange(last, last && last.nextElementSibling);
    var details = root.querySelector(".chat-history");
    if (details) details.open = false;
    status.textContent = "Opened conversation " + (detail.title || "");
    loadHistory();
  }

  var emptyHtml = log.innerHTML;
  function newChat() {
    if (controller) controller.abort();
    sessionId = null;
    answered = {};
    log.innerHTML = emptyHtml;
    root.classList.add("empty");
    bindSuggestions();
    loadHistory();
  }

  function bindSuggestions() {
    root.querySelectorAll(".suggestion").forEach(function (b) {
      b.addEventListener("click", function () { send(b.textContent.trim()); });
    });
  }

  // ---- wiring ----
  root.classList.add("empty");
  bindSuggestions();
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var text = input.value.trim();
    if (!text || controller) return;
    input.value = "";
    send(text);
  });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });
  sendBtn.disabled = false;  // sending is handled from here on
  stopBtn.addEventListener("click", function () { if (controller) controller.abort(); });
  root.querySelectorAll(".chip.mode").forEach(function (chip) {
    chip.addEventListener("click", function () {
      mode = chip.dataset.mode;
      root.querySelectorAll(".chip.mode").forEach(function (c) {
        c.setAttribute("aria-checked", c === chip ? "true" : "false");
      });
    });
  });
  var newBtn = root.querySelector(".new-chat");
  if (newBtn) newBtn.addEventListener("click", newChat);
  // The path planner's "see it explained another way" opens the page with ?mode=…&focus=…: the
  // tutor opens a new conversation on that concept in that teaching mode, itself (nothing is
  // said in the learner's name); the query then leaves the address, so a reload does not open
  // it again.
  var params = new URLSearchParams(window.location.search);
  var focusNow = kind === "tutor" ? params.get("focus") : null;
  var askMode = params.get("mode");
  if (askMode) {
    root.querySelectorAll(".chip.mode").forEach(function (c) {
      if (c.dataset.mode === askMode) c.click();
    });
  }
  if (focusNow) {
    params.delete("focus");
    params.delete("mode");
    var rest = params.toString();
    window.history.replaceState(null, "", window.location.pathname + (rest ? "?" + rest : "") + window.location.hash);
    loadHistory();
    // On a phone the lesson shows first: bring the tutor's answer to the front (once the
    // lesson page's script, which runs after this one, has set its tabs up).
    document.addEventListener("DOMContentLoaded", function () {
      if (typeof window.tutorgraphShowPane === "function") window.tutorgraphShowPane("tutor");
    });
    send("", focusNow.slice(0, 200));
  } else if (root.dataset.sessionId) openSession(root.dataset.sessionId); // the lesson's last chat
  else loadHistory();

})();
